/**
 * The fault suite: the real API process (src/server.ts through tsx) on a real database (the offline
 * stand-in mongo-java-server, file-backed), with its dependencies broken on purpose:
 *
 *   cut-under-load     the database link reset for a while under steady load (tools/faults/tcp-proxy.js);
 *                      within a minute of its return the API alone has set every counter right
 *   silent-partition   no byte through, nothing reset, under load: every request answered within 5 s
 *   repeated-cuts      FAULTS_CUTS (default 10) cuts in a row: the API must never stay wedged
 *   sigkill-mid-write  the API killed with SIGKILL under writes, restarted, then `reconcile`
 *   storage            Cloudinary hanging, trickling, succeeding late; a full local disk
 *   sigterm-burst      SIGTERM amid a burst of requests: none reset, /readyz 503 seen first
 *   scheduled-publishing  FAULTS_SCHEDULED_POSTS (default 1,000) posts due in the same seconds, two
 *                      instances, one SIGKILLed once publishing began: every post live within 30 s of
 *                      its time, published at its scheduled time, its blog.published webhook received once
 *   webhook-recovery   a webhook receiver that hangs, then answers 500, then recovers while the API
 *                      is SIGKILLed and restarted: every event arrives, signed, once, in order per post
 *   soak               FAULTS_SOAK_SECONDS (default 120) of steady load: no 5xx, the heap kept after
 *                      collections stops growing, RSS stays under a ceiling
 *
 *   bash tools/faults/run.sh [scenario ...]      (CI: .ci/run, `check faults`)
 *
 * After every scenario with writes: every acknowledged write is in the database, and once the
 * reconciliation has run, every blog's counters equal its records. Output: one line per scenario and a
 * closing summary line; each API process's log goes to artifacts/faults/.
 */
import { execFile, spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import mongoose from 'mongoose';
import sharp from 'sharp';
import { standInLauncherArguments, stopChild } from '../../src/dev/local-database';
import { startFakeCloudinary } from '../../tests/helpers/fake-cloudinary';
import { makeImage } from '../../tests/helpers/images';
import { parseExposition, valueOf } from '../../tests/helpers/metrics';
import { startServerProcess, type ServerProcess } from '../../tests/helpers/server-process';
import { buildEntryPoints } from '../../tests/helpers/test-build';
import { startTcpProxy, type TcpProxy } from './tcp-proxy';

const ROOT = path.resolve(__dirname, '..', '..');
const ARTIFACTS = path.join(ROOT, 'artifacts', 'faults');
const SOAK_SECONDS = Number(process.env.FAULTS_SOAK_SECONDS ?? 120);
const CUTS = Number(process.env.FAULTS_CUTS ?? 10);
/** How soon after the database returns the API must serve a 2xx again (generous: the machine is shared). */
const RECOVERY_BOUND_MS = Number(process.env.FAULTS_RECOVERY_BOUND_MS ?? 20_000);
/** The longest an answer may take while the database is cut (server selection 2.5 s, socket deadline 3 s, plus a busy machine). */
const OUTAGE_ANSWER_BOUND_MS = Number(process.env.FAULTS_OUTAGE_ANSWER_BOUND_MS ?? 9_000);
/** The silent partition's length, and the longest any request may take during it (production deadlines). */
const PARTITION_MS = 25_000;
const PARTITION_ANSWER_BOUND_MS = 5_000;
/** How soon after the database returns the API's own counter repair must have set every counter right. */
const COUNTERS_HEALED_BOUND_MS = 60_000;
/** Posts scheduled for the same seconds, and how late the last of them may go live. */
const SCHEDULED_POSTS = Number(process.env.FAULTS_SCHEDULED_POSTS ?? 1_000);
const SCHEDULE_LATENESS_BOUND_MS = 30_000;
/** Posts whose five events each the webhook-recovery scenario follows, and how long after recovery they may take. */
const WEBHOOK_POSTS = 4;
const WEBHOOK_RECOVERY_BOUND_MS = 150_000;
const ADMIN_EMAIL = 'faults-admin@example.com';
const started = Date.now();

const log = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

// ---------------------------------------------------------------- the database (file-backed stand-in)

interface Database {
  port: number;
  uri: string;
  stop(): Promise<void>;
}

async function startDatabase(file: string): Promise<Database> {
  const child = spawn('java', [...standInLauncherArguments(), '0', file], { stdio: ['pipe', 'pipe', 'ignore'] });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the database stand-in did not start within 120 s')), 120_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = /listening on [^:]+:(\d+)/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once('exit', (code) => reject(new Error(`the database stand-in exited with ${code}`)));
  });
  return {
    port,
    uri: `mongodb://127.0.0.1:${port}/faults`,
    stop: () => stopChild(child),
  };
}

// ---------------------------------------------------------------- the API

const secrets = {
  JWT_ACCESS_SECRET: 'f'.repeat(40),
  JWT_REFRESH_SECRET: 'e'.repeat(40),
};
let apiCount = 0;
const apis: Array<{ name: string; server: ServerProcess }> = [];

const uploadsDir = mkdtempSync(path.join(tmpdir(), 'faults-uploads-'));

/** `productionDeadlines`: the driver's deadlines left at their defaults rather than shortened. */
async function startApi(
  name: string,
  env: Record<string, string>,
  { productionDeadlines = false } = {},
): Promise<ServerProcess> {
  apiCount += 1;
  const server = await startServerProcess({
    UPLOADS_DIR: uploadsDir,
    ...secrets,
    ADMIN_EMAILS: ADMIN_EMAIL,
    RATE_LIMIT_MAX: '10000000',
    DB_WATCHDOG_UNREACHABLE_MS: '5000',
    RECONCILE_INTERVAL_MS: '0',
    ...env,
    // the driver's deadlines, shorter than production's so that a cut answers within the bounds checked
    MONGODB_URI: productionDeadlines ? env.MONGODB_URI : `${env.MONGODB_URI}?socketTimeoutMS=3000&timeoutMS=5000`,
  });
  apis.push({ name: `${apiCount}-${name}`, server });
  return server;
}

function saveApiLogs(): void {
  mkdirSync(ARTIFACTS, { recursive: true });
  for (const { name, server } of apis)
    writeFileSync(path.join(ARTIFACTS, `api-${name}.log`), `${server.output.join('\n')}\n`);
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
  ms: number;
  /** Set when no HTTP answer came: the connection was reset or refused, or the client gave up. */
  failure?: string;
}

async function call(
  base: string,
  method: string,
  url: string,
  options: { token?: string; json?: unknown; form?: FormData; timeoutMs?: number } = {},
): Promise<Answer> {
  const start = Date.now();
  try {
    const response = await fetch(`${base}${url}`, {
      method,
      headers: {
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...(options.json !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: options.form ?? (options.json !== undefined ? JSON.stringify(options.json) : undefined),
      signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
    });
    const text = await response.text();
    let body: Record<string, unknown> = {};
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      body = { text };
    }
    return { status: response.status, body, ms: Date.now() - start };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return {
      status: 0,
      body: {},
      ms: Date.now() - start,
      failure: cause ?? (error instanceof Error ? error.name : String(error)),
    };
  }
}

/** Polls until `probe` holds; answers how long it took, or undefined past `limitMs`. */
async function within(limitMs: number, probe: () => Promise<boolean>, everyMs = 250): Promise<number | undefined> {
  const start = Date.now();
  while (Date.now() - start < limitMs) {
    if (await probe().catch(() => false)) return Date.now() - start;
    await sleep(everyMs);
  }
  return undefined;
}

// ---------------------------------------------------------------- the data and the load

interface World {
  base: string;
  admin: string;
  users: Array<{ id: string; token: string }>;
  blogs: Array<{ id: string; slug: string }>;
  /** Comments answered 201: each must be in the database. */
  comments: Set<string>;
  /** users answered 201 on register: each must be in the database. */
  registered: Set<string>;
  /** Like state of (user, blog) as the last conclusive answer left it; absent when unknown. */
  likes: Map<string, boolean>;
}

async function register(base: string, email: string): Promise<{ id: string; token: string }> {
  const role = email === ADMIN_EMAIL ? { role: 'admin' } : {};
  const answer = await call(base, 'POST', '/api/v1/auth/register', {
    json: { email, password: 'password123', ...role },
  });
  if (answer.status === 201) {
    return { id: String((answer.body.user as { _id: string })._id), token: String(answer.body.accessToken) };
  }
  check(answer.status === 400, `register ${email}: ${answer.status} ${JSON.stringify(answer.body)}`);
  const login = await call(base, 'POST', '/api/v1/auth/login', { json: { email, password: 'password123' } });
  check(login.status === 200, `login ${email}: ${login.status}`);
  return { id: String((login.body.user as { _id: string })._id), token: String(login.body.accessToken) };
}

async function banner(): Promise<Blob> {
  return new Blob([new Uint8Array(await makeImage('png', 96, 64))], { type: 'image/png' });
}

async function createWorld(base: string, blogCount = 3, userCount = 6): Promise<World> {
  const admin = await register(base, ADMIN_EMAIL);
  const users = [];
  for (let i = 0; i < userCount; i++) users.push(await register(base, `faults-user-${i}@example.com`));
  const blogs = [];
  for (let i = 0; i < blogCount; i++) {
    const form = new FormData();
    form.set('title', `Fault blog ${Date.now()} ${i}`);
    form.set('content', '<p>Under fire</p>');
    form.set('status', 'published');
    form.set('banner_image', await banner(), 'banner.png');
    const answer = await call(base, 'POST', '/api/v1/blogs/', { token: admin.token, form });
    check(answer.status === 201, `create blog: ${answer.status} ${JSON.stringify(answer.body)}`);
    const blog = answer.body.blog as { _id: string; slug: string };
    blogs.push({ id: blog._id, slug: blog.slug });
  }
  return { base, admin: admin.token, users, blogs, comments: new Set(), registered: new Set(), likes: new Map() };
}

interface LoadReport {
  answers: Array<Answer & { op: string; at: number }>;
}

const pick = <T>(items: T[]) => items[Math.floor(Math.random() * items.length)];

/** `workers` loops of mixed reads and writes until `stop()` is called; records every answer. */
function startLoad(world: World, workers: number, pauseMs = 20): { stop(): Promise<LoadReport> } {
  let running = true;
  const answers: LoadReport['answers'] = [];
  let registrations = 0;
  const loops = Array.from({ length: workers }, async (_, worker) => {
    while (running) {
      const user = pick(world.users);
      const blog = pick(world.blogs);
      const roll = Math.random();
      let op: string;
      let answer: Answer;
      if (roll < 0.3) {
        const key = `${user.id}:${blog.id}`;
        const liked = world.likes.get(key);
        op = liked ? 'unlike' : 'like';
        answer = await call(world.base, liked ? 'DELETE' : 'POST', `/api/v1/likes/blog/${blog.id}`, {
          token: user.token,
        });
        if (answer.status >= 200 && answer.status < 300) world.likes.set(key, !liked);
        else if (answer.status === 400)
          world.likes.set(key, !liked); // already (un)liked: it is in the other state
        else world.likes.delete(key); // no conclusive answer: the write may or may not have happened
      } else if (roll < 0.55) {
        op = 'comment';
        answer = await call(world.base, 'POST', `/api/v1/comments/blog/${blog.id}`, {
          token: user.token,
          json: { content: `load ${worker}` },
        });
        if (answer.status === 201) world.comments.add(String((answer.body.comment as { _id: string })._id));
      } else if (roll < 0.6) {
        op = 'register';
        const email = `load-${process.pid}-${worker}-${registrations++}-${Date.now()}@example.com`;
        answer = await call(world.base, 'POST', '/api/v1/auth/register', { json: { email, password: 'password123' } });
        if (answer.status === 201) world.registered.add(email);
      } else if (roll < 0.8) {
        op = 'list';
        answer = await call(world.base, 'GET', '/api/v1/blogs?limit=5', { token: user.token });
      } else {
        op = 'read';
        answer = await call(world.base, 'GET', `/api/v1/blogs/${blog.slug}`, { token: user.token });
      }
      answers.push({ ...answer, op, at: Date.now() });
      await sleep(pauseMs);
    }
  });
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
      return { answers };
    },
  };
}

/** Direct to the database (not through the proxy): every acknowledged write is there. */
async function verifyWrites(databaseUri: string, world: World): Promise<string> {
  const connection = await mongoose.createConnection(databaseUri, { serverSelectionTimeoutMS: 10_000 }).asPromise();
  try {
    const db = connection.db!;
    const commentIds = [...world.comments].map((id) => new mongoose.Types.ObjectId(id));
    const foundComments = await db.collection('comments').countDocuments({ _id: { $in: commentIds } });
    check(
      foundComments === commentIds.length,
      `${commentIds.length - foundComments} of ${commentIds.length} acknowledged comments are missing`,
    );
    const emails = [...world.registered];
    const foundUsers = await db.collection('users').countDocuments({ email: { $in: emails } });
    check(
      foundUsers === emails.length,
      `${emails.length - foundUsers} of ${emails.length} acknowledged registrations are missing`,
    );
    let likesChecked = 0;
    for (const [key, liked] of world.likes) {
      const [user, blog] = key.split(':').map((id) => new mongoose.Types.ObjectId(id));
      const present = (await db.collection('likes').countDocuments({ user, blog })) > 0;
      check(
        present === liked,
        `like of user ${user} on blog ${blog}: acknowledged ${liked ? 'liked' : 'unliked'}, database says ${present}`,
      );
      likesChecked += 1;
    }
    return `${commentIds.length} comments, ${emails.length} registrations, ${likesChecked} like states present`;
  } finally {
    await connection.close();
  }
}

const run = promisify(execFile);

/** `npm run reconcile`'s program (through tsx: no build), then every blog's counters equal its records. */
async function reconcileAndCheckCounters(databaseUri: string): Promise<string> {
  const { stdout } = await run(process.execPath, ['--require', 'tsx/cjs', path.join('src', 'reconcile.ts')], {
    cwd: ROOT,
    timeout: 120_000,
    env: {
      PATH: process.env.PATH ?? '',
      DOTENV_CONFIG_PATH: '/dev/null',
      DOTENV_CONFIG_QUIET: 'true',
      MONGODB_URI: databaseUri,
      LOG_LEVEL: 'warn',
      ...secrets,
    },
  });
  const reportLine = stdout.split('\n').find((line) => line.startsWith('{"blogsChecked"'));
  check(reportLine, `reconcile printed no report: ${stdout.slice(-500)}`);
  const report = JSON.parse(reportLine) as { countersFixed: unknown[] };
  const { blogs, off } = await countersOff(databaseUri);
  check(off.length === 0, `after reconciliation: ${off.join('; ')}`);
  return `reconcile fixed ${report.countersFixed.length} counters; ${blogs} blogs' counters equal their records`;
}

/** Every counter that differs from its records, read straight from the database. */
async function countersOff(databaseUri: string): Promise<{ blogs: number; off: string[] }> {
  const connection = await mongoose.createConnection(databaseUri, { serverSelectionTimeoutMS: 10_000 }).asPromise();
  try {
    const db = connection.db!;
    const blogs = await db.collection('blogs').find({}).project({ likesCount: 1, commentsCount: 1 }).toArray();
    const off: string[] = [];
    for (const blog of blogs) {
      const [likes, comments] = await Promise.all([
        db.collection('likes').countDocuments({ blog: blog._id }),
        db.collection('comments').countDocuments({ blog: blog._id }),
      ]);
      if (blog.likesCount !== likes) off.push(`blog ${blog._id}: likesCount ${blog.likesCount} but ${likes} likes`);
      if (blog.commentsCount !== comments)
        off.push(`blog ${blog._id}: commentsCount ${blog.commentsCount} but ${comments} comments`);
    }
    return { blogs: blogs.length, off };
  } finally {
    await connection.close();
  }
}

/**
 * Counters repaired by the API itself (its counter repair, no reconcile, no restart) within a minute of
 * the database's return at `back`: how long after the return they were all right, and the repairs logged.
 */
async function countersHealedByTheApi(databaseUri: string, api: ServerProcess, back: number): Promise<string> {
  let last: string[] = [];
  const healedAt = await within(
    Math.max(0, back + COUNTERS_HEALED_BOUND_MS - Date.now()),
    async () => {
      last = (await countersOff(databaseUri)).off;
      return last.length === 0;
    },
    1_000,
  );
  check(
    healedAt !== undefined,
    `counters still off ${seconds(COUNTERS_HEALED_BOUND_MS)} after the database returned: ${last.join('; ')}`,
  );
  const repairs = api.output.filter((line) => /counter repair: blog/.test(line)).length;
  check(repairs > 0, 'the cut left no counter for the API to repair');
  return `counters equal their records ${seconds(Date.now() - back)} after the return (${repairs} fixed by the API's counter repair)`;
}

function summarize(answers: LoadReport['answers']): string {
  const byStatus = new Map<string, number>();
  for (const answer of answers) {
    const key = answer.failure ? `reset(${answer.failure})` : String(answer.status);
    byStatus.set(key, (byStatus.get(key) ?? 0) + 1);
  }
  return [...byStatus]
    .sort()
    .map(([status, count]) => `${status}×${count}`)
    .join(' ');
}

// ---------------------------------------------------------------- scenarios

interface Context {
  database: Database;
  proxy: TcpProxy;
  /** MONGODB_URI through the proxy. */
  proxiedUri: string;
}

async function cutUnderLoad({ database, proxy, proxiedUri }: Context): Promise<string> {
  const api = await startApi('cut-under-load', { MONGODB_URI: proxiedUri });
  const world = await createWorld(api.baseUrl);
  const load = startLoad(world, 4);
  await sleep(3_000);
  // the cut begins as a like is stored, before the API learns it: its counter is not raised, a drift
  // for the API to repair by itself
  proxy.cutOn(['insert', 'likes']);
  if ((await within(3_000, async () => proxy.mode === 'cut', 10)) === undefined) proxy.setMode('cut');
  const cutAt = Date.now();
  await sleep(2_000);
  const readiness = await call(api.baseUrl, 'GET', '/readyz');
  const liveness = await call(api.baseUrl, 'GET', '/healthz');
  await sleep(6_000);
  proxy.setMode('pass');
  const back = Date.now();
  const recoveredIn = await within(
    RECOVERY_BOUND_MS,
    async () => (await call(api.baseUrl, 'GET', '/api/v1/blogs?limit=1', { token: world.admin })).status === 200,
  );
  const readyIn = await within(
    RECOVERY_BOUND_MS,
    async () => (await call(api.baseUrl, 'GET', '/readyz')).status === 200,
  );
  await sleep(2_000);
  const { answers } = await load.stop();

  const during = answers.filter((answer) => answer.at - answer.ms >= cutAt + 500 && answer.at <= back);
  const outageAnswers = during.filter((answer) => answer.status === 503);
  const slowest = Math.max(0, ...during.map((answer) => answer.ms));
  check(readiness.status === 503, `/readyz answered ${readiness.status} during the cut`);
  check(liveness.status === 200, `/healthz answered ${liveness.status} during the cut`);
  check(outageAnswers.length > 0, `no 503 during the cut (${summarize(during)})`);
  check(
    outageAnswers.every((answer) => answer.body.code === 'ServiceUnavailable'),
    'a 503 without code ServiceUnavailable',
  );
  check(
    !answers.some((answer) => answer.status >= 500 && answer.status !== 503),
    `5xx other than 503: ${summarize(answers)}`,
  );
  const unanswered = answers.filter((answer) => answer.failure);
  check(
    unanswered.length === 0,
    `requests without an answer: ${unanswered.map((answer) => `${answer.op} after ${answer.ms} ms (${answer.failure})`).join(', ')}`,
  );
  check(slowest <= OUTAGE_ANSWER_BOUND_MS, `an answer during the cut took ${slowest} ms`);
  check(recoveredIn !== undefined, `no 2xx within ${RECOVERY_BOUND_MS} ms of the database returning: wedged`);
  check(readyIn !== undefined, `/readyz not 200 within ${RECOVERY_BOUND_MS} ms of the database returning`);
  check(api.child.exitCode === null, 'the API exited');
  const writes = await verifyWrites(database.uri, world);
  const healed = await countersHealedByTheApi(database.uri, api, back);
  const counters = await reconcileAndCheckCounters(database.uri);
  return (
    `${answers.length} requests (${summarize(answers)}); during the 8 s cut ${outageAnswers.length} 503s, slowest answer ${seconds(slowest)}; ` +
    `2xx again ${seconds(recoveredIn)} and /readyz 200 ${seconds(readyIn)} after the database returned; ${writes}; ${healed}; ${counters}`
  );
}

/** The `fraction` quantile of `values` (nearest rank). */
function quantile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))] ?? 0;
}

/**
 * Production deadlines (10 s per operation), a 25 s blackhole under load: every request that was in flight
 * during it, the first ones too, sent on pooled connections already dead, is answered within 5 s.
 */
async function silentPartition({ database, proxy, proxiedUri }: Context): Promise<string> {
  const api = await startApi('silent-partition', { MONGODB_URI: proxiedUri }, { productionDeadlines: true });
  const world = await createWorld(api.baseUrl, 2, 4);
  const load = startLoad(world, 4, 50);
  await sleep(2_000);
  proxy.setMode('blackhole');
  const partitionAt = Date.now();
  await sleep(8_000);
  const readiness = await call(api.baseUrl, 'GET', '/readyz', { timeoutMs: 60_000 });
  await sleep(Math.max(0, partitionAt + PARTITION_MS - Date.now()));
  proxy.setMode('pass');
  const healedAt = Date.now();
  const recoveredIn = await within(
    RECOVERY_BOUND_MS,
    async () => (await call(api.baseUrl, 'GET', '/api/v1/blogs?limit=1', { token: world.admin })).status === 200,
  );
  const { answers } = await load.stop();
  // every request in flight at some moment of the partition, those sent just before it too
  const during = answers.filter((answer) => answer.at > partitionAt && answer.at - answer.ms < healedAt);
  const latencies = during.map((answer) => answer.ms);
  const slowest = Math.max(0, ...latencies);
  const figures =
    `${during.length} requests in flight during the ${seconds(PARTITION_MS)} partition (${summarize(during)}): ` +
    `p50 ${seconds(quantile(latencies, 0.5))}, p99 ${seconds(quantile(latencies, 0.99))}, max ${seconds(slowest)}`;
  check(
    during.some((answer) => answer.status === 503),
    `no 503 during the partition: ${figures}`,
  );
  check(
    !during.some((answer) => answer.failure || (answer.status >= 500 && answer.status !== 503)),
    `a reset or a 5xx other than 503: ${figures}`,
  );
  check(slowest <= PARTITION_ANSWER_BOUND_MS, `an answer during the partition took ${slowest} ms: ${figures}`);
  check(
    readiness.status === 503 && readiness.ms <= 5_000,
    `/readyz during the partition: ${readiness.status} in ${readiness.ms} ms`,
  );
  check(recoveredIn !== undefined, `no 2xx within ${RECOVERY_BOUND_MS} ms after the partition healed: wedged`);
  const writes = await verifyWrites(database.uri, world);
  return `${figures}; /readyz 503 in ${seconds(readiness.ms)}; 2xx again ${seconds(recoveredIn)} after it healed; ${writes}`;
}

async function repeatedCuts({ database, proxy, proxiedUri }: Context): Promise<string> {
  const api = await startApi('repeated-cuts', { MONGODB_URI: proxiedUri });
  const world = await createWorld(api.baseUrl, 2, 4);
  const load = startLoad(world, 2, 50);
  const recoveries: number[] = [];
  try {
    for (let cut = 1; cut <= CUTS; cut++) {
      await sleep(1_500);
      proxy.setMode('cut');
      await sleep(3_000 + (cut % 3) * 1_000);
      proxy.setMode('pass');
      const recoveredIn = await within(
        RECOVERY_BOUND_MS,
        async () => (await call(api.baseUrl, 'GET', '/api/v1/blogs?limit=1', { token: world.admin })).status === 200,
      );
      check(
        recoveredIn !== undefined,
        `cut ${cut} of ${CUTS}: no 2xx within ${RECOVERY_BOUND_MS} ms of the database returning (wedged)`,
      );
      recoveries.push(recoveredIn);
    }
  } finally {
    await load.stop();
  }
  const reopened = api.output.filter((line) => /reopening it/.test(line)).length;
  const writes = await verifyWrites(database.uri, world);
  const counters = await reconcileAndCheckCounters(database.uri);
  return (
    `${CUTS} cuts, recovered after each in ${recoveries.map((ms) => seconds(ms)).join(', ')} (worst ${seconds(Math.max(...recoveries))}); ` +
    `watchdog reopened the connection ${reopened} times; ${writes}; ${counters}`
  );
}

async function sigkillMidWrite({ database }: Context): Promise<string> {
  const rounds = 3;
  let world: World | undefined;
  let answered = 0;
  for (let round = 1; round <= rounds; round++) {
    const api = await startApi(`sigkill-${round}`, { MONGODB_URI: database.uri });
    if (!world) world = await createWorld(api.baseUrl, 2, 4);
    else world.base = api.baseUrl;
    const load = startLoad(world, 4, 0);
    await sleep(1_500 + round * 300);
    api.child.kill('SIGKILL');
    await api.exited;
    answered += (await load.stop()).answers.filter((answer) => answer.status > 0).length;
  }
  const api = await startApi('sigkill-after', { MONGODB_URI: database.uri });
  check((await call(api.baseUrl, 'GET', '/readyz')).status === 200, 'not ready after the restart');
  const writes = await verifyWrites(database.uri, world!);
  const counters = await reconcileAndCheckCounters(database.uri);
  await api.stop();
  return `${rounds} SIGKILLs under writes (${answered} answers before them), restarted; ${writes}; ${counters}`;
}

async function storage({ database }: Context): Promise<string> {
  const results: string[] = [];
  const cloud = await startFakeCloudinary();
  try {
    const api = await startApi('storage-cloudinary', {
      MONGODB_URI: database.uri,
      CLOUDINARY_URL: `cloudinary://${cloud.apiKey}:${cloud.apiSecret}@${cloud.cloudName}?upload_prefix=${cloud.url}`,
      STORAGE_SAVE_TIMEOUT_MS: '3000',
    });
    const world = await createWorld(api.baseUrl, 0, 0);
    for (const [mode, delay] of [
      ['hang', 0],
      ['trickle', 1_000],
      ['late', 4_500],
    ] as const) {
      cloud.uploadMode(mode, delay);
      const before = cloud.uploads.length;
      const form = new FormData();
      form.set('title', `Storage ${mode} ${Date.now()}`);
      form.set('content', '<p>x</p>');
      form.set('banner_image', await banner(), 'banner.png');
      const answer = await call(api.baseUrl, 'POST', '/api/v1/blogs/', { token: world.admin, form, timeoutMs: 60_000 });
      check(answer.status === 502, `Cloudinary ${mode}: answered ${answer.status}`);
      check(answer.ms <= 3_000 + 4_000, `Cloudinary ${mode}: the answer took ${answer.ms} ms (deadline 3 s)`);
      if (mode === 'late') {
        const landed = await within(15_000, async () => cloud.uploads.length > before);
        check(landed !== undefined, 'the late upload never landed');
        const id = cloud.uploads.at(-1)!.publicId;
        const removed = await within(15_000, async () => !cloud.stored.has(id));
        check(removed !== undefined, `the late upload ${id} was left on Cloudinary`);
      }
      results.push(`${mode} 502 in ${seconds(answer.ms)}`);
    }
    cloud.uploadMode('normal');
    check(cloud.stored.size === 0, `${cloud.stored.size} files left on Cloudinary`);
  } finally {
    await cloud.close();
  }
  results.push(await diskFull(database));
  return `Cloudinary: ${results.join(', ')}; nothing left behind`;
}

/** A full disk: a tmpfs smaller than the banner when this runs as root, else a file-size limit on the process. */
async function diskFull(database: Database): Promise<string> {
  const folder = mkdtempSync(path.join(tmpdir(), 'faults-disk-'));
  let mounted = false;
  try {
    try {
      await run('mount', ['-t', 'tmpfs', '-o', 'size=48k', 'tmpfs', folder], { timeout: 10_000 });
      mounted = true;
    } catch {
      mounted = false;
    }
    if (!mounted) return 'disk full: skipped (mounting a small tmpfs needs root)';
    const api = await startApi('storage-disk-full', { MONGODB_URI: database.uri, UPLOADS_DIR: folder });
    const world = await createWorld(api.baseUrl, 0, 0);
    const form = new FormData();
    form.set('title', `Disk full ${Date.now()}`);
    form.set('content', '<p>x</p>');
    // random pixels do not compress: about 120 kB of PNG, more than the 48 kB disk
    const big = await sharp(randomBytes(200 * 200 * 3), { raw: { width: 200, height: 200, channels: 3 } })
      .png()
      .toBuffer();
    form.set('banner_image', new Blob([new Uint8Array(big)], { type: 'image/png' }), 'banner.png');
    const answer = await call(api.baseUrl, 'POST', '/api/v1/blogs/', { token: world.admin, form });
    const left = readdirSync(path.join(folder, 'banners'));
    check(answer.status === 502, `disk full: answered ${answer.status}`);
    check(left.length === 0, `disk full: left ${left.join(', ')} behind`);
    await api.stop();
    return `disk full 502 with no partial file (banner ${Math.round(big.length / 1024)} kB, disk 48 kB)`;
  } finally {
    if (mounted) await run('umount', [folder]).catch(() => undefined);
    rmSync(folder, { recursive: true, force: true });
  }
}

async function sigtermBurst({ database }: Context): Promise<string> {
  const api = await startApi('sigterm-burst', {
    MONGODB_URI: database.uri,
    SHUTDOWN_TIMEOUTS: 'readiness=3s,grace=10s',
  });
  const world = await createWorld(api.baseUrl, 1, 1);
  const token = world.users[0].token;
  let sawNotReady = false;
  const prober = (async () => {
    for (let i = 0; i < 40 && !sawNotReady; i++) {
      const answer = await call(api.baseUrl, 'GET', '/readyz', { timeoutMs: 2_000 });
      if (answer.status === 503) sawNotReady = true;
      await sleep(100);
    }
  })();
  // 50 requests on fresh connections, spread over the signal: before, at and during the readiness delay
  const burst = Array.from({ length: 50 }, async (_, i) => {
    await sleep(i * 30);
    return call(api.baseUrl, 'GET', '/api/v1/blogs?limit=2', { token });
  });
  await sleep(600);
  api.child.kill('SIGTERM');
  const answers = await Promise.all(burst);
  await prober;
  const exitCode = await api.exited;
  const reset = answers.filter((answer) => answer.failure);
  check(
    reset.length === 0,
    `${reset.length} of 50 requests got no answer (${[...new Set(reset.map((answer) => answer.failure))].join(', ')})`,
  );
  check(
    answers.every((answer) => answer.status === 200),
    `answers: ${summarize(answers.map((answer) => ({ ...answer, op: '', at: 0 })))}`,
  );
  check(sawNotReady, 'no prober saw /readyz 503 before the listener closed');
  check(exitCode === 0, `exit code ${exitCode}`);
  return '50 requests around SIGTERM all answered 200, none reset; /readyz 503 seen during the delay; exit 0';
}

function rssKb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
}

/** The V8 heap in use, in kB, as the API's own GET /metrics tells it; undefined if it did not answer. */
async function heapUsedKb(base: string): Promise<number | undefined> {
  const response = await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(2_000) }).catch(() => undefined);
  if (!response?.ok) return undefined;
  const bytes = valueOf(parseExposition(await response.text()), 'nodejs_heap_size_used_bytes');
  return bytes === undefined ? undefined : bytes / 1024;
}

/** Far above what the API needs (about 200 MB under the soak's load): a leak outside the heap shows here. */
const SOAK_RSS_CEILING_MB = 512;
/**
 * Above the sampling's noise (a second of allocation after a collection; up to 6 MB seen while the tests
 * ran beside it); a leak of 8 kB a request grows the heap kept by about 30 MB a third (80 then 110 MB).
 */
const SOAK_HEAP_GROWTH_MB = 15;

async function soak({ database, proxiedUri }: Context): Promise<string> {
  const api = await startApi('soak', { MONGODB_URI: proxiedUri });
  const world = await createWorld(api.baseUrl, 3, 6);
  const load = startLoad(world, 3, 30);
  const rss: number[] = [];
  const heap: number[] = [];
  const end = Date.now() + SOAK_SECONDS * 1000;
  while (Date.now() < end) {
    await sleep(Math.min(1_000, Math.max(0, end - Date.now())));
    rss.push(rssKb(api.child.pid!));
    const used = await heapUsedKb(api.baseUrl);
    if (used !== undefined) heap.push(used);
  }
  const { answers } = await load.stop();
  const errors = answers.filter((answer) => answer.status >= 500 || answer.failure);
  check(answers.length > 0, 'no requests were made');
  check(errors.length === 0, `${errors.length} 5xx or unanswered during the soak: ${summarize(errors)}`);
  check(
    heap.length >= 30,
    `${heap.length} heap figures from GET /metrics in ${rss.length} s; the soak needs 30 (FAULTS_SOAK_SECONDS of 30 or more)`,
  );
  // Memory settles: what survives garbage collection (the lowest heap in use seen in a stretch, sampled
  // every second, between collections) grows by at most SOAK_HEAP_GROWTH_MB from the middle third to the
  // last. RSS is no measure of that: V8 may take a larger heap at any moment when the machine is busy,
  // and keep it.
  const third = Math.floor(heap.length / 3);
  const middle = Math.min(...heap.slice(third, 2 * third));
  const last = Math.min(...heap.slice(-third));
  const mb = (kb: number) => Math.round(kb / 1024);
  check(
    last <= middle + SOAK_HEAP_GROWTH_MB * 1024,
    `the heap kept after collections still growing: ${mb(middle)} MB then ${mb(last)} MB`,
  );
  const peak = Math.max(...rss);
  check(peak <= SOAK_RSS_CEILING_MB * 1024, `RSS reached ${mb(peak)} MB (ceiling ${SOAK_RSS_CEILING_MB} MB)`);
  const writes = await verifyWrites(database.uri, world);
  const counters = await reconcileAndCheckCounters(database.uri);
  return (
    `${SOAK_SECONDS} s, ${answers.length} requests (${summarize(answers)}), no 5xx; heap kept ${mb(Math.min(...heap.slice(0, third)))} → ` +
    `${mb(middle)} → ${mb(last)} MB; RSS ${mb(rss[0])} MB, at most ${mb(peak)} MB; ${writes}; ${counters}`
  );
}

/**
 * One draft written through the API, copied straight into the database as SCHEDULED_POSTS drafts due
 * within the same second, 20 s ahead; two instances' schedulers race for them, and the first instance is
 * SIGKILLed as soon as the first post is live. The survivor must publish the rest within the bound. Each
 * post goes live by one conditional update (tests/scheduled-publishing.test.ts races two instances
 * for exactly-once); here the proof is that none is lost to the kill, none is late, and each carries its
 * own scheduled time.
 */
async function scheduledPublishing({ database }: Context): Promise<string> {
  const receiver = await startWebhookReceiver();
  const env = { MONGODB_URI: database.uri, WEBHOOKS_ALLOW_PRIVATE: 'true' };
  const first = await startApi('schedule-a', env);
  const second = await startApi('schedule-b', env);
  const admin = await register(first.baseUrl, ADMIN_EMAIL);
  const hook = await call(first.baseUrl, 'POST', '/api/v1/webhooks/', {
    token: admin.token,
    json: { url: receiver.url, events: ['blog.published'] },
  });
  check(hook.status === 201, `register the webhook: ${hook.status} ${JSON.stringify(hook.body)}`);
  const form = new FormData();
  form.set('title', `Scheduled ${Date.now()}`);
  form.set('content', '<p>Goes live by itself</p>');
  form.set('banner_image', await banner(), 'banner.png');
  const created = await call(first.baseUrl, 'POST', '/api/v1/blogs/', { token: admin.token, form });
  check(created.status === 201, `create the draft: ${created.status} ${JSON.stringify(created.body)}`);
  const templateId = new mongoose.Types.ObjectId(String((created.body.blog as { _id: string })._id));

  const connection = await mongoose.createConnection(database.uri, { serverSelectionTimeoutMS: 10_000 }).asPromise();
  const blogs = connection.db!.collection('blogs');
  const ids: mongoose.Types.ObjectId[] = [];
  try {
    const template = await blogs.findOne({ _id: templateId });
    check(template, 'the draft is not in the database');
    const dueAt = Math.ceil((Date.now() + 20_000) / 1000) * 1000;
    const copies = Array.from({ length: SCHEDULED_POSTS }, (_, index) => {
      const _id = new mongoose.Types.ObjectId();
      ids.push(_id);
      return { ...template, _id, slug: `${template.slug}-${index}`, publishAt: new Date(dueAt + (index % 10) * 100) };
    });
    await blogs.insertMany(copies);
    const live = () => blogs.countDocuments({ _id: { $in: ids }, status: 'published' });

    check(
      (await within(dueAt - Date.now() + 15_000, async () => (await live()) > 0, 50)) !== undefined,
      'no scheduled post went live within 15 s of its time',
    );
    first.child.kill('SIGKILL');
    await first.exited;
    const liveAtKill = await live();
    const lastDue = dueAt + 900;
    const allLive = await within(
      Math.max(0, lastDue + SCHEDULE_LATENESS_BOUND_MS - Date.now()),
      async () => (await live()) === SCHEDULED_POSTS,
      500,
    );
    check(
      allLive !== undefined,
      `${SCHEDULED_POSTS - (await live())} of ${SCHEDULED_POSTS} posts not live 30 s after their time`,
    );
    const allLiveAfterMs = Date.now() - lastDue;

    const wrong = await blogs
      .find({ _id: { $in: ids } })
      .project({ status: 1, publishedAt: 1, publishAt: 1, publishEventPending: 1 })
      .toArray();
    const dueOf = new Map(copies.map((copy) => [String(copy._id), copy.publishAt.getTime()]));
    const off = wrong.filter(
      (blog) =>
        blog.status !== 'published' ||
        blog.publishAt !== undefined ||
        (blog.publishedAt as Date | null)?.getTime() !== dueOf.get(String(blog._id)),
    );
    check(off.length === 0, `${off.length} posts not published at their scheduled time: ${JSON.stringify(off[0])}`);
    const pending = await within(
      SCHEDULE_LATENESS_BOUND_MS,
      async () => (await blogs.countDocuments({ publishEventPending: true })) === 0,
    );
    check(pending !== undefined, 'publications still wait for their blog.published record 30 s later');
    const expected = new Set(ids.map(String));
    const delivered = await within(
      SCHEDULE_LATENESS_BOUND_MS,
      async () => receiver.blogs().size === expected.size,
      500,
    );
    const missing = [...expected].filter((id) => !receiver.blogs().has(id));
    check(delivered !== undefined && missing.length === 0, `${missing.length} blog.published webhooks never arrived`);
    const repeated = receiver.received.length - expected.size;
    check(repeated === 0, `${repeated} blog.published webhooks arrived twice`);
    await second.stop();
    return (
      `${SCHEDULED_POSTS} posts due in the same second; instance A SIGKILLed with ${liveAtKill} live; ` +
      `all live ${seconds(allLiveAfterMs)} after the last was due, each at its scheduled time; ` +
      `${receiver.received.length} blog.published webhooks, one per post, the last ${seconds(Date.now() - lastDue)} after it was due`
    );
  } finally {
    await blogs.deleteMany({ _id: { $in: [templateId, ...ids] } });
    await connection.db!.collection('webhooks').deleteMany({});
    await connection.db!.collection('webhookdeliveries').deleteMany({});
    await connection.close();
    await receiver.close();
  }
}

/**
 * A webhook receiver on 127.0.0.1: by default it answers 204 and keeps each delivery's blog id. `answer`
 * can have it hang (never answer: the sender's deadline ends the attempt) or answer 500 instead; every
 * attempt is kept in `attempts` with the `Webhook-Id`, whether its signature held, and what it was answered.
 */
async function startWebhookReceiver({ secret = '', answer = (): ReceiverAnswer => 'ok' } = {}) {
  const received: string[] = [];
  const attempts: Array<{ id: string; blogId: string; event: string; signed: boolean; answered: ReceiverAnswer }> = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const blogId = String((JSON.parse(body) as { data: { _id: string } }).data._id);
      const answered = answer();
      const [t, v1] = String(req.headers['webhook-signature']).split(',');
      const expected = createHmac('sha256', secret)
        .update(`${t?.slice(2)}.${body}`)
        .digest('hex');
      attempts.push({
        id: String(req.headers['webhook-id']),
        blogId,
        event: String(req.headers['webhook-event']),
        signed: v1 === `v1=${expected}`,
        answered,
      });
      if (answered === 'hang') return void hanging.add(res);
      if (answered === 'fail') return void res.writeHead(500).end();
      received.push(blogId);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    attempts,
    blogs: () => new Set(received),
    close: () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

type ReceiverAnswer = 'ok' | 'hang' | 'fail';

/**
 * A receiver that first hangs, then answers 500, then recovers, across an API restart (SIGKILL while
 * every delivery is still failing): each post's events (published, updated, unpublished, published,
 * updated) must all arrive, signed, each acknowledged once, and in order per post: no attempt of a
 * post's event before every earlier event of that post was acknowledged.
 */
async function webhookRecovery({ database }: Context): Promise<string> {
  let mode: ReceiverAnswer = 'hang';
  const secret = randomBytes(24).toString('hex');
  const receiver = await startWebhookReceiver({ secret, answer: () => mode });
  const env = { MONGODB_URI: database.uri, WEBHOOKS_ALLOW_PRIVATE: 'true' };
  const first = await startApi('webhooks-a', env);
  const admin = await register(first.baseUrl, ADMIN_EMAIL);
  const events = ['blog.published', 'blog.updated', 'blog.unpublished'];
  const hook = await call(first.baseUrl, 'POST', '/api/v1/webhooks/', {
    token: admin.token,
    json: { url: receiver.url, events, secret },
  });
  check(hook.status === 201, `register the webhook: ${hook.status} ${JSON.stringify(hook.body)}`);
  const connection = await mongoose.createConnection(database.uri, { serverSelectionTimeoutMS: 10_000 }).asPromise();
  const deliveries = connection.db!.collection('webhookdeliveries');
  const blogIds: string[] = [];
  try {
    const write = async (method: string, url: string, fields: Record<string, string>) => {
      const form = new FormData();
      for (const [name, value] of Object.entries(fields)) form.set(name, value);
      if (method === 'POST') form.set('banner_image', await banner(), 'banner.png');
      const answer = await call(first.baseUrl, method, url, { token: admin.token, form });
      check(answer.status === 200 || answer.status === 201, `${method} ${url}: ${answer.status}`);
      return String((answer.body.blog as { _id: string })._id);
    };
    for (let post = 0; post < WEBHOOK_POSTS; post++) {
      const id = await write('POST', '/api/v1/blogs/', {
        title: `Hooked ${post} ${Date.now()}`,
        content: '<p>Told to a receiver that is down</p>',
        status: 'published',
      });
      blogIds.push(id);
      await write('PUT', `/api/v1/blogs/${id}`, { title: `Hooked ${post}, retitled` });
      await write('PUT', `/api/v1/blogs/${id}`, { status: 'draft' });
      await write('PUT', `/api/v1/blogs/${id}`, { status: 'published' });
      await write('PUT', `/api/v1/blogs/${id}`, { content: '<p>Told again</p>' });
    }
    const answered = (kind: ReceiverAnswer) => receiver.attempts.filter(({ answered }) => answered === kind).length;
    check((await within(15_000, async () => answered('hang') > 0)) !== undefined, 'no delivery attempted in 15 s');
    // the hung attempts end at the sender's deadline (10 s); their retries, 10 s later, meet 500s
    await sleep(11_000);
    mode = 'fail';
    check((await within(30_000, async () => answered('fail') > 0)) !== undefined, 'no retry within 30 s');
    first.child.kill('SIGKILL');
    await first.exited;
    mode = 'ok';
    const recoveredAt = Date.now();
    const second = await startApi('webhooks-b', env);

    const expected = new Map<string, string[]>();
    for (const delivery of await deliveries.find().sort({ occurredAt: 1, _id: 1 }).toArray()) {
      const ids = expected.get(String(delivery.blogId)) ?? [];
      ids.push(String(delivery.eventId));
      expected.set(String(delivery.blogId), ids);
    }
    const all = [...expected.values()].flat();
    check(all.length === WEBHOOK_POSTS * 5, `${all.length} deliveries recorded, expected ${WEBHOOK_POSTS * 5}`);
    const acknowledged = () => receiver.attempts.filter(({ answered }) => answered === 'ok');
    const arrived = await within(
      WEBHOOK_RECOVERY_BOUND_MS,
      async () => new Set(acknowledged().map(({ id }) => id)).size === all.length,
      500,
    );
    const missing = all.filter((id) => !acknowledged().some((attempt) => attempt.id === id));
    check(arrived !== undefined, `${missing.length} of ${all.length} events never arrived: ${missing[0]}`);
    const arrivedAfterMs = Date.now() - recoveredAt;
    const twice = acknowledged().length - all.length;
    check(twice === 0, `${twice} events acknowledged twice`);
    check(
      receiver.attempts.every(({ signed }) => signed),
      'an attempt carried a signature that did not verify',
    );
    for (const [blogId, ids] of expected) {
      const names = ids.map((id) => receiver.attempts.find((attempt) => attempt.id === id)?.event);
      const sequence = ['blog.published', 'blog.updated', 'blog.unpublished', 'blog.published', 'blog.updated'];
      check(names.join() === sequence.join(), `blog ${blogId}: events ${names.join()}`);
    }
    const done = new Set<string>();
    for (const attempt of receiver.attempts) {
      const ids = expected.get(attempt.blogId)!;
      const early = ids.slice(0, ids.indexOf(attempt.id)).find((id) => !done.has(id));
      check(!early, `blog ${attempt.blogId}: ${attempt.id} sent before ${early} had arrived`);
      if (attempt.answered === 'ok') done.add(attempt.id);
    }
    const undelivered = await deliveries.countDocuments({ status: { $ne: 'delivered' } });
    check(undelivered === 0, `${undelivered} deliveries not marked delivered`);
    await second.stop();
    return (
      `${all.length} events of ${WEBHOOK_POSTS} posts; the receiver hung ${answered('hang')} attempts, ` +
      `answered 500 to ${answered('fail')}, then recovered as API A was SIGKILLed; API B delivered every event ` +
      `${seconds(arrivedAfterMs)} later, each once, signed, in order per post`
    );
  } finally {
    const ids = blogIds.map((id) => new mongoose.Types.ObjectId(id));
    await connection.db!.collection('blogs').deleteMany({ _id: { $in: ids } });
    await connection.db!.collection('webhooks').deleteMany({});
    await deliveries.deleteMany({});
    await connection.close();
    await receiver.close();
  }
}

const SCENARIOS: Record<string, (context: Context) => Promise<string>> = {
  'cut-under-load': cutUnderLoad,
  'silent-partition': silentPartition,
  'repeated-cuts': repeatedCuts,
  'sigkill-mid-write': sigkillMidWrite,
  storage,
  'sigterm-burst': sigtermBurst,
  'scheduled-publishing': scheduledPublishing,
  'webhook-recovery': webhookRecovery,
  soak,
};

async function main(): Promise<number> {
  const chosen = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(SCENARIOS);
  const unknown = chosen.filter((name) => !SCENARIOS[name]);
  if (unknown.length) {
    log(`faults: unknown scenario ${unknown.join(', ')}; known: ${Object.keys(SCENARIOS).join(', ')}`);
    return 2;
  }
  mkdirSync(ARTIFACTS, { recursive: true });
  // the API processes run the bundle of src/server.ts: made now, so that they run the code as it is
  await buildEntryPoints();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'faults-db-'));
  const database = await startDatabase(path.join(dataDir, 'faults.h2'));
  const proxy = await startTcpProxy({ targetPort: database.port });
  const context: Context = { database, proxy, proxiedUri: `mongodb://127.0.0.1:${proxy.port}/faults` };
  log(`faults: database stand-in (file-backed) on port ${database.port}, proxy on ${proxy.port}`);
  const failed: string[] = [];
  try {
    for (const name of chosen) {
      const start = Date.now();
      proxy.setMode('pass');
      try {
        const detail = await SCENARIOS[name](context);
        log(`ok   ${name} (${seconds(Date.now() - start)}): ${detail}`);
      } catch (error) {
        failed.push(name);
        log(`FAIL ${name} (${seconds(Date.now() - start)}): ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        proxy.setMode('pass');
        await Promise.all(apis.map(({ server }) => server.stop().catch(() => undefined)));
        saveApiLogs();
      }
    }
  } finally {
    await proxy.close();
    await database.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(uploadsDir, { recursive: true, force: true });
  }
  const took = seconds(Date.now() - started);
  log(
    failed.length === 0
      ? `faults: all ${chosen.length} scenarios held in ${took} (logs in artifacts/faults)`
      : `faults: ${failed.length} of ${chosen.length} scenarios FAILED (${failed.join(', ')}) in ${took}; logs in artifacts/faults`,
  );
  return failed.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    log(`faults: could not run: ${error instanceof Error ? error.stack : String(error)}`);
    saveApiLogs();
    process.exit(1);
  },
);
