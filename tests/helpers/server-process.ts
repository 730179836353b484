/**
 * Runs src/server.ts as a real process, the way `npm start` runs it, for tests of what only a process
 * has: signals, shutdown, several instances side by side. It runs the bundle tests/global-setup.ts built
 * of it (tests/helpers/test-build.ts), with source maps, so stack traces name src/ files.
 * Each server listens on a free port (PORT=0) and logs it; its output is kept for assertions.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { bundleArguments } from './test-build';

const PROJECT_ROOT = path.resolve(__dirname, '..', '..');
const START_TIMEOUT_MS = 25_000;

export interface ServerProcess {
  /** http://127.0.0.1:<port> */
  baseUrl: string;
  port: number;
  /** Every line the process wrote, stdout and stderr. */
  output: string[];
  child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal) once the process has ended. */
  exited: Promise<number | null>;
  /** Resolves with the first line (already written or still to come) that matches. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Ends the process if it still runs (SIGKILL after a while); for afterAll. */
  stop(): Promise<void>;
}

/** The same JWT secrets for every instance of one test: tokens issued by one must verify on the other. */
export function sharedSecrets(): Record<string, string> {
  return {
    JWT_ACCESS_SECRET: randomBytes(32).toString('hex'),
    JWT_REFRESH_SECRET: randomBytes(32).toString('hex'),
  };
}

/** MONGODB_URI for the test run's database server with the given database name in its path. */
export function databaseUri(databaseName: string): string {
  const uri = process.env.TEST_MONGODB_URI;
  if (!uri) throw new Error('TEST_MONGODB_URI is not set: run the tests through jest (tests/global-setup.ts)');
  return uri.replace(/^(mongodb(?:\+srv)?:\/\/[^/?]+)(\/[^?]*)?/, `$1/${databaseName}`);
}

export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Only the environment given, in test mode: a developer's .env must not leak into a test's processes. */
const isolatedEnvironment = (env: Record<string, string>): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH ?? '',
  DOTENV_CONFIG_PATH: '/dev/null',
  DOTENV_CONFIG_QUIET: 'true',
  NODE_ENV: 'test',
  ...env,
});

/** The arguments of node that run an entry point of src/ such as 'server.ts'. */
const nodeArguments = (entry: string) => bundleArguments(path.join('src', entry));

/**
 * Runs an entry point of src/ such as 'server.ts' (the server, a CLI; see ENTRY_POINTS in
 * tests/helpers/test-build.ts) to its end, with only the environment given (no developer .env), and
 * returns its exit code and output; killed after 40 s.
 */
export function runToExit(entry: string, args: string[], env: Record<string, string>): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArguments(entry), ...args], {
      cwd: PROJECT_ROOT,
      env: isolatedEnvironment(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${entry} did not exit within 40 s; stdout:\n${stdout}\nstderr:\n${stderr}`));
    }, 40_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, nodeArguments('server.ts'), {
    cwd: PROJECT_ROOT,
    env: isolatedEnvironment({
      LOG_LEVEL: 'info',
      PORT: '0',
      BCRYPT_COST: '4',
      // stop at once on SIGTERM unless a test is about the readiness delay before the drain
      SHUTDOWN_READINESS_DELAY_MS: '0',
      // no background reconciliation racing a test's own writes unless it asks for one
      RECONCILE_INTERVAL_MS: '0',
      ...env,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const waiters: Array<{ pattern: RegExp; resolve: (line: string) => void }> = [];
  const onLine = (line: string) => {
    output.push(line);
    for (const waiter of [...waiters]) {
      if (waiter.pattern.test(line)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  };
  createInterface({ input: child.stdout! }).on('line', onLine);
  createInterface({ input: child.stderr! }).on('line', onLine);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  function waitForLine(pattern: RegExp, timeoutMs = START_TIMEOUT_MS): Promise<string> {
    const seen = output.find((line) => pattern.test(line));
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.splice(waiters.indexOf(waiter), 1);
        reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms; output:\n${output.join('\n')}`));
      }, timeoutMs);
      const waiter = {
        pattern,
        resolve: (line: string) => {
          clearTimeout(timer);
          resolve(line);
        },
      };
      waiters.push(waiter);
      void exited.then(() => {
        if (!waiters.includes(waiter)) return;
        waiters.splice(waiters.indexOf(waiter), 1);
        clearTimeout(timer);
        reject(new Error(`the server exited before a line matching ${pattern}; output:\n${output.join('\n')}`));
      });
    });
  }

  async function stop(): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.kill('SIGTERM');
    await exited;
    clearTimeout(timer);
  }

  try {
    const line = await waitForLine(/listening on http:\/\/localhost:(\d+)/);
    const port = Number(/listening on http:\/\/localhost:(\d+)/.exec(line)![1]);
    return { baseUrl: `http://127.0.0.1:${port}`, port, output, child, exited, waitForLine, stop };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}
