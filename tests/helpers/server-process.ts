/**
 * Runs src/server.ts as a real process, the way `npm start` runs it, for tests of what only a process
 * has: signals, shutdown, several instances side by side. It runs the bundle tests/global-setup.ts built
 * of it (tests/helpers/test-build.ts), with source maps, so stack traces name src/ files.
 * Each server listens on a free port (PORT=0) and logs it; its output is kept for assertions. The process
 * itself is started, watched and stopped by tools/lib/server.js, as the live checks and the benchmark do.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { isolatedEnvironment, PROJECT_ROOT, startServer, withDatabaseName } from '../../tools/lib/server';
import { bundleArguments } from './test-build';

export type { ServerProcess } from '../../tools/lib/server';

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
  return withDatabaseName(uri, databaseName);
}

export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Only the environment given, in test mode: a developer's .env must not leak into a test's processes. */
const testEnvironment = (env: Record<string, string>) => ({ NODE_ENV: 'test', ...env });

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
      env: isolatedEnvironment(testEnvironment(env)),
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

export function startServerProcess(env: Record<string, string>) {
  return startServer({
    args: nodeArguments('server.ts'),
    env: testEnvironment({
      LOG_LEVEL: 'info',
      PORT: '0',
      BCRYPT_COST: '4',
      // stop at once on SIGTERM unless a test is about the readiness delay before the drain
      SHUTDOWN_TIMEOUTS: 'readiness=0',
      // no background reconciliation racing a test's own writes unless it asks for one
      RECONCILE_INTERVAL_MS: '0',
      ...env,
    }),
  });
}
