#!/usr/bin/env node
/**
 * SIGTERM with a request in flight: starts a login whose body arrives slowly, sends the container
 * SIGTERM half-way (podman kill), checks that new connections are refused by then, finishes the
 * body, and expects the login's answer all the same (404: no such user). Exits 1 otherwise.
 *
 *   node tools/container-check/drain.js http://127.0.0.1:PORT CONTAINER
 */
'use strict';
const { execFileSync } = require('node:child_process');
const http = require('node:http');

const [baseUrl, container] = process.argv.slice(2);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function main() {
  const body = JSON.stringify({ email: 'nobody@container-check.example', password: 'not-a-real-password' });
  const half = Math.floor(body.length / 2);
  const request = http.request(`${baseUrl}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
    timeout: 30_000,
  });
  const answered = new Promise((resolve, reject) => {
    request.on('response', (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode));
    });
    request.on('timeout', () => request.destroy(new Error('no answer within 30 s')));
    request.on('error', reject);
  });
  request.write(body.slice(0, half));
  request.flushHeaders();
  await sleep(500);

  execFileSync('podman', ['kill', '--signal', 'TERM', container], { stdio: 'ignore', timeout: 30_000 });
  console.log('SIGTERM sent with a login request in flight');

  // First /readyz answers 503 while requests are still served (SHUTDOWN_TIMEOUTS' readiness), then the
  // listening socket closes: wait (bounded) until a new connection is refused, noting the 503 on the way.
  let refused = false;
  let sawNotReady = false;
  for (let attempt = 0; attempt < 100 && !refused; attempt += 1) {
    try {
      const probe = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(1000) });
      if (probe.status === 503) sawNotReady = true;
      await sleep(100);
    } catch {
      refused = true;
    }
  }
  if (!refused) throw new Error('new connections were still accepted 10 s after SIGTERM');
  if (!sawNotReady) throw new Error('/readyz never answered 503 between SIGTERM and the listener closing');
  console.log('/readyz 503, then new connections refused after SIGTERM');

  request.end(body.slice(half));
  const status = await answered;
  if (status !== 404) throw new Error(`the request in flight got ${status}, expected 404 (no such user)`);
  console.log(`the request in flight was answered: ${status}`);
}

main().catch((error) => {
  console.error(`drain check failed: ${error.message}`);
  process.exit(1);
});
