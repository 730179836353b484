/**
 * Development and test infrastructure, never used in production (config requires MONGODB_URI there):
 * decides which database an instance without MONGODB_URI uses (`npm start`, `npm test`, the tools):
 *   1. mongodb-memory-server, when it can get a real MongoDB binary (cached or downloaded, one attempt:
 *      `config.mongodbMemoryServer.maxRetries` in package.json);
 *   2. otherwise the offline stand-in mongo-java-server (tools/mongo-standin), when `java` exists, and `mvn`
 *      unless the stand-in's classpath was resolved before;
 *   3. otherwise one clear error asking for MONGODB_URI.
 * `persistent` keeps data in `dataDir` across restarts (npm start: .data/, as config says); tests use memory only.
 * It neither reads nor writes the environment: whoever calls it passes what it needs. server.ts loads it
 * only when there is no MONGODB_URI; the production image, without dev dependencies, never does.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';

export interface LocalDatabase {
  uri: string;
  /** Human-readable name of what was started, for the log. */
  kind: string;
  stop(): Promise<void>;
}

/** In memory, or kept in `dataDir` across restarts (`npm start` passes config's .data/; tests a folder of their own). */
export type LocalDatabaseOptions = {
  log: (message: string) => void;
  /**
   * The stand-in's JVM compiles with its quick compiler only: half the CPU over a test run of short,
   * varied work, where the optimising compiler's effort never pays back (the benchmark leaves it on).
   */
  quickCompile?: boolean;
} & ({ persistent: false } | { persistent: true; dataDir: string });

const PROJECT_ROOT = path.resolve(__dirname, '..', '..');
const STANDIN_DIR = path.join(PROJECT_ROOT, 'tools', 'mongo-standin');
const STANDIN_SOURCE = path.join(STANDIN_DIR, 'Launcher.java');
const STANDIN_TARGET = path.join(STANDIN_DIR, 'target');
const STANDIN_CLASSPATH = path.join(STANDIN_TARGET, 'classpath.txt');
const STANDIN_START_TIMEOUT_MS = 60_000;

export class NoLocalDatabaseError extends Error {}

export async function startLocalDatabase(options: LocalDatabaseOptions): Promise<LocalDatabase> {
  const memoryServer = await startMemoryServer(options);
  if (memoryServer) return memoryServer;
  if (standInRunnable()) return startStandIn(options);
  throw new NoLocalDatabaseError(
    'No database: set MONGODB_URI (no MongoDB binary could be downloaded, and java/mvn for the offline stand-in are missing)',
  );
}

async function startMemoryServer(options: LocalDatabaseOptions): Promise<LocalDatabase | undefined> {
  const { log } = options;
  let memoryServerModule: typeof import('mongodb-memory-server');
  try {
    memoryServerModule = await import('mongodb-memory-server');
  } catch {
    return undefined; // installed without dev dependencies
  }
  try {
    // Find or download the binary first: this fails quietly, where create() would print a stack trace.
    await memoryServerModule.MongoBinary.getPath();
    const dbPath = options.persistent ? path.join(options.dataDir, 'mongodb') : undefined;
    if (dbPath) mkdirSync(dbPath, { recursive: true });
    const server = await memoryServerModule.MongoMemoryServer.create({
      instance: dbPath ? { dbPath, storageEngine: 'wiredTiger' } : {},
    });
    return {
      uri: server.getUri(),
      kind: `mongodb-memory-server (MongoDB ${server.opts.binary?.version ?? 'default'}${dbPath ? `, data in ${dbPath}` : ', in memory'})`,
      stop: async () => {
        await server.stop({ doCleanup: !dbPath });
      },
    };
  } catch (error) {
    log(`mongodb-memory-server unavailable (${firstLine(error)}); trying the offline stand-in`);
    return undefined;
  }
}

/** Whether the stand-in can start here: java, and mvn unless its classpath was resolved already. */
export function standInRunnable(): boolean {
  return onPath('java') && (existsSync(STANDIN_CLASSPATH) || onPath('mvn'));
}

/** Whether the shell finds the command, without starting it (`java -version` would start a JVM). */
function onPath(command: string): boolean {
  return spawnSync('sh', ['-c', 'command -v "$0"', command], { stdio: 'ignore' }).status === 0;
}

/** Resolves the stand-in's jar classpath with Maven once; later starts read the cached list. */
export function resolveStandInClasspath(): string {
  if (!existsSync(STANDIN_CLASSPATH)) {
    const result = spawnSync(
      'mvn',
      [
        '-q',
        '-B',
        '-f',
        path.join(STANDIN_DIR, 'pom.xml'),
        'dependency:build-classpath',
        `-Dmdep.outputFile=${STANDIN_CLASSPATH}`,
      ],
      { encoding: 'utf8', timeout: 5 * 60_000 },
    );
    if (result.status !== 0 || !existsSync(STANDIN_CLASSPATH)) {
      throw new Error(
        `mvn could not resolve the stand-in's classpath: ${(result.stderr || result.stdout || '').trim().slice(0, 500)}`,
      );
    }
  }
  return readFileSync(STANDIN_CLASSPATH, 'utf8').trim();
}

/**
 * The arguments of `java` that run the stand-in's Launcher, before its own (port, file): the compiled
 * class, which starts in a third of the time (0.35 s against 0.9 s here), or its source where javac is
 * missing. javac compiles it once per version of the source, into tools/mongo-standin/target/launcher-<hash>/.
 */
export function standInLauncherArguments(): string[] {
  const classpath = resolveStandInClasspath();
  const source = readFileSync(STANDIN_SOURCE);
  const classes = path.join(
    STANDIN_TARGET,
    `launcher-${createHash('sha256').update(source).digest('hex').slice(0, 12)}`,
  );
  if (!existsSync(classes) && onPath('javac')) {
    // into a folder of this process first: two starts at once must not read a half-written class
    const own = `${classes}.${process.pid}`;
    const result = spawnSync('javac', ['-cp', classpath, '-d', own, STANDIN_SOURCE], { stdio: 'ignore' });
    try {
      if (result.status === 0) renameSync(own, classes);
    } catch {
      // another start put the same class there first
    }
    rmSync(own, { recursive: true, force: true });
  }
  if (existsSync(classes)) return ['-cp', `${classes}${path.delimiter}${classpath}`, 'Launcher'];
  return ['-cp', classpath, STANDIN_SOURCE];
}

export async function startStandIn(options: LocalDatabaseOptions): Promise<LocalDatabase> {
  const jvmOptions = options.quickCompile ? ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'] : [];
  const args = [...jvmOptions, ...standInLauncherArguments(), '0'];
  let description = 'in memory';
  if (options.persistent) {
    mkdirSync(options.dataDir, { recursive: true });
    const file = path.join(options.dataDir, 'mongo-standin.h2');
    args.push(file);
    description = `data in ${file}`;
  }
  // It ignores SIGINT (Ctrl-C reaches the whole process group: the API drains, then stops it) and ends when its
  // standard input closes, so it never outlives the API (tools/mongo-standin/Launcher.java).
  const child = spawn('java', args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const port = await waitForListening(child);
  return {
    uri: `mongodb://127.0.0.1:${port}/`,
    kind: `offline stand-in mongo-java-server (${description})`,
    stop: () => stopChild(child),
  };

  function waitForListening(process: ChildProcess): Promise<number> {
    return new Promise((resolve, reject) => {
      const stderr: string[] = [];
      const timer = setTimeout(() => {
        process.kill('SIGKILL');
        reject(
          new Error(
            `the stand-in did not start within ${STANDIN_START_TIMEOUT_MS} ms: ${stderr.join('\n').slice(-500)}`,
          ),
        );
      }, STANDIN_START_TIMEOUT_MS);
      // The stand-in's own log is chatty (a line per dropped client); it is kept only to explain a failed start.
      createInterface({ input: process.stderr! }).on('line', (line) => {
        stderr.push(line);
        if (stderr.length > 50) stderr.shift();
      });
      createInterface({ input: process.stdout! }).on('line', (line) => {
        const match = /listening on [^:]+:(\d+)/.exec(line);
        if (match) {
          clearTimeout(timer);
          resolve(Number(match[1]));
        }
      });
      process.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(standInFailure(code, stderr)));
      });
    });
  }
}

/**
 * One line saying why the stand-in stopped, from the Java exception in its output (the stack is dropped):
 * a second instance on the same local database meets H2's file lock, which deserves its own advice.
 */
export function standInFailure(code: number | null, stderr: readonly string[]): string {
  const exception = [...stderr]
    .reverse()
    .map((line) => /(?:^|\s)[\w.$]+(?:Exception|Error): (.+)$/.exec(line))
    .find(Boolean);
  const reason = exception ? exception[1].replace(/\s*\[[\d./]+\]\s*$/, '') : `exited with code ${code}`;
  if (/file is locked/i.test(reason)) {
    return `the local database is in use by another process (${reason}): is another instance of the API running on it? Stop it, or set MONGODB_URI`;
  }
  return `the offline stand-in database failed to start: ${reason}`;
}

/** Stops a child process with SIGTERM, and SIGKILL if it is still running 10 s later. */
export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** A short reason: download errors carry the useful part (e.g. "getaddrinfo ENOTFOUND ...") in `msg`. */
function firstLine(error: unknown): string {
  const detail = (error as { msg?: unknown })?.msg;
  const text = typeof detail === 'string' ? detail : error instanceof Error ? error.message : String(error);
  return text.split('\n')[0].slice(0, 200);
}
