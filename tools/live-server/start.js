#!/usr/bin/env node
/**
 * A live server for the checks run from bash (tools/fuzz, tools/browser-check): the built app
 * (dist/server.js, `npm run build` first) on an in-memory local database, started by tools/lib/server.js
 * (startLiveApi, which tools/spa-check calls directly).
 *
 *   node tools/live-server/start.js --ready-file FILE
 *
 * Writes the base URL (http://127.0.0.1:PORT) to FILE once it answers, and runs until SIGTERM/SIGINT.
 * The server's log goes to this process's stderr. The environment may set any of the app's settings
 * (RATE_LIMIT_MAX, LOGIN_MAX_FAILURES_PER_*, ADMIN_EMAILS, CORS_ORIGINS, LOG_LEVEL, ...) and PORT
 * (default: a free port); .env is not read.
 */
'use strict';
const { writeFileSync } = require('node:fs');
const { startLiveApi } = require('../lib/server');

const readyFileIndex = process.argv.indexOf('--ready-file');
const readyFile = readyFileIndex > 0 ? process.argv[readyFileIndex + 1] : undefined;
const log = (message) => process.stderr.write(`[live-server] ${message}\n`);

async function main() {
  let api;
  let stopping = false;
  const stop = async () => {
    stopping = true;
    // a signal during start-up is handled once the server is up (below), so that nothing is left running
    if (!api) return;
    const running = api;
    api = undefined;
    await running.stop();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  // the caller's settings, but never its database nor its .env: a check's writes go to the in-memory database
  const { MONGODB_URI: _uri, DOTENV_CONFIG_PATH: _dotenv, ...env } = process.env;
  api = await startLiveApi({ env, log, onLine: (line) => process.stderr.write(`${line}\n`) });
  if (stopping) return stop();
  // the server ending on its own is a failure of the check that relies on it
  void api.exited.then((code) => {
    if (stopping) return;
    log(`the server exited (${code})`);
    process.exit(1);
  });
  if (readyFile) writeFileSync(readyFile, api.baseUrl);
  log(`listening on ${api.baseUrl}/api/v1 (database: ${api.databaseKind})`);
}

main().catch((error) => {
  log(`failed: ${error && error.stack ? error.stack : error}`);
  process.exit(1);
});
