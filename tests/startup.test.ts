/**
 * Start-up as an operator meets it: a failure is one clear line on stderr (no stack trace), and
 * development keeps its generated JWT secrets across restarts so a SPA's tokens stay valid.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import mongoose from 'mongoose';
import { standInRunnable, startStandIn, type LocalDatabase } from '../src/dev/local-database';
import {
  databaseUri,
  runToExit,
  sharedSecrets,
  startServerProcess,
  type ProcessResult,
  type ServerProcess,
} from './helpers/server-process';

/** Runs src/server.ts to its end and returns what it wrote; for start-ups that must fail. */
const runServerToExit = (env: Record<string, string>): Promise<ProcessResult> =>
  runToExit('server.ts', [], { BCRYPT_COST: '4', ...env });

/** The stand-in needs java (and mvn once); machines where mongodb-memory-server works may lack them. */
const hasStandIn = standInRunnable();

const lines = (text: string) => text.split('\n').filter((line) => line.trim() !== '');

describe('a start-up that cannot succeed', () => {
  let occupied: Server;
  beforeAll(async () => {
    occupied = createServer();
    await new Promise<void>((resolve) => occupied.listen(0, '0.0.0.0', resolve));
    await mongoose.connect(databaseUri(`startup_${process.pid}`));
  });
  afterAll(async () => {
    await new Promise((resolve) => occupied.close(resolve));
    await mongoose.disconnect();
  });

  it('says in one line that the port is busy, without a stack trace', async () => {
    const port = (occupied.address() as { port: number }).port;
    const result = await runServerToExit({
      PORT: String(port),
      MONGODB_URI: databaseUri(`startup_${process.pid}`),
      ...sharedSecrets(),
    });

    expect(result.code).toBe(1);
    expect(lines(result.stderr)).toEqual([
      `Start-up failed: port ${port} is already in use (another instance running?): stop it or set PORT`,
    ]);
    expect(result.stdout + result.stderr).not.toMatch(/^\s+at /m);
  });

  it('writes that line as JSON in production, as every other line there is, and no other error', async () => {
    const port = (occupied.address() as { port: number }).port;
    const production = { NODE_ENV: 'production', BCRYPT_COST: '10', ...sharedSecrets() };
    const busy = await runServerToExit({
      ...production,
      PORT: String(port),
      PUBLIC_URL: 'https://api.blog.example',
      MONGODB_URI: databaseUri(`startup_${process.pid}`),
    });
    const misconfigured = await runServerToExit(production);

    for (const [result, message] of [
      [busy, `Start-up failed: port ${port} is already in use (another instance running?): stop it or set PORT`],
      [misconfigured, 'Configuration error: MONGODB_URI and PUBLIC_URL are required when NODE_ENV=production'],
    ] as const) {
      expect(result.code).toBe(1);
      // the busy port's start-up warned first (no mail, no Cloudinary); its background work never began
      const written = lines(result.stderr).map((line) => JSON.parse(line) as { level: string });
      expect(written.filter((line) => line.level === 'error')).toEqual([
        { level: 'error', message, timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/) },
      ]);
      expect(written.at(-1)?.level).toBe('error');
    }
  });

  it('names the variable of a configuration error in one line', async () => {
    const result = await runServerToExit({ CORS_ORIGINS: 'localhost:5173', ...sharedSecrets() });

    expect(result.code).toBe(1);
    expect(lines(result.stderr)).toEqual([
      'Configuration error: CORS_ORIGINS: "localhost:5173" is not an origin: write scheme://host[:port] with no path, e.g. http://localhost:5173',
    ]);
  });

  it('names a malformed CLOUDINARY_URL in one line, never printing its secret', async () => {
    // a "/" left unescaped in the secret: the Cloudinary SDK, loaded with the app, threw on it first, and the
    // crash's stack trace quoted the whole URL
    const result = await runServerToExit({
      CLOUDINARY_URL: 'cloudinary://123456:s3cretPW/xyz@mycloud',
      ...sharedSecrets(),
    });

    expect(result.code).toBe(1);
    expect(lines(result.stderr)).toEqual([
      expect.stringMatching(/^Configuration error: CLOUDINARY_URL: must look like/),
    ]);
    expect(result.stdout + result.stderr).not.toContain('s3cretPW');
  });
});

(hasStandIn ? describe : describe.skip)('a second instance on the same local database (offline stand-in)', () => {
  let dataDir: string;
  let first: LocalDatabase | undefined;
  beforeAll(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'blog-api-data-'));
  });
  afterAll(async () => {
    await first?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('outlives a Ctrl-C meant for the API (SIGINT to the whole process group), which stops it last', async () => {
    const javaChildren = () =>
      readFileSync(`/proc/self/task/${process.pid}/children`, 'utf8')
        .split(/\s+/)
        .filter((pid) => pid !== '' && readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'java')
        .map(Number);
    const before = javaChildren();
    const database = await startStandIn({ persistent: false, log: () => undefined });
    const client = new MongoClient(database.uri, { serverSelectionTimeoutMS: 5000 });
    try {
      const [standIn] = javaChildren().filter((pid) => !before.includes(pid));
      process.kill(standIn, 'SIGINT');
      // a stand-in that obeyed would be gone within a moment; this one is still there to answer
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(existsSync(`/proc/${standIn}`)).toBe(true);
      expect(await client.db('admin').command({ ping: 1 })).toMatchObject({ ok: 1 });
    } finally {
      await client.close();
      await database.stop();
    }
  });

  it("fails with one line giving the stand-in's reason (a locked file) and what to do", async () => {
    const log = () => undefined;
    first = await startStandIn({ persistent: true, dataDir, log });

    const second = startStandIn({ persistent: true, dataDir, log });

    await expect(second).rejects.toThrow(
      /^the local database is in use by another process \(The file is locked: .*mongo-standin\.h2\): is another instance of the API running on it\? Stop it, or set MONGODB_URI$/,
    );
    await expect(second).rejects.not.toThrow(/\n/);
  });
});

describe('development without JWT secrets', () => {
  const servers: ServerProcess[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
  });

  it('keeps the generated secrets in .data/dev-secrets.json, so a token survives a restart', async () => {
    const env = { NODE_ENV: 'development', BCRYPT_COST: '10', MONGODB_URI: databaseUri(`dev_secrets_${process.pid}`) };
    const first = await startServerProcess(env);
    servers.push(first);
    const registered = await fetch(`${first.baseUrl}/api/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `restart.${process.pid}@example.com`, password: 'password123' }),
    });
    expect(registered.status).toBe(201);
    const { accessToken } = (await registered.json()) as { accessToken: string };
    await first.stop();

    const second = await startServerProcess(env);
    servers.push(second);
    const current = await fetch(`${second.baseUrl}/api/v1/users/current`, {
      headers: { authorization: `Bearer ${accessToken}` },
    });

    expect(current.status).toBe(200);
    expect(second.output.join('\n')).toContain('dev-secrets.json');
  });
});

describe('an uploads folder that cannot be written', () => {
  let server: ServerProcess | undefined;
  const scratch = mkdtempSync(path.join(tmpdir(), 'blog-uploads-check-'));
  afterAll(async () => {
    await server?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('is said at start, naming the folder, and the API serves reads all the same', async () => {
    // a folder under a file: no one can create it, root included
    const file = path.join(scratch, 'not-a-folder');
    writeFileSync(file, '');
    server = await startServerProcess({
      MONGODB_URI: databaseUri(`uploads_check_${process.pid}`),
      UPLOADS_DIR: path.join(file, 'uploads'),
      ...sharedSecrets(),
    });
    const said = () => server!.output.find((line) => line.includes('cannot be written'));
    for (let waited = 0; !said() && waited < 5000; waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50));

    expect(said()).toContain(`the folder ${path.join(file, 'uploads', 'banners')} cannot be written (ENOTDIR)`);
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
  });
});
