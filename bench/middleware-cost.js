// @ts-check
/**
 * What the framework costs before a handler runs, without a database: a small JSON answer served by
 * plain node:http, by Express with a router only, by Express with the API's middleware chain (as
 * src/app.ts builds it, from the built dist/), and by that chain without each piece in turn. CPU time
 * per request is this process's (server and load generator together), so compare rows, not absolutes.
 *
 *   npm run build && node bench/middleware-cost.js      (BENCH_DURATION seconds per row, 3; BENCH_ROUNDS, 2)
 */
'use strict';
const http = require('node:http');
const path = require('node:path');
const autocannon = require('autocannon');
const compression = require('compression');
const cookieParser = require('cookie-parser');
const cors = require('cors');
const express = require('express');
const helmet = require('helmet');

const dist = path.resolve(__dirname, '..', 'dist');
const { createRateLimiter } = require(path.join(dist, 'middlewares', 'rate-limit'));
const { requestLogger } = require(path.join(dist, 'middlewares', 'request-logger'));
const { createLogger } = require(path.join(dist, 'lib', 'logger'));
const { JSON_API_SECURITY_HEADERS } = require(path.join(dist, 'app'));

const duration = Number(process.env.BENCH_DURATION ?? 3);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const logger = createLogger({ level: 'warn', json: true });
const BODY = {
  user: {
    _id: '5f0000000000000000000001',
    username: 'benchuser10',
    role: 'user',
    socialLinks: {},
    createdAt: new Date(0),
  },
};

/** The chain of src/app.ts in its order, with the settings the benchmark gives the API. */
const chain = {
  'request log + id': () => requestLogger({ logger }),
  helmet: () => helmet(JSON_API_SECURITY_HEADERS),
  cors: () => cors({ origin: false, credentials: true }),
  compression: () => compression({ threshold: 1024 }),
  'rate limit': () => createRateLimiter({ max: 1e9, windowMs: 60_000, logger }),
  'json parser': () => express.json(),
  'cookie parser': () => cookieParser(),
};

function expressApp(pieces) {
  const app = express();
  app.disable('x-powered-by');
  for (const piece of pieces) app.use(chain[piece]());
  const router = express.Router();
  router.get('/', (_req, res) => res.json(BODY));
  app.use('/api/v1', router);
  return http.createServer(app);
}

function bareServer() {
  return http.createServer((_req, res) => {
    const json = JSON.stringify(BODY);
    res.writeHead(200, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(json),
    });
    res.end(json);
  });
}

async function measure(server) {
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  const before = process.cpuUsage();
  const result = await new Promise((resolve, reject) =>
    autocannon({ url: `http://127.0.0.1:${port}/api/v1/`, connections: 10, duration }, (error, res) =>
      error ? reject(error) : resolve(res),
    ),
  );
  const used = process.cpuUsage(before);
  server.close();
  return { rps: result.requests.average, cpuUs: (used.user + used.system) / result.requests.total };
}

async function main() {
  const all = Object.keys(chain);
  const variants = [
    ['node:http only', () => bareServer()],
    ['express + router', () => expressApp([])],
    ['express + the API chain', () => expressApp(all)],
    ...all.map((piece) => [`  … without ${piece}`, () => expressApp(all.filter((p) => p !== piece))]),
  ];
  const totals = new Map(variants.map(([name]) => [name, { rps: 0, cpuUs: 0 }]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, make] of variants) {
      const figures = await measure(make());
      const total = totals.get(name);
      total.rps += figures.rps / rounds;
      total.cpuUs += figures.cpuUs / rounds;
    }
  }
  process.stdout.write(`${'variant'.padEnd(34)}${'req/s'.padStart(8)}${'µs CPU/req'.padStart(12)}\n`);
  for (const [name, total] of totals)
    process.stdout.write(
      `${name.padEnd(34)}${total.rps.toFixed(0).padStart(8)}${total.cpuUs.toFixed(0).padStart(12)}\n`,
    );
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
