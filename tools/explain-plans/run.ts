/**
 * The query plans of every blog list a reader can ask for, on a real MongoDB: docs/performance.md says
 * which index serves each combination; this asks the server. It seeds a database of its own with the
 * benchmark's data (bench/lib/seed.js), serves the real app in process, sends each combination of
 * viewer, sort, status, tag, author, search and publication dates (first page and the page after its
 * cursor), records the commands the API sends on `blogs` and `likes` (the driver's command events), and
 * has the server `explain` each kind of command once.
 *
 *   MONGODB_URI=mongodb://localhost:27017 npm run explain-plans
 *
 * EXPLAIN_BLOGS (2000) blogs are seeded; the database (`explain_<random>`) is dropped at the end.
 * EXPLAIN_DRY_RUN=1 sends the requests and lists the kinds of command without explaining them (the
 * offline stand-in has no `explain`). Writes artifacts/explain-plans/plans.md and prints it. Exit code: 0
 * when every command reads a range of an index, 1 when one scans the whole collection, 2 when the run
 * could not be made (no MONGODB_URI, a server without `explain`, a request that failed).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import bcrypt from 'bcrypt';
import type { CommandStartedEvent } from 'mongodb';
import mongoose from 'mongoose';
import request from 'supertest';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { connectDatabase, disconnectDatabase } from '../../src/lib/database';
import { createLogger } from '../../src/lib/logger';
import { BLOG_STATUSES } from '../../src/models/blog.model';
import { BLOG_SORT_KEYS } from '../../src/schemas/blog';
import { testEnvironment } from '../../tests/helpers/test-app';
import {
  describePlan,
  explainable,
  planKeyOf,
  scansCollection,
  sortsInMemory,
  summarizeExplain,
  type PlanSummary,
} from './plans';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { seedBlogs, seedUsers, userEmail, READER } = require('../../bench/lib/seed') as {
  seedUsers(db: unknown, passwordHash: string): Promise<mongoose.Types.ObjectId[]>;
  seedBlogs(db: unknown, userIds: mongoose.Types.ObjectId[], from: number, to: number): Promise<string[]>;
  userEmail(index: number): string;
  READER: number;
};

const PASSWORD = 'explain-password-1';
/** A tag and a word the seed gives many blogs (bench/lib/seed.js). */
const TAG = 'design';
const WORD = 'dolor';
/** Two days of the seed's publications (a blog a minute from 2025-01-01). */
const PUBLISHED_RANGE = { publishedAfter: '2025-01-01T06:00:00.000Z', publishedBefore: '2025-01-03T00:00:00.000Z' };
/** The spec's default order (no `sort`), then every key the API takes. */
export const SORTS = [undefined, ...BLOG_SORT_KEYS] as const;
/** The collections whose reads the report is about (sessions and users are read by _id). */
const COLLECTIONS = new Set(['blogs', 'likes']);

export interface ExplainOptions {
  uri: string;
  blogs: number;
  /** Send the requests and record the commands, but ask no plan (for a server without `explain`). */
  dryRun: boolean;
  sorts?: ReadonlyArray<(typeof SORTS)[number]>;
  log?: (line: string) => void;
}

export interface PlanRow {
  /** "find blogs", "aggregate blogs" (a count), "find likes" */
  command: string;
  /** The first request that sent this kind of command. */
  example: string;
  /** How many requests sent it. */
  requests: number;
  summary?: PlanSummary;
}

export interface ExplainResult {
  requests: number;
  rows: PlanRow[];
  serverVersion: string;
}

export class CannotExplainError extends Error {}

interface Viewer {
  name: 'anonymous' | 'reader' | 'admin';
  token?: string;
}

/** Every list request a viewer can make: route, filters and order, as query strings. */
function listRequests(viewer: Viewer, authorId: string, sorts: ExplainOptions['sorts'] = SORTS): string[] {
  const statuses = viewer.name === 'admin' ? [undefined, ...BLOG_STATUSES] : [undefined];
  const filterSets: Array<Record<string, string>> = [];
  for (const tag of [undefined, TAG])
    for (const author of [undefined, authorId])
      for (const q of [undefined, WORD])
        for (const range of [undefined, PUBLISHED_RANGE])
          filterSets.push({
            ...(tag && { tag }),
            ...(author && { author }),
            ...(q && { q }),
            ...range,
          });
  const requests: string[] = [];
  for (const filters of filterSets)
    for (const sort of sorts)
      for (const status of statuses) {
        const query = new URLSearchParams({
          limit: '20',
          ...filters,
          ...(sort && { sort }),
          ...(status && { status }),
        });
        requests.push(`/api/v1/blogs/?${query}`);
        // the author's own page: the path names the author (an `author` parameter too would be the same one)
        if (!filters.author) requests.push(`/api/v1/blogs/user/${authorId}?${query}`);
      }
  return requests;
}

/** The server's version; unless `dryRun`, only once it has shown it can explain (the stand-in cannot). */
async function serverVersionOf(uri: string, dbName: string, dryRun: boolean): Promise<string> {
  const client = await mongoose.mongo.MongoClient.connect(uri, { serverSelectionTimeoutMS: 5_000 });
  try {
    const db = client.db(dbName);
    const { version } = (await db.admin().command({ buildInfo: 1 })) as { version: string };
    if (!dryRun) {
      try {
        await db.command({ explain: { find: 'blogs', filter: {} }, verbosity: 'queryPlanner' });
      } catch (error) {
        // the stand-in makes the database it was asked about, explain or not
        await db.dropDatabase().catch(() => undefined);
        throw new CannotExplainError(
          `this server (version ${version}) cannot explain: ${(error as Error).message}. ` +
            'Run against MongoDB, or set EXPLAIN_DRY_RUN=1 to list the commands alone.',
        );
      }
    }
    return version;
  } finally {
    await client.close();
  }
}

export async function explainPlans(options: ExplainOptions): Promise<ExplainResult> {
  const log = options.log ?? (() => undefined);
  const dbName = `explain_${randomBytes(4).toString('hex')}`;
  const serverVersion = await serverVersionOf(options.uri, dbName, options.dryRun);
  // command events are read when the connection opens
  await connectDatabase({ uri: options.uri, dbName, monitorCommands: true });
  const { connection } = mongoose;
  const db = connection.db!;
  let uploadsDir: string | undefined;
  try {
    uploadsDir = mkdtempSync(path.join(tmpdir(), 'blog-explain-uploads-'));
    log(`seeding ${options.blogs} blogs into ${dbName} (MongoDB ${serverVersion})`);
    const userIds = await seedUsers(db, await bcrypt.hash(PASSWORD, 4));
    await seedBlogs(db, userIds, 0, options.blogs);

    // the tests' settings, with anonymous reads on (their lists are among those explained)
    const { config } = loadConfig(
      testEnvironment({ PUBLIC_READS: 'true', LOG_LEVEL: 'warn', UPLOADS_DIR: uploadsDir }) as Record<string, string>,
    );
    const app = createApp({ config, logger: createLogger({ level: 'warn', json: true }) });
    const signIn = async (index: number) => {
      const response = await request(app)
        .post('/api/v1/auth/login')
        .send({ email: userEmail(index), password: PASSWORD });
      if (response.status !== 200) throw new Error(`login of ${userEmail(index)}: ${response.status}`);
      return response.body.accessToken as string;
    };
    const viewers: Viewer[] = [
      { name: 'anonymous' },
      { name: 'reader', token: await signIn(READER) },
      { name: 'admin', token: await signIn(0) },
    ];

    let recording: CommandStartedEvent[] | undefined;
    connection.getClient().on('commandStarted', (event: CommandStartedEvent) => {
      const collection = event.command[event.commandName];
      if (recording && typeof collection === 'string' && COLLECTIONS.has(collection)) recording.push(event);
    });
    const byKey = new Map<string, PlanRow & { sent: Record<string, unknown> }>();
    let requests = 0;
    const read = async (viewer: Viewer, url: string) => {
      recording = [];
      const test = request(app).get(url);
      const response = await (viewer.token ? test.set('Authorization', `Bearer ${viewer.token}`) : test);
      const sent = recording;
      recording = undefined;
      if (response.status !== 200)
        throw new Error(`GET ${url} as ${viewer.name}: ${response.status} ${JSON.stringify(response.body)}`);
      requests += 1;
      for (const event of sent) {
        const key = planKeyOf(event.command);
        const row = byKey.get(key);
        if (row) row.requests += 1;
        else
          byKey.set(key, {
            command: `${event.commandName} ${event.command[event.commandName] as string}`,
            example: `${viewer.name}: GET ${url.replace(/cursor=[^&]+/, 'cursor=…')}`,
            requests: 1,
            sent: event.command,
          });
      }
      return response.body as { nextCursor?: string | null };
    };

    for (const viewer of viewers) {
      for (const url of listRequests(viewer, String(userIds[0]), options.sorts)) {
        const { nextCursor } = await read(viewer, url);
        if (nextCursor) await read(viewer, `${url}&cursor=${encodeURIComponent(nextCursor)}`);
      }
      log(`${viewer.name}: ${requests} requests so far, ${byKey.size} kinds of command`);
    }

    const rows: PlanRow[] = [];
    for (const { sent, ...row } of byKey.values()) {
      if (options.dryRun) rows.push(row);
      else {
        const explain = await db.command({ explain: explainable(sent), verbosity: 'executionStats' });
        rows.push({ ...row, summary: summarizeExplain(explain) });
      }
    }
    return { requests, rows, serverVersion };
  } finally {
    await db.dropDatabase().catch(() => undefined);
    await disconnectDatabase();
    if (uploadsDir) rmSync(uploadsDir, { recursive: true, force: true });
  }
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** The report: one row per kind of command, collection scans and in-memory sorts counted at the top. */
export function reportOf(result: ExplainResult): string {
  const explained = result.rows.filter((row) => row.summary);
  const scans = explained.filter((row) => scansCollection(row.summary!));
  const sorts = explained.filter((row) => sortsInMemory(row.summary!));
  const lines = [
    `# Query plans of the blog lists (MongoDB ${result.serverVersion})`,
    '',
    `${result.requests} requests sent ${result.rows.length} kinds of command on blogs and likes` +
      (explained.length > 0
        ? `: ${scans.length} scan the whole collection, ${sorts.length} sort in memory.`
        : ' (not explained: a dry run).'),
    '',
    '| Command | First sent by | Requests | Plan (root first, index) | Keys read | Docs read | Returned |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const row of result.rows) {
    const s = row.summary;
    lines.push(
      `| ${row.command} | ${cell(row.example)} | ${row.requests} | ${s ? cell(describePlan(s)) : '–'} | ` +
        `${s?.keysExamined ?? '–'} | ${s?.docsExamined ?? '–'} | ${s?.returned ?? '–'} |`,
    );
  }
  if (explained.length > 0) lines.push('', ...byPlan(explained));
  return `${lines.join('\n')}\n`;
}

/** The same rows grouped by plan: what docs/performance.md quotes. */
function byPlan(rows: PlanRow[]): string[] {
  interface Group {
    command: string;
    plan: string;
    kinds: number;
    requests: number;
    keys: number;
    docs: number;
    example: string;
  }
  const groups = new Map<string, Group>();
  for (const row of rows) {
    const plan = describePlan(row.summary!);
    const key = `${row.command} ${plan}`;
    const group = groups.get(key) ?? {
      command: row.command,
      plan,
      kinds: 0,
      requests: 0,
      keys: 0,
      docs: 0,
      example: row.example,
    };
    group.kinds += 1;
    group.requests += row.requests;
    group.keys = Math.max(group.keys, row.summary!.keysExamined);
    group.docs = Math.max(group.docs, row.summary!.docsExamined);
    groups.set(key, group);
  }
  return [
    '## By plan',
    '',
    '| Command | Plan (root first, index) | Kinds | Requests | Most keys read | Most docs read | For example |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...[...groups.values()]
      .sort((a, b) => b.requests - a.requests)
      .map(
        (group) =>
          `| ${group.command} | ${cell(group.plan)} | ${group.kinds} | ${group.requests} | ${group.keys} | ` +
          `${group.docs} | ${cell(group.example)} |`,
      ),
  ];
}

async function main() {
  const uri = process.env.MONGODB_URI;
  if (!uri) {
    process.stderr.write('MONGODB_URI is not set: name a MongoDB server (the run uses a database of its own)\n');
    return 2;
  }
  const result = await explainPlans({
    uri,
    blogs: Number(process.env.EXPLAIN_BLOGS ?? 2000),
    dryRun: process.env.EXPLAIN_DRY_RUN === '1',
    log: (line) => process.stderr.write(`${line}\n`),
  });
  const report = reportOf(result);
  const directory = path.join('artifacts', 'explain-plans');
  mkdirSync(directory, { recursive: true });
  writeFileSync(path.join(directory, 'plans.md'), report);
  process.stdout.write(report);
  return result.rows.some((row) => row.summary && scansCollection(row.summary)) ? 1 : 0;
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(2);
    },
  );
}
