// @ts-check
/**
 * The one way the checks, the tests and the benchmark start a server: a node process of its own (the
 * built app dist/server.js, the tests' bundle of src/server.ts, the benchmark's floor server), with only
 * the environment it is given, its output kept line by line, ready once it writes the line naming its
 * port, stopped with SIGTERM and, past a grace period, SIGKILL. Plain CommonJS, so that node (tools/,
 * bench/), Jest's transform and tsx (tests/, tools/faults/) all load it as it is; types in server.d.ts.
 *
 *   startServer({ args, env })    any server entry point, on env.PORT or else on a port of its choosing
 *   startLiveApi({ env })         the built app on an in-memory database, for the live checks
 *   freePort()                    a loopback port free a moment ago
 */
'use strict';
const { spawn } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const { mkdtempSync, rmSync } = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { createInterface } = require('node:readline');

const PROJECT_ROOT = path.resolve(__dirname, '..', '..');
/** What src/server.ts writes once it listens (and its signal handlers are in place). */
const LISTENING_LINE = /listening on http:\/\/localhost:(\d+)/;

/** A port on 127.0.0.1 that was free a moment ago and that nothing listens on now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {net.AddressInfo} */ (probe.address());
      probe.close(() => resolve(port));
    });
  });
}

/** Only the environment given: a developer's shell settings and .env must not leak into a child process. */
const isolatedEnvironment = (/** @type {Record<string, string | undefined>} */ env) => ({
  PATH: process.env.PATH ?? '',
  DOTENV_CONFIG_PATH: '/dev/null',
  DOTENV_CONFIG_QUIET: 'true',
  ...env,
});

/** A MongoDB URI with the given database name in its path. */
function withDatabaseName(/** @type {string} */ uri, /** @type {string} */ databaseName) {
  return uri.replace(/^(mongodb(?:\+srv)?:\/\/[^/?]+)(\/[^?]*)?/, `$1/${databaseName}`);
}

/**
 * Runs node with `args` in the project's folder, with only `env` (plus PATH). Every line it writes,
 * stdout and stderr, goes to `output` (the last `maxLines` of them) and to `onLine`.
 * @param {import('./server').ProcessOptions} options
 * @returns {import('./server').RunningProcess}
 */
function startProcess({ name = 'the process', args, env, maxLines = Infinity, onLine }) {
  const child = spawn(process.execPath, args, {
    cwd: PROJECT_ROOT,
    env: isolatedEnvironment(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  /** @type {string[]} */
  const output = [];
  /** @type {Array<{ pattern: RegExp, resolve: (line: string) => void }>} */
  const waiters = [];
  const keep = (/** @type {string} */ line) => {
    output.push(line);
    if (output.length > maxLines) output.shift();
    onLine?.(line);
    for (const waiter of [...waiters]) {
      if (waiter.pattern.test(line)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  };
  createInterface({ input: /** @type {NodeJS.ReadableStream} */ (child.stdout) }).on('line', keep);
  createInterface({ input: /** @type {NodeJS.ReadableStream} */ (child.stderr) }).on('line', keep);
  /** @type {Promise<number | null>} */
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));

  /** @type {import('./server').RunningProcess['waitForLine']} */
  function waitForLine(pattern, timeoutMs = 25_000) {
    const seen = output.find((line) => pattern.test(line));
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.splice(waiters.indexOf(waiter), 1);
        reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms; output:\n${output.join('\n')}`));
      }, timeoutMs);
      const waiter = {
        pattern,
        resolve: (/** @type {string} */ line) => {
          clearTimeout(timer);
          resolve(line);
        },
      };
      waiters.push(waiter);
      void exited.then(() => {
        if (!waiters.includes(waiter)) return;
        waiters.splice(waiters.indexOf(waiter), 1);
        clearTimeout(timer);
        reject(new Error(`${name} exited before a line matching ${pattern}; output:\n${output.join('\n')}`));
      });
    });
  }

  async function stop({ graceMs = 10_000 } = {}) {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.kill('SIGTERM');
    await exited;
    clearTimeout(timer);
  }

  return { name, child, output, exited, waitForLine, stop };
}

/**
 * Starts a server entry point and resolves once it is ready:
 * - on the port given as `env.PORT`: once `readyPath` ('/readyz' unless given) answers below 500, which
 *   holds at any LOG_LEVEL;
 * - on PORT=0 (when `env.PORT` is not given): once it has written the line that names the port it got
 *   (`readyLine`, whose first group is the port; src/server.ts writes it at LOG_LEVEL info and below),
 *   and then, when given, once `readyPath` answers below 500.
 * Killed (SIGKILL) when it does not get there within `timeoutMs`.
 * @param {import('./server').ServerOptions} options
 * @returns {Promise<import('./server').ServerProcess>}
 */
async function startServer({
  readyLine = LISTENING_LINE,
  readyPath,
  timeoutMs = 25_000,
  name = 'the server',
  ...options
}) {
  const deadline = Date.now() + timeoutMs;
  const givenPort = Number(options.env.PORT ?? 0);
  const proc = startProcess({ ...options, name, env: { ...options.env, PORT: String(givenPort) } });
  try {
    let port = givenPort;
    if (!port) {
      const line = await proc.waitForLine(readyLine, timeoutMs);
      port = Number(/** @type {RegExpExecArray} */ (readyLine.exec(line))[1]);
    }
    const baseUrl = `http://127.0.0.1:${port}`;
    const probe = readyPath ?? (givenPort ? '/readyz' : undefined);
    if (probe) await waitForHttp(`${baseUrl}${probe}`, proc, deadline);
    return { ...proc, port, baseUrl };
  } catch (error) {
    proc.child.kill('SIGKILL');
    throw error;
  }
}

async function waitForHttp(
  /** @type {string} */ url,
  /** @type {import('./server').RunningProcess} */ proc,
  /** @type {number} */ deadline,
) {
  while (Date.now() < deadline) {
    if (proc.child.exitCode !== null)
      throw new Error(`${proc.name} exited before ${url} answered; output:\n${proc.output.slice(-20).join('\n')}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (response.status < 500) return;
    } catch {
      // not answering yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${proc.name} did not answer ${url} in time; output:\n${proc.output.slice(-20).join('\n')}`);
}

/**
 * The in-memory database of the built app (dist/, `npm run build` first): mongodb-memory-server or the
 * offline stand-in, as src/dev/local-database.ts decides.
 * @param {{ log?: (message: string) => void }} [options]
 * @returns {Promise<{ kind: string, uri: string, stop(): Promise<void> }>}
 */
function startInMemoryDatabase({ log = () => undefined } = {}) {
  const { startLocalDatabase } = require(path.join(PROJECT_ROOT, 'dist', 'dev', 'local-database.js'));
  return startLocalDatabase({ persistent: false, log });
}

/**
 * The built app (dist/server.js, NODE_ENV=development) for the live checks (tools/fuzz, tools/browser-check,
 * tools/spa-check): on a free port, on an in-memory database of its own unless `env.MONGODB_URI` names one,
 * with fresh JWT secrets and a temporary uploads folder; `env` adds or overrides settings. `stop()` ends
 * the server, then the database.
 * @param {import('./server').LiveApiOptions} [options]
 * @returns {Promise<import('./server').LiveApi>}
 */
async function startLiveApi({ env = {}, log = () => undefined, onLine, timeoutMs = 120_000 } = {}) {
  const database = env.MONGODB_URI ? undefined : await startInMemoryDatabase({ log });
  if (database) log(`database: ${database.kind}`);
  const uploadsDir = mkdtempSync(path.join(os.tmpdir(), 'live-server-uploads-'));
  const cleanUp = async () => {
    await database?.stop();
    rmSync(uploadsDir, { recursive: true, force: true });
  };
  try {
    const port = env.PORT ? Number(env.PORT) : await freePort();
    const server = await startServer({
      name: 'the API',
      args: [path.join(PROJECT_ROOT, 'dist', 'server.js')],
      env: {
        NODE_ENV: 'development',
        // fresh secrets for this run only; never written anywhere
        JWT_ACCESS_SECRET: randomBytes(32).toString('hex'),
        JWT_REFRESH_SECRET: randomBytes(32).toString('hex'),
        BCRYPT_COST: '10',
        LOG_LEVEL: 'error',
        // banners of a throw-away run go to a temporary folder, not the working tree's uploads/
        UPLOADS_DIR: uploadsDir,
        // stop at once when the check is done
        SHUTDOWN_TIMEOUTS: 'readiness=0',
        ...env,
        ...(database ? { MONGODB_URI: database.uri } : {}),
        PORT: String(port),
      },
      onLine,
      timeoutMs,
    });
    return {
      ...server,
      databaseKind: database?.kind ?? 'MONGODB_URI',
      async stop() {
        await server.stop();
        await cleanUp();
      },
    };
  } catch (error) {
    await cleanUp();
    throw error;
  }
}

module.exports = {
  PROJECT_ROOT,
  LISTENING_LINE,
  freePort,
  isolatedEnvironment,
  withDatabaseName,
  startProcess,
  startServer,
  startInMemoryDatabase,
  startLiveApi,
};
