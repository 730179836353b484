/**
 * Starts Debian's redis-server for a test on a free loopback port, in memory only (no RDB, no AOF),
 * and stops it. `.ci/run` installs redis-server; on a developer machine without it, the tests that
 * need it are skipped (docs/operations.md).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { createInterface } from 'node:readline';

const START_TIMEOUT_MS = 15_000;

export interface RedisServer {
  port: number;
  url: string;
  /** Kills the server at once (SIGKILL), as a crash would. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

export function redisServerInstalled(): boolean {
  return !spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).error;
}

/** A port free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export async function startRedisServer(port?: number): Promise<RedisServer> {
  const chosenPort = port ?? (await freePort());
  const child = spawn(
    'redis-server',
    ['--port', String(chosenPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', tmpdir()],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await waitUntilReady(child);
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(signal);
      await exited;
    }
  };
  return {
    port: chosenPort,
    url: `redis://127.0.0.1:${chosenPort}`,
    kill: () => end('SIGKILL'),
    stop: () => end('SIGTERM'),
  };
}

function waitUntilReady(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    const output: string[] = [];
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`redis-server did not start within ${START_TIMEOUT_MS} ms:\n${output.join('\n')}`));
    }, START_TIMEOUT_MS);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      output.push(line);
      if (/Ready to accept connections/.test(line)) {
        clearTimeout(timer);
        resolve();
      }
    });
    createInterface({ input: child.stderr! }).on('line', (line) => output.push(line));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with code ${code}:\n${output.join('\n')}`));
    });
  });
}
