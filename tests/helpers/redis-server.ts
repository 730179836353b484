/**
 * Starts Debian's redis-server for a test on a loopback port, in memory only (no RDB, no AOF),
 * and stops it. `.ci/run` installs redis-server; on a developer machine without it, the tests that
 * need it are skipped (docs/operations.md).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import { freePort } from '../../tools/lib/server';

const START_TIMEOUT_MS = 15_000;

export interface RedisServer {
  port: number;
  url: string;
  /** Kills the server at once (SIGKILL), as a crash would. */
  kill(): Promise<void>;
  /** Freezes the server (SIGSTOP): its connections stay open and nothing answers, as in a silent partition. */
  pause(): void;
  /** Lets a frozen server go on (SIGCONT). */
  resume(): void;
  stop(): Promise<void>;
}

/** The URL of a Redis that is down: a port that was free a moment ago and that nothing listens on now. */
export async function unreachableRedisUrl(): Promise<string> {
  return `redis://127.0.0.1:${await freePort()}`;
}

export function redisServerInstalled(): boolean {
  return !spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).error;
}

/**
 * Ports are drawn below Linux's ephemeral range (32768-60999 by default). Inside it, a port a test keeps
 * free for its Redis to come back on can be taken meanwhile as the local end of any outgoing connection
 * (a client retrying that very address may even be given it and connect to itself): the Redis then
 * cannot bind it ("Address already in use" for the whole retry, seen in CI).
 */
const PORTS = { from: 20_000, count: 12_000 };

/**
 * redis-server cannot listen on port 0 and tell which port it got (port 0 turns TCP off), so a port
 * is drawn at random and another is tried when redis-server reports it taken; no port is bound and
 * released beforehand. A given port (a restart "on the same address") is retried for a few seconds.
 */
export async function startRedisServer(port?: number): Promise<RedisServer> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (let attempt = 1; ; attempt++) {
    const chosenPort = port ?? PORTS.from + Math.floor(Math.random() * PORTS.count);
    const child = spawn(
      'redis-server',
      ['--port', String(chosenPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', tmpdir()],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      await waitUntilReady(child);
    } catch (error) {
      const taken = error instanceof PortTakenError;
      if (taken && port === undefined && attempt < 10) continue;
      if (taken && port !== undefined && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        continue;
      }
      throw error;
    }
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
      pause: () => void child.kill('SIGSTOP'),
      resume: () => void child.kill('SIGCONT'),
      stop: async () => {
        child.kill('SIGCONT'); // a frozen server would not act on SIGTERM
        await end('SIGTERM');
      },
    };
  }
}

class PortTakenError extends Error {}

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
      const message = `redis-server exited with code ${code}:\n${output.join('\n')}`;
      reject(/address already in use/i.test(message) ? new PortTakenError(message) : new Error(message));
    });
  });
}
