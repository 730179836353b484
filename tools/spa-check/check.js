#!/usr/bin/env node
/**
 * Proof that a browser, not only curl, can use the API: the example SPA (examples/spa/) in headless
 * Chromium (Debian's package, driven by playwright-core), its static server on one port and the built API
 * (tools/lib/server.js, `npm run build` first) on another, CORS_ORIGINS listing the SPA's origins.
 *
 * same-site  SPA http://localhost:P1, API http://localhost:P2, a phone-wide window: register, read the blog
 *            list (its banner's `srcset`: the browser fetches a variant, not the 1600-pixel banner), reload
 *            (the in-memory access token is gone: 401, refresh through the cookie, retry), log out.
 * cross-site SPA http://127.0.0.1:P1, API http://localhost:P2: register answers 201 but Chromium drops
 *            the SameSite cookie of a cross-site response, so refresh and logout answer 401
 *            "Refresh token required" and a reload signs the user out (docs/example-spa.md).
 *
 *   node tools/spa-check/check.js      (bash tools/spa-check/run.sh installs chromium and builds first)
 *
 * Screenshots and the API's log go to artifacts/spa-check/. The last line says passed or FAILED.
 */
'use strict';
const { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const sharp = require('sharp');
const { launchChromiumWithProfile } = require('../lib/chromium');
const { freePort, startLiveApi } = require('../lib/server');
const { startSpaServer } = require('../../examples/spa/serve');

const ROOT = path.resolve(__dirname, '..', '..');
const ARTIFACTS = path.join(ROOT, 'artifacts', 'spa-check');
const ADMIN = { email: 'admin@example.com', password: 'admin-password-1' };
const BLOG_TITLE = 'Hello from the example SPA check';
const STEP_TIMEOUT_MS = 30_000;

const log = (message) => console.log(`spa-check: ${message}`);

class CheckFailure extends Error {}
function expectEqual(actual, expected, what) {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) {
    throw new CheckFailure(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
}

/** The built API on a free port, with these origins allowed, its log in artifacts/spa-check/server.log. */
async function startApi(corsOrigins) {
  const serverLog = createWriteStream(path.join(ARTIFACTS, 'server.log'));
  const api = await startLiveApi({
    env: { CORS_ORIGINS: corsOrigins.join(','), ADMIN_EMAILS: ADMIN.email, RATE_LIMIT_MAX: '1000', LOG_LEVEL: 'warn' },
    log: (message) => serverLog.write(`[live-server] ${message}\n`),
    onLine: (line) => serverLog.write(`${line}\n`),
  }).catch((error) => {
    serverLog.end();
    throw new CheckFailure(
      `the API did not start (see ${path.relative(ROOT, ARTIFACTS)}/server.log): ${error.message}`,
    );
  });
  return {
    port: api.port,
    stop: async () => {
      await api.stop();
      serverLog.end();
    },
  };
}

/** A published blog for the list, created as an admin through the API (Node's fetch, no browser); its banner. */
async function seedBlog(apiBaseUrl) {
  const call = async (pathname, init) => {
    const response = await fetch(`${apiBaseUrl}${pathname}`, { ...init, signal: AbortSignal.timeout(STEP_TIMEOUT_MS) });
    const body = await response.json();
    if (!response.ok)
      throw new CheckFailure(`seeding: ${init.method} ${pathname} answered ${response.status} ${JSON.stringify(body)}`);
    return body;
  };
  const { accessToken } = await call('/auth/register', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ ...ADMIN, role: 'admin' }),
  });
  const banner = await sharp({ create: { width: 1600, height: 900, channels: 3, background: '#3366cc' } })
    .png()
    .toBuffer();
  const form = new FormData();
  form.set('title', BLOG_TITLE);
  form.set('content', '<p>Published for the browser check.</p>');
  form.set('status', 'published');
  form.set('banner_image', new Blob([banner], { type: 'image/png' }), 'banner.png');
  const { blog } = await call('/blogs/', {
    method: 'POST',
    headers: { Authorization: `Bearer ${accessToken}` },
    body: form,
  });
  return blog.banner;
}

/**
 * A browser with a profile of its own, set like a user's everyday browser: third-party cookies allowed
 * (Chrome's default outside incognito). Playwright's browser.newContext() is off the record, and headless
 * Chromium there drops every third-party cookie ("UserPreferences"), which would hide the SameSite rule
 * this check is about; Safari, Firefox's strict mode and incognito windows behave like that too.
 */
async function launchBrowser() {
  const profile = mkdtempSync(path.join(os.tmpdir(), 'spa-check-profile-'));
  mkdirSync(path.join(profile, 'Default'));
  writeFileSync(
    path.join(profile, 'Default', 'Preferences'),
    JSON.stringify({ profile: { cookie_controls_mode: 0, block_third_party_cookies: false } }),
  );
  const context = await launchChromiumWithProfile(profile);
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * A fresh browser (its own cookie jar) on the SPA at spaOrigin. Returns helpers that act on the page
 * and wait for what the SPA shows: its state, and the requests it lists (refresh and retry included).
 */
async function openSpa(spaOrigin, name) {
  const browser = await launchBrowser();
  const { context } = browser;
  const page = context.pages()[0] ?? (await context.newPage());
  const problems = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) =>
    problems.push(`request failed: ${request.url()} (${request.failure()?.errorText})`),
  );
  const bannerRequests = [];
  page.on('request', (request) => {
    if (request.url().includes('/uploads/banners/')) bannerRequests.push(request.url());
  });
  // Why Chromium refused a cookie, from the DevTools protocol (e.g. SameSiteStrict).
  const blockedCookies = [];
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  cdp.on('Network.responseReceivedExtraInfo', (event) => {
    for (const blocked of event.blockedCookies ?? []) {
      if (blocked.cookie?.name === 'refreshToken' || /^refreshToken=/.test(blocked.cookieLine ?? '')) {
        blockedCookies.push(...blocked.blockedReasons);
      }
    }
  });
  // The JSON bodies of the refresh answers, to name the 401's message.
  const refreshAnswers = [];
  page.on('response', (response) => {
    if (response.request().method() === 'POST' && response.url().endsWith('/auth/refresh-token')) {
      refreshAnswers.push(
        response.json().then(
          (body) => `${response.status()} ${body.message ?? (body.accessToken ? 'accessToken' : '')}`.trim(),
          () => `${response.status()}`,
        ),
      );
    }
  });
  let seenCalls = 0;

  /** Waits until the SPA lists `expected.length` more requests, and compares them. */
  async function expectCalls(expected, what) {
    const wanted = seenCalls + expected.length;
    const listed = () => page.$$eval('#calls li', (items) => items.map((item) => item.textContent));
    await page
      .waitForFunction((count) => document.querySelectorAll('#calls li').length >= count, wanted, {
        timeout: STEP_TIMEOUT_MS,
      })
      .catch(async () => {
        const calls = (await listed()).slice(seenCalls);
        throw new CheckFailure(
          `${name}, ${what}: requests ${JSON.stringify(calls)} within ${STEP_TIMEOUT_MS / 1000} s, expected ${JSON.stringify(expected)}`,
        );
      });
    const calls = await listed();
    seenCalls = calls.length;
    expectEqual(calls.slice(wanted - expected.length), expected, `${name}, ${what}: requests`);
  }
  async function expectState(state, what) {
    await page.waitForSelector(`#status[data-state="${state}"]`, { timeout: STEP_TIMEOUT_MS }).catch(async () => {
      throw new CheckFailure(
        `${name}, ${what}: state ${JSON.stringify(await page.getAttribute('#status', 'data-state'))}, expected ${state}; status "${await page.textContent('#status')}", error "${await page.textContent('#error')}"`,
      );
    });
  }
  /** The cookie as the browser would send it to the refresh route (cookies() filters by path too). */
  async function refreshCookie(apiOrigin) {
    return (await context.cookies(`${apiOrigin}/api/v1/auth/refresh-token`)).find(
      (cookie) => cookie.name === 'refreshToken',
    );
  }
  async function load() {
    seenCalls = 0;
    const response = await page.goto(spaOrigin, { waitUntil: 'load', timeout: STEP_TIMEOUT_MS });
    if (!response || response.status() !== 200)
      throw new CheckFailure(`${name}: GET ${spaOrigin} answered ${response?.status()}`);
  }
  async function screenshot(step) {
    await page.screenshot({ path: path.join(ARTIFACTS, `${name}-${step}.png`), fullPage: true });
  }
  return {
    page,
    context,
    close: browser.close,
    problems,
    bannerRequests,
    blockedCookies,
    refreshAnswers,
    expectCalls,
    expectState,
    refreshCookie,
    load,
    screenshot,
  };
}

const calls = {
  current: (status) => `GET /api/v1/users/current → ${status}`,
  refresh: (status) => `POST /api/v1/auth/refresh-token → ${status}`,
  register: (status) => `POST /api/v1/auth/register → ${status}`,
  blogs: (status) => `GET /api/v1/blogs/ → ${status}`,
  logout: (status) => `POST /api/v1/auth/logout → ${status}`,
};

async function register(spa, email) {
  await spa.page.fill('#email', email);
  await spa.page.fill('#password', 'password123');
  await spa.page.click('#register');
}

async function loadBlogs(spa, what) {
  await spa.page.click('#load-blogs');
  await spa.expectCalls([calls.blogs(200)], what);
  const titles = await spa.page.$$eval('#blogs li', (items) => items.map((item) => item.textContent));
  expectEqual(titles, [BLOG_TITLE], `${what}: blog titles listed`);
}

/**
 * The listed blog's banner, in a 360-pixel window: the browser chose from the `srcset` (the 640w variant
 * covers 360 CSS pixels at the density 1 of headless Chromium), and fetched no other banner file.
 */
async function expectBannerVariant(spa, banner) {
  const shown = await spa.page
    .waitForFunction(
      () => {
        const image = document.querySelector('#blogs img');
        return image?.complete && image.naturalWidth > 0 && image.currentSrc;
      },
      undefined,
      { timeout: STEP_TIMEOUT_MS },
    )
    .then((handle) => handle.jsonValue());
  const variants = banner.variants.map((variant) => variant.url);
  if (!variants.includes(shown) || spa.bannerRequests.some((url) => !variants.includes(url)))
    throw new CheckFailure(
      `same-site, banner: shown ${shown}, fetched ${JSON.stringify(spa.bannerRequests)}; expected variants only of ${JSON.stringify(variants)}`,
    );
  return banner.variants.find((variant) => variant.url === shown);
}

async function sameSite(spaOrigin, apiOrigin, banner) {
  const spa = await openSpa(spaOrigin, 'same-site');
  try {
    await spa.page.setViewportSize({ width: 360, height: 740 });
    await spa.load();
    await spa.expectCalls([calls.current(401), calls.refresh(401)], 'first visit');
    await spa.expectState('signed-out', 'first visit');

    await register(spa, 'reader.same-site@example.com');
    await spa.expectCalls([calls.register(201)], 'register');
    await spa.expectState('signed-in', 'register');
    const cookie = await spa.refreshCookie(apiOrigin);
    if (!cookie) throw new CheckFailure(`same-site, register: no refreshToken cookie stored for ${apiOrigin}`);
    expectEqual(
      [cookie.path, cookie.httpOnly],
      ['/api/v1/auth', true],
      'same-site, register: cookie path and httpOnly',
    );
    // Strict by default; Lax would be as good here and fail cross-site the same way. None would not.
    if (!['Strict', 'Lax'].includes(cookie.sameSite))
      throw new CheckFailure(`same-site, register: cookie SameSite=${cookie.sameSite}, expected Strict or Lax`);

    await loadBlogs(spa, 'same-site, blog list');
    const variant = await expectBannerVariant(spa, banner);

    // A reload loses the access token (memory only): 401, refresh through the cookie, one retry.
    await spa.load();
    await spa.expectCalls([calls.current(401), calls.refresh(200), calls.current(200)], 'reload');
    await spa.expectState('signed-in', 'reload');
    await loadBlogs(spa, 'same-site, blog list after the refresh');
    await spa.screenshot('signed-in');

    await spa.page.click('#logout');
    await spa.expectCalls([calls.logout(200)], 'logout');
    await spa.expectState('signed-out', 'logout');
    if (await spa.refreshCookie(apiOrigin))
      throw new CheckFailure('same-site, logout: the refreshToken cookie is still stored');

    await spa.load();
    await spa.expectCalls([calls.current(401), calls.refresh(401)], 'reload after logout');
    await spa.expectState('signed-out', 'reload after logout');
    if (spa.problems.length > 0) throw new CheckFailure(`same-site: ${spa.problems.join('; ')}`);
    log(
      `same-site: register 201 (cookie SameSite=${cookie.sameSite}), blog list (360 px wide: the ${variant.width}w variant of the banner's ${banner.variants.length}), reload refreshed through the cookie (401, refresh 200, retry 200), logout 200`,
    );
  } finally {
    await spa.close();
  }
}

async function crossSite(spaOrigin, apiOrigin) {
  const spa = await openSpa(spaOrigin, 'cross-site');
  try {
    await spa.load();
    await spa.expectCalls([calls.current(401), calls.refresh(401)], 'first visit');
    await spa.expectState('signed-out', 'first visit');

    await register(spa, 'reader.cross-site@example.com');
    await spa.expectCalls([calls.register(201)], 'register');
    await spa.expectState('signed-in', 'register');
    // The documented failure: the API set the cookie, Chromium refused it for a cross-site response.
    if (await spa.refreshCookie(apiOrigin))
      throw new CheckFailure(
        'cross-site, register: the refreshToken cookie was stored; the documented failure did not happen',
      );

    // The access token in memory still works: the list needs no cookie.
    await loadBlogs(spa, 'cross-site, blog list');

    // No cookie, so logout cannot name the session: 401, and the client's one refresh fails too.
    await spa.page.click('#logout');
    await spa.expectCalls([calls.logout(401), calls.refresh(401)], 'logout');
    const error = await spa.page.textContent('#error');
    // the message goes on to say what to check (credentials: 'include', the same-site rule)
    if (!error?.startsWith('AuthenticationError: Refresh token required:')) {
      throw new CheckFailure(
        `cross-site, logout: error shown ${JSON.stringify(error)}, expected "Refresh token required: ..."`,
      );
    }
    await spa.screenshot('logout-refused');

    // A reload signs the user out: nothing proves the session any more.
    await spa.load();
    await spa.expectCalls([calls.current(401), calls.refresh(401)], 'reload');
    await spa.expectState('signed-out', 'reload');

    const refreshes = await Promise.all(spa.refreshAnswers);
    if (!refreshes.every((answer) => answer.startsWith('401 Refresh token required:'))) {
      throw new CheckFailure(
        `cross-site: refresh answers ${JSON.stringify(refreshes)}, expected only 401 "Refresh token required"`,
      );
    }
    if (spa.problems.length > 0) throw new CheckFailure(`cross-site: ${spa.problems.join('; ')}`);
    const reasons = [...new Set(spa.blockedCookies)];
    if (!reasons.some((reason) => reason.includes('SameSite'))) {
      throw new CheckFailure(
        `cross-site: Chromium gave ${JSON.stringify(reasons)} for dropping the cookie, expected a SameSite reason`,
      );
    }
    log(
      `cross-site: register 201 but the cookie was dropped (Chromium's reason: ${reasons.join(', ') || 'not reported'}), ` +
        `so refresh answered 401 "Refresh token required" ${refreshes.length} times and logout 401, as documented`,
    );
  } finally {
    await spa.close();
  }
}

async function main() {
  mkdirSync(ARTIFACTS, { recursive: true });
  // The SPA's server listens on 127.0.0.1 and is reached as localhost (same-site with the API) and
  // as 127.0.0.1 (cross-site); the API's origin is http://localhost:P2 in both setups.
  let spaServer;
  let api;
  try {
    // The API's port is known only once it runs, and it must list the SPA's origins: pick the SPA's
    // port first, then start the API, then the SPA's server on that port.
    const spaPort = await freePort();
    api = await startApi([`http://localhost:${spaPort}`, `http://127.0.0.1:${spaPort}`]);
    const apiOrigin = `http://localhost:${api.port}`;
    spaServer = await startSpaServer({ apiBaseUrl: `${apiOrigin}/api/v1`, host: '127.0.0.1', port: spaPort });
    log(`API on ${apiOrigin}, SPA served on port ${spaPort}`);
    const banner = await seedBlog(`http://127.0.0.1:${api.port}/api/v1`);
    await sameSite(`http://localhost:${spaPort}`, apiOrigin, banner);
    await crossSite(`http://127.0.0.1:${spaPort}`, apiOrigin);
  } finally {
    await spaServer?.close();
    await api?.stop();
  }
  log(
    'passed (same-site: signed in, a banner variant from srcset, refreshed and logged out; cross-site: refresh 401 as documented)',
  );
}

main().catch((error) => {
  console.error(
    `spa-check: FAILED: ${error instanceof CheckFailure ? error.message : error && error.stack ? error.stack : error}`,
  );
  process.exit(1);
});
