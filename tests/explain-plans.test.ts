/**
 * tools/explain-plans: its reading of `explain` answers, in the shapes MongoDB gives them (a classic plan
 * tree, 7.0's plan beside a slot-based one, an aggregate's `$cursor` stage), and its run against the
 * offline stand-in: every list request it makes is answered, the commands are recorded, and a server
 * without `explain` is told apart from a plan.
 */
import { MongoClient } from 'mongodb';
import {
  describePlan,
  explainable,
  planKeyOf,
  scansCollection,
  sortsInMemory,
  summarizeExplain,
} from '../tools/explain-plans/plans';
import { CannotExplainError, explainPlans, reportOf } from '../tools/explain-plans/run';

const INDEX = 'tags_1_status_1_createdAt_-1__id_-1';

describe('summarizeExplain', () => {
  it('reads a classic plan tree and its statistics, leaving the rejected plans out', () => {
    const summary = summarizeExplain({
      queryPlanner: {
        winningPlan: {
          stage: 'LIMIT',
          inputStage: { stage: 'FETCH', inputStage: { stage: 'IXSCAN', indexName: INDEX, keyPattern: {} } },
        },
        rejectedPlans: [{ stage: 'SORT', inputStage: { stage: 'COLLSCAN' } }],
      },
      executionStats: { nReturned: 21, totalKeysExamined: 21, totalDocsExamined: 21, executionStages: {} },
    });
    expect(summary).toEqual({
      stages: ['LIMIT', 'FETCH', 'IXSCAN'],
      indexes: [INDEX],
      keysExamined: 21,
      docsExamined: 21,
      returned: 21,
    });
    expect(scansCollection(summary)).toBe(false);
    expect(sortsInMemory(summary)).toBe(false);
    expect(describePlan(summary)).toBe(`LIMIT ← FETCH ← IXSCAN (${INDEX})`);
  });

  it("reads 7.0's query plan beside its slot-based plan, and a merge of two index ranges", () => {
    const summary = summarizeExplain({
      explainVersion: '2',
      queryPlanner: {
        winningPlan: {
          queryPlan: {
            stage: 'LIMIT',
            inputStage: {
              stage: 'FETCH',
              inputStage: {
                stage: 'SORT_MERGE',
                inputStages: [
                  { stage: 'IXSCAN', indexName: 'status_1_likesCount_-1__id_-1' },
                  { stage: 'IXSCAN', indexName: 'status_1_likesCount_-1__id_-1' },
                ],
              },
            },
          },
          slotBasedPlan: { slots: '$$RESULT=s1', stages: '[1] limit 21 [2] nlj' },
        },
      },
      executionStats: { nReturned: 21, totalKeysExamined: 22, totalDocsExamined: 21 },
    });
    expect(summary.stages).toEqual(['LIMIT', 'FETCH', 'SORT_MERGE', 'IXSCAN', 'IXSCAN']);
    expect(summary.indexes).toEqual(['status_1_likesCount_-1__id_-1']);
    expect(summary.keysExamined).toBe(22);
  });

  it("reads an aggregate's count through its $cursor stage, and tells a collection scan and an in-memory sort", () => {
    const count = summarizeExplain({
      stages: [
        {
          $cursor: {
            queryPlanner: { winningPlan: { stage: 'COUNT_SCAN', indexName: 'status_1_createdAt_-1__id_-1' } },
            executionStats: { nReturned: 0, totalKeysExamined: 3987, totalDocsExamined: 0 },
          },
        },
        { $group: { _id: 1, n: { $sum: 1 } } },
      ],
    });
    expect(count).toMatchObject({ stages: ['COUNT_SCAN'], keysExamined: 3987, docsExamined: 0 });

    const scan = summarizeExplain({
      queryPlanner: { winningPlan: { stage: 'SORT', inputStage: { stage: 'COLLSCAN' } } },
      executionStats: { nReturned: 20, totalKeysExamined: 0, totalDocsExamined: 5000 },
    });
    expect(scansCollection(scan)).toBe(true);
    expect(sortsInMemory(scan)).toBe(true);
    expect(describePlan(scan)).toBe('SORT ← COLLSCAN');
  });
});

describe('the kinds of command', () => {
  const page = (ids: string[], tag: string, limit: number) => ({
    find: 'blogs',
    filter: { tags: tag, status: 'published', _id: { $in: ids.map((id) => ({ toHexString: () => id })) } },
    sort: { createdAt: -1, _id: -1 },
    limit,
    $db: 'blog',
    lsid: { id: 'session' },
  });

  it('counts two requests that differ only in values once, and tells orders and operators apart', () => {
    expect(planKeyOf(page(['a', 'b'], 'design', 21))).toBe(planKeyOf(page(['c'], 'news', 11)));
    expect(planKeyOf(page(['a'], 'design', 21))).not.toBe(
      planKeyOf({ ...page(['a'], 'design', 21), sort: { likesCount: -1, _id: -1 } }),
    );
    expect(planKeyOf(page(['a'], 'design', 21))).not.toBe(
      planKeyOf({ ...page(['a'], 'design', 21), filter: { tags: 'design', status: { $in: ['draft', 'published'] } } }),
    );
  });

  it('sends explain the command without the fields the driver adds to it', () => {
    expect(explainable(page(['a'], 'design', 21))).toEqual({
      find: 'blogs',
      filter: expect.any(Object),
      sort: { createdAt: -1, _id: -1 },
      limit: 21,
    });
  });
});

describe('a run on the offline stand-in', () => {
  const uri = () => process.env.TEST_MONGODB_URI!;

  async function explainDatabases() {
    const client = await MongoClient.connect(uri());
    try {
      const { databases } = await client.db().admin().listDatabases();
      return databases.map(({ name }) => name).filter((name) => name.startsWith('explain_'));
    } finally {
      await client.close();
    }
  }

  it('answers every list request it sends and records the commands on blogs and likes (a dry run)', async () => {
    const result = await explainPlans({ uri: uri(), blogs: 60, dryRun: true, sorts: ['-likesCount'] });
    // anonymous, reader and admin (three statuses); two routes without an author; a page after each cursor
    expect(result.requests).toBeGreaterThanOrEqual(120);
    const commands = new Set(result.rows.map((row) => row.command));
    expect(commands).toEqual(new Set(['aggregate blogs', 'find blogs', 'find likes']));
    expect(result.rows.every((row) => row.summary === undefined)).toBe(true);
    expect(reportOf(result)).toContain(`${result.requests} requests sent ${result.rows.length} kinds of command`);
    expect(await explainDatabases()).toEqual([]);
  });

  it('says the server cannot explain rather than report a plan, and leaves no database behind', async () => {
    await expect(explainPlans({ uri: uri(), blogs: 10, dryRun: false })).rejects.toBeInstanceOf(CannotExplainError);
    expect(await explainDatabases()).toEqual([]);
  });
});
