#!/usr/bin/env node
/**
 * A live server for the checks that need one (tools/fuzz, tools/browser-check): the built app
 * (dist/, `npm run build` first) on an in-memory local database (mongodb-memory-server or the
 * offline stand-in, as src/dev/local-database.ts decides), listening on 127.0.0.1 only.
 *
 *   node tools/live-server/start.js --ready-file FILE
 *
 * Writes the base URL (http://127.0.0.1:PORT) to FILE once it answers, and runs until SIGTERM/SIGINT.
 * The environment may set RATE_LIMIT_MAX, LOGIN_MAX_FAILURES_PER_*, ADMIN_EMAILS, PORT (default: a free port) and LOG_LEVEL.
 */
'use strict';
const { randomBytes } = require('node:crypto');
const { mkdtempSync, writeFileSync } = require('node:fs');
const os = require('node:os');
const net = require('node:net');
const path = require('node:path');

const dist = path.resolve(__dirname, '..', '..', 'dist');
const { createApp } = require(path.join(dist, 'app'));
const { loadConfig } = require(path.join(dist, 'config'));
const { connectDatabase, disconnectDatabase } = require(path.join(dist, 'lib', 'database'));
const { startLocalDatabase } = require(path.join(dist, 'dev', 'local-database'));
const { createLogger } = require(path.join(dist, 'lib', 'logger'));

const readyFileIndex = process.argv.indexOf('--ready-file');
const readyFile = readyFileIndex > 0 ? process.argv[readyFileIndex + 1] : undefined;

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

async function main() {
  const log = (message) => process.stderr.write(`[live-server] ${message}\n`);
  const database = await startLocalDatabase({ persistent: false, log });
  log(`database: ${database.kind}`);
  const port = Number(process.env.PORT) || (await freePort());
  const { config } = loadConfig({
    NODE_ENV: 'development',
    // Fresh secrets for this run only; never written anywhere.
    JWT_ACCESS_SECRET: randomBytes(32).toString('hex'),
    JWT_REFRESH_SECRET: randomBytes(32).toString('hex'),
    BCRYPT_COST: '10',
    LOG_LEVEL: 'error',
    // banners of this throw-away run go to a temporary folder, not the working tree's uploads/
    UPLOADS_DIR: mkdtempSync(path.join(os.tmpdir(), 'live-server-uploads-')),
    ...process.env,
    MONGODB_URI: database.uri,
    PORT: String(port),
  });
  await connectDatabase({ uri: database.uri, dbName: 'live' });
  const logger = createLogger({ level: config.logLevel, json: true });
  const server = createApp({ config, logger }).listen(port, '127.0.0.1');
  await new Promise((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const baseUrl = `http://127.0.0.1:${port}`;
  if (readyFile) writeFileSync(readyFile, baseUrl);
  log(`listening on ${baseUrl}/api/v1`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    server.close();
    server.closeAllConnections();
    await disconnectDatabase();
    await database.stop();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error) => {
  process.stderr.write(`[live-server] failed: ${error && error.stack ? error.stack : error}\n`);
  process.exit(1);
});
