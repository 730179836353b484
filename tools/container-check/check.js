#!/usr/bin/env node
/**
 * What a client sees of the container: ready, a registration, a blog with a banner (stored on the
 * container's disk and served back), and its own requests counted in /metrics. Exits 1 at the first
 * thing that is not as it should be.
 *
 *   node tools/container-check/check.js http://127.0.0.1:PORT ADMIN_EMAIL
 */
'use strict';
const path = require('node:path');
const sharp = require(require.resolve('sharp', { paths: [path.resolve(__dirname, '..', '..')] }));

const [baseUrl, adminEmail] = process.argv.slice(2);
const REQUEST_TIMEOUT_MS = 10_000;
const READY_TIMEOUT_MS = 90_000;

const call = (pathname, init = {}) =>
  fetch(`${baseUrl}${pathname}`, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });

function expectStatus(what, response, status) {
  if (response.status !== status) throw new Error(`${what}: expected ${status}, got ${response.status}`);
  console.log(`${what}: ${status}`);
}

async function waitUntilReady() {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let last = 'no answer';
  while (Date.now() < deadline) {
    try {
      const response = await call('/readyz');
      if (response.status === 200) return response;
      last = `${response.status} ${await response.text()}`;
    } catch (error) {
      last = error.cause ? error.cause.code || error.cause.message : error.message;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`GET /readyz: not 200 within ${READY_TIMEOUT_MS / 1000} s (last: ${last})`);
}

async function main() {
  expectStatus('GET /readyz', await waitUntilReady(), 200);

  const register = await call('/api/v1/auth/register', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: adminEmail, password: 'container-check-password', role: 'admin' }),
  });
  expectStatus('POST /api/v1/auth/register', register, 201);
  const { accessToken } = await register.json();

  const width = 96;
  const height = 64;
  const pixels = Buffer.alloc(width * height * 3, 0);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 31) % 251;
  const banner = await sharp(pixels, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
  const form = new FormData();
  form.set('title', 'Published from the container check');
  form.set('content', '<p>Served by the image built in CI</p>');
  form.set('status', 'published');
  form.set('banner_image', new Blob([banner], { type: 'image/png' }), 'banner.png');
  const upload = await call('/api/v1/blogs/', {
    method: 'POST',
    headers: { Authorization: `Bearer ${accessToken}` },
    body: form,
  });
  expectStatus('POST /api/v1/blogs/ (multipart, PNG banner)', upload, 201);
  const { blog } = await upload.json();
  if (blog.banner.width !== width || blog.banner.height !== height)
    throw new Error(`banner size ${blog.banner.width}x${blog.banner.height}`);

  const bannerUrl = new URL(blog.banner.url);
  const served = await call(bannerUrl.pathname);
  expectStatus(`GET ${bannerUrl.pathname}`, served, 200);
  // The API re-encodes every banner (only the pixels are kept), so the pixels are compared, not the bytes.
  const servedPixels = await sharp(Buffer.from(await served.arrayBuffer()))
    .removeAlpha()
    .raw()
    .toBuffer();
  if (!servedPixels.equals(pixels)) throw new Error("the served banner's pixels differ from the uploaded ones");

  // node_modules is pruned in the image (Dockerfile): the reference page's assets must still be there
  expectStatus(
    'GET /api/v1/docs/assets/swagger-ui-bundle.js',
    await call('/api/v1/docs/assets/swagger-ui-bundle.js'),
    200,
  );

  const metrics = await call('/metrics');
  expectStatus('GET /metrics', metrics, 200);
  const text = await metrics.text();
  const counted = 'http_requests_total{method="POST",route="/api/v1/blogs/",status="201"} 1';
  if (!text.includes(counted)) throw new Error(`/metrics lacks ${counted}`);
  if (!/^nodejs_eventloop_lag_seconds /m.test(text)) throw new Error('/metrics lacks the process metrics');
  // server.ts attaches the driver's pool events (command events only with MONGODB_COMMAND_METRICS=true)
  if (!/^mongodb_pool_checkout_wait_seconds_count [1-9]/m.test(text)) {
    throw new Error("/metrics lacks the MongoDB pool's checkouts");
  }
  console.log("GET /metrics: counts the blog upload, MongoDB's pool checkouts and the process");
}

main().catch((error) => {
  console.error(`check failed: ${error.message}`);
  process.exit(1);
});
