#!/usr/bin/env node
/**
 * The example SPA's static server (node:http, no framework): index.html, app.js, config.js (the API's
 * base URL) and client.js, the typed client (clients/typescript/index.ts) bundled for the browser by
 * esbuild when the server starts, so the page needs no build step of its own.
 *
 *   node examples/spa/serve.js [--port 5173] [--host localhost] [--api http://localhost:3000/api/v1]
 *
 * The API must list this page's origin in CORS_ORIGINS, and for the refresh cookie to travel the page
 * and the API must be same-site (docs/example-spa.md). tools/spa-check/check.js uses startSpaServer().
 */
'use strict';
const { readFileSync } = require('node:fs');
const http = require('node:http');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');

/** The typed client as one ES module for the browser. */
async function bundleClient() {
  const esbuild = require('esbuild');
  const result = await esbuild.build({
    entryPoints: [path.join(ROOT, 'clients', 'typescript', 'index.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2020',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}

/**
 * Starts the server; resolves once it listens.
 * @param {{ apiBaseUrl: string, port?: number, host?: string }} options
 * @returns {Promise<{ server: http.Server, port: number, close: () => Promise<void> }>}
 */
async function startSpaServer({ apiBaseUrl, port = 0, host = 'localhost' }) {
  const files = {
    '/index.html': ['text/html; charset=utf-8', readFileSync(path.join(__dirname, 'index.html'))],
    '/app.js': ['text/javascript; charset=utf-8', readFileSync(path.join(__dirname, 'app.js'))],
    '/client.js': ['text/javascript; charset=utf-8', await bundleClient()],
    '/config.js': ['text/javascript; charset=utf-8', `export const API_BASE_URL = ${JSON.stringify(apiBaseUrl)};\n`],
  };
  const server = http.createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://spa.invalid').pathname;
    // the pages the API links to (SITE_URL/reset-password?token=..., SITE_URL/preview?token=...) are this one too
    const file = files[['/', '/reset-password', '/preview'].includes(pathname) ? '/index.html' : pathname];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD' }).end();
    } else if (!file) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found\n');
    } else {
      res
        .writeHead(200, { 'Content-Type': file[0], 'Cache-Control': 'no-store' })
        .end(req.method === 'HEAD' ? undefined : file[1]);
    }
  });
  await new Promise((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
  return {
    server,
    port: server.address().port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function option(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 && process.argv[index + 1] ? process.argv[index + 1] : fallback;
}

if (require.main === module) {
  const apiBaseUrl = option('api', 'http://localhost:3000/api/v1');
  const host = option('host', 'localhost');
  startSpaServer({ apiBaseUrl, host, port: Number(option('port', '5173')) })
    .then(({ port }) => {
      const origin = `http://${host}:${port}`;
      console.log(`example SPA on ${origin} (API ${apiBaseUrl}; the API needs CORS_ORIGINS=${origin})`);
    })
    .catch((error) => {
      console.error(`example SPA: ${error.message}`);
      process.exit(1);
    });
}

module.exports = { startSpaServer };
