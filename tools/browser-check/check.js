#!/usr/bin/env node
/**
 * Browser check of the reference page: headless Chromium (Debian's package, driven by playwright-core)
 * opens BASE_URL/api/v1/docs, waits for Swagger UI to render the operations, asserts that several are
 * listed, and fails on any Content-Security-Policy report, console error or failed request.
 * A screenshot goes to artifacts/browser-check/docs.png.
 *
 *   node tools/browser-check/check.js http://127.0.0.1:PORT
 */
'use strict';
const { mkdirSync } = require('node:fs');
const path = require('node:path');
const { launchChromium } = require('../lib/chromium');

const EXPECTED_OPERATIONS = [
  'GET /',
  'POST /auth/register',
  'POST /auth/login',
  'POST /auth/refresh-token',
  'POST /auth/logout',
  'GET /users/current',
  'PUT /users/current',
  'GET /users/',
  'DELETE /users/{userId}',
];
const SCREENSHOT = path.resolve(__dirname, '..', '..', 'artifacts', 'browser-check', 'docs.png');

async function main() {
  const baseUrl = process.argv[2];
  if (!baseUrl) throw new Error('usage: check.js BASE_URL');
  const problems = [];
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
    // CSP violations are reported to the page as events; record them from the first script on.
    await page.addInitScript(() => {
      window.__cspViolations = [];
      document.addEventListener('securitypolicyviolation', (event) => {
        window.__cspViolations.push(`${event.violatedDirective} blocked ${event.blockedURI}`);
      });
    });
    page.on('console', (message) => {
      const text = message.text();
      if (/content security policy/i.test(text)) problems.push(`CSP: ${text}`);
      else if (message.type() === 'error') problems.push(`console error: ${text}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('requestfailed', (request) =>
      problems.push(`request failed: ${request.url()} (${request.failure()?.errorText})`),
    );
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`HTTP ${response.status()} for ${response.url()}`);
      if (!response.url().startsWith(baseUrl)) problems.push(`request left the server: ${response.url()}`);
    });

    const response = await page.goto(`${baseUrl}/api/v1/docs`, { waitUntil: 'load', timeout: 30_000 });
    if (!response || response.status() !== 200) problems.push(`GET /api/v1/docs answered ${response?.status()}`);
    await page.waitForSelector('.opblock .opblock-summary-method', { timeout: 30_000 });
    await page.waitForLoadState('networkidle', { timeout: 30_000 });

    const listed = await page.$$eval('.opblock-summary', (summaries) =>
      summaries.map((summary) => {
        const method = summary.querySelector('.opblock-summary-method')?.textContent?.trim() ?? '';
        const pathElement = summary.querySelector('.opblock-summary-path');
        const route = pathElement?.getAttribute('data-path') ?? pathElement?.textContent?.trim() ?? '';
        return `${method} ${route.replace(/\u200b/g, '')}`;
      }),
    );
    for (const operation of EXPECTED_OPERATIONS) {
      if (!listed.includes(operation)) problems.push(`operation not listed: ${operation}`);
    }
    const title = await page.textContent('.information-container .title').catch(() => null);
    if (!title || !title.includes('Blog API')) problems.push(`title not rendered: ${title}`);
    problems.push(...(await page.evaluate(() => window.__cspViolations)).map((violation) => `CSP: ${violation}`));

    mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    console.log(
      `browser-check: ${listed.length} operations listed; screenshot ${path.relative(process.cwd(), SCREENSHOT)}`,
    );
  } finally {
    await browser.close();
  }
  if (problems.length > 0) {
    console.error(`browser-check: FAILED\n  - ${problems.join('\n  - ')}`);
    process.exit(1);
  }
  console.log('browser-check: passed (page rendered, no CSP report, no console error, no failed request)');
}

main().catch((error) => {
  console.error(`browser-check: FAILED: ${error && error.stack ? error.stack : error}`);
  process.exit(1);
});
