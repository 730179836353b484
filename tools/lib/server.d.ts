/** Types of server.js for the TypeScript tests and tools. */
import type { ChildProcess } from 'node:child_process';

export const PROJECT_ROOT: string;
/** What src/server.ts writes once it listens; its first group is the port. */
export const LISTENING_LINE: RegExp;

export function freePort(): Promise<number>;
export function isolatedEnvironment(env: Record<string, string | undefined>): NodeJS.ProcessEnv;
export function withDatabaseName(uri: string, databaseName: string): string;

export interface ProcessOptions {
  /** Named in error messages ("the server exited before ..."). */
  name?: string;
  /** The arguments of node: an entry point, and node's own options before it. */
  args: string[];
  /** The child's whole environment, besides PATH (and DOTENV_CONFIG_PATH=/dev/null unless given). */
  env: Record<string, string | undefined>;
  /** Keep only the last lines of output (all by default). */
  maxLines?: number;
  /** Called with each line of output as it comes. */
  onLine?: (line: string) => void;
}

export interface RunningProcess {
  name: string;
  child: ChildProcess;
  /** Every line the process wrote, stdout and stderr (the last maxLines). */
  output: string[];
  /** Resolves with the exit code (null when killed by a signal) once the process has ended. */
  exited: Promise<number | null>;
  /** Resolves with the first line (already written or still to come) that matches. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** SIGTERM if it still runs, SIGKILL after graceMs (10 s); resolves once it has ended. */
  stop(options?: { graceMs?: number }): Promise<void>;
}

export interface ServerOptions extends ProcessOptions {
  /** Without env.PORT: the line that names the port the server got, its first group (LISTENING_LINE). */
  readyLine?: RegExp;
  /** A path polled until it answers below 500 ('/readyz' when env.PORT is given; none otherwise). */
  readyPath?: string;
  /** How long it may take to get ready (25 s). */
  timeoutMs?: number;
}

export interface ServerProcess extends RunningProcess {
  /** http://127.0.0.1:<port> */
  baseUrl: string;
  port: number;
}

export function startProcess(options: ProcessOptions): RunningProcess;
export function startServer(options: ServerOptions): Promise<ServerProcess>;
export function startInMemoryDatabase(options?: {
  log?: (message: string) => void;
}): Promise<{ kind: string; uri: string; stop(): Promise<void> }>;

export interface LiveApiOptions {
  env?: Record<string, string | undefined>;
  log?: (message: string) => void;
  onLine?: (line: string) => void;
  timeoutMs?: number;
}

export interface LiveApi extends ServerProcess {
  databaseKind: string;
  /** Ends the server, then its database. */
  stop(): Promise<void>;
}

export function startLiveApi(options?: LiveApiOptions): Promise<LiveApi>;
