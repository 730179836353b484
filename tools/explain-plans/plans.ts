/**
 * What a MongoDB `explain` says of one command, reduced to what docs/performance.md claims: which stages
 * the winning plan runs, on which indexes, and how much it read for what it returned. Explain's shape
 * differs between server versions (a classic plan tree; 7.0's `queryPlan` beside a slot-based plan; an
 * aggregate's `$cursor` stage or a plan pushed down whole), so the plan is found by walking the answer,
 * never by a fixed path. Rejected plans are not what runs, and are left out.
 */

export interface PlanSummary {
  /** The winning plan's stages, root first (e.g. LIMIT, FETCH, IXSCAN). */
  stages: string[];
  /** The indexes its scans use, by name. */
  indexes: string[];
  keysExamined: number;
  docsExamined: number;
  returned: number;
}

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null;

/** Branches of an explain that describe plans the server did not run, or the same plan a second time. */
const NOT_THE_PLAN = new Set(['rejectedPlans', 'allPlansExecution', 'slotBasedPlan']);

/** Every value under `node` whose key is `key`, in document order, skipping plans that did not run. */
function valuesOf(node: unknown, key: string, found: unknown[] = []): unknown[] {
  if (Array.isArray(node)) {
    for (const item of node) valuesOf(item, key, found);
  } else if (isNode(node)) {
    for (const [name, value] of Object.entries(node)) {
      if (NOT_THE_PLAN.has(name)) continue;
      if (name === key) found.push(value);
      else valuesOf(value, key, found);
    }
  }
  return found;
}

/** A plan tree's stages, root first, with the index of each index scan. */
function walkPlan(plan: unknown, summary: Pick<PlanSummary, 'stages' | 'indexes'>): void {
  if (Array.isArray(plan)) {
    for (const item of plan) walkPlan(item, summary);
    return;
  }
  if (!isNode(plan)) return;
  if (typeof plan.stage === 'string') summary.stages.push(plan.stage);
  if (typeof plan.indexName === 'string' && !summary.indexes.includes(plan.indexName))
    summary.indexes.push(plan.indexName);
  // 7.0's winning plan wraps the tree in `queryPlan`
  for (const child of ['queryPlan', 'inputStage', 'inputStages', 'thenStage', 'elseStage'])
    walkPlan(plan[child], summary);
}

const total = (stats: unknown[], field: string) =>
  stats.reduce<number>((sum, entry) => sum + (isNode(entry) && typeof entry[field] === 'number' ? entry[field] : 0), 0);

/** The summary of an `explain` answer at `executionStats` verbosity (or `queryPlanner`: then no counts). */
export function summarizeExplain(explain: unknown): PlanSummary {
  const summary: PlanSummary = { stages: [], indexes: [], keysExamined: 0, docsExamined: 0, returned: 0 };
  for (const plan of valuesOf(explain, 'winningPlan')) walkPlan(plan, summary);
  const stats = valuesOf(explain, 'executionStats');
  summary.keysExamined = total(stats, 'totalKeysExamined');
  summary.docsExamined = total(stats, 'totalDocsExamined');
  summary.returned = total(stats, 'nReturned');
  return summary;
}

/** Whether the plan reads the whole collection rather than a range of an index. */
export const scansCollection = (summary: PlanSummary): boolean => summary.stages.includes('COLLSCAN');

/** Whether the plan sorts in memory rather than reading an index in order. */
export const sortsInMemory = (summary: PlanSummary): boolean =>
  summary.stages.some((stage) => stage === 'SORT' || stage === 'SORT_KEY_GENERATOR');

/**
 * A command as the planner sees it: values replaced by their kind, and a list by its items' distinct
 * kinds, so that two requests that differ only in a tag's name, a page's ids or a cursor's position count
 * once. Field names and operators stay.
 */
export function shapeOf(value: unknown): unknown {
  // a list's length and order say nothing of the plan ($in of a page's ids): its distinct shapes do
  if (Array.isArray(value))
    return [...new Set(value.map((item) => JSON.stringify(shapeOf(item))))].map((item) => JSON.parse(item));
  if (value instanceof Date) return '<date>';
  if (isNode(value)) {
    if (typeof value.toHexString === 'function') return '<id>';
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, shapeOf(item)]));
  }
  if (typeof value === 'string') return '<string>';
  if (typeof value === 'number') return '<number>';
  return value;
}

/** The parts of a read command that decide its plan, as a key (the sort's directions kept as they are). */
export function planKeyOf(command: Node): string {
  const operation =
    typeof command.find === 'string' ? 'find' : typeof command.aggregate === 'string' ? 'aggregate' : '';
  return JSON.stringify({
    operation,
    collection: command.find ?? command.aggregate,
    filter: shapeOf(command.filter),
    pipeline: shapeOf(command.pipeline),
    sort: command.sort,
    hint: command.hint,
    skip: typeof command.skip === 'number' && command.skip > 0,
  });
}

/** A command as `explain` takes it: without the session, cluster time and other fields the driver adds. */
export function explainable(command: Node): Node {
  return Object.fromEntries(
    Object.entries(command).filter(([key]) => !key.startsWith('$') && !['lsid', 'txnNumber'].includes(key)),
  );
}

/** One line of the report's plan column: the stages root first, the index after its scan. */
export function describePlan(summary: PlanSummary): string {
  const stages = summary.stages.join(' ← ');
  return summary.indexes.length > 0 ? `${stages} (${summary.indexes.join(', ')})` : stages;
}
