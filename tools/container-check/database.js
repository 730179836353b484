#!/usr/bin/env node
/**
 * The embedded database for the container check, on the host: mongodb-memory-server or the offline
 * stand-in, as src/dev/local-database.ts decides (dist/, `npm run build` first), in memory only.
 * The container reaches it on 127.0.0.1 because it runs with --network host.
 *
 *   node tools/container-check/database.js --ready-file FILE   # writes the URI to FILE, runs until SIGTERM
 */
'use strict';
const { writeFileSync } = require('node:fs');
const { startInMemoryDatabase } = require('../lib/server');

const readyFile = process.argv[process.argv.indexOf('--ready-file') + 1];

async function main() {
  const log = (message) => process.stderr.write(`[database] ${message}\n`);
  const database = await startInMemoryDatabase({ log });
  log(`${database.kind} at ${database.uri}`);
  writeFileSync(readyFile, database.uri);
  const stop = () => database.stop().finally(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error) => {
  process.stderr.write(`[database] failed: ${error && error.stack ? error.stack : error}\n`);
  process.exit(1);
});
