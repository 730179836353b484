#!/usr/bin/env node
/**
 * Proof that a browser, not only curl, can use the API: the example SPA (examples/spa/) in headless
 * Chromium (Debian's package, driven by playwright-core), its static server on one port and the built API
 * (tools/lib/server.js, `npm run build` first) on another, CORS_ORIGINS listing the SPA's origins.
 *
 * same-site  SPA http://localhost:P1, API http://localhost:P2, a phone-wide window: register, read the blog
 *            list (each card's image: the banner's 640-pixel variant, not the 1600-pixel banner) and
 *            filter it by a tag, reload (the in-memory access token is gone: 401, refresh through the
 *            cookie, retry), log out.
 * cross-site SPA http://127.0.0.1:P1, API http://localhost:P2: register answers 201 but Chromium drops
 *            the SameSite cookie of a cross-site response, so refresh and logout answer 401
 *            "Refresh token required" and a reload signs the user out (docs/example-spa.md).
 * forgot     same-site: "Forgot password?" answers 202; the link of the mail an SMTP server in this
 *            process receives opens the SPA's reset page, which sets a new password and signs in.
 * admin      same-site: an admin registers a webhook (a receiver in this process), schedules a draft a
 *            few seconds ahead (it goes live by itself, its blog.published arrives signed with the secret
 *            the page showed), opens another draft's preview link in a browser not signed in, trashes
 *            the draft (the link is dead), restores it and publishes it by hand.
 *
 *   node tools/spa-check/check.js      (bash tools/spa-check/run.sh installs chromium and builds first)
 *
 * Screenshots and the API's log go to artifacts/spa-check/. The last line says passed or FAILED.
 */
'use strict';
const { createHmac } = require('node:crypto');
const { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { simpleParser } = require('mailparser');
const sharp = require('sharp');
const { SMTPServer } = require('smtp-server');
const { launchChromiumWithProfile } = require('../lib/chromium');
const { freePort, startLiveApi } = require('../lib/server');
const { startSpaServer } = require('../../examples/spa/serve');

const ROOT = path.resolve(__dirname, '..', '..');
const ARTIFACTS = path.join(ROOT, 'artifacts', 'spa-check');
const ADMIN = { email: 'admin@example.com', password: 'admin-password-1' };
const BLOG_TITLE = 'Hello from the example SPA check';
const BLOG_TAG = 'browser-check';
const OTHER_TITLE = 'An older post without that tag';
const STEP_TIMEOUT_MS = 30_000;

const log = (message) => console.log(`spa-check: ${message}`);

class CheckFailure extends Error {}
function expectEqual(actual, expected, what) {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) {
    throw new CheckFailure(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
}

/** An SMTP server in this process for the API's mail: each delivered message parsed, for the check to read. */
async function startMailServer() {
  const delivered = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream).then((mail) => {
        delivered.push(mail);
        callback();
      }, callback);
    },
  });
  const port = await freePort();
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `smtp://127.0.0.1:${port}?from=${encodeURIComponent('Blog <no-reply@spa-check.test>')}`,
    /** The link of the next mail to `to` (waiting up to STEP_TIMEOUT_MS). */
    async nextLinkTo(to) {
      const deadline = Date.now() + STEP_TIMEOUT_MS;
      for (;;) {
        const index = delivered.findIndex((mail) => mail.to?.value.some((recipient) => recipient.address === to));
        if (index >= 0) {
          const [mail] = delivered.splice(index, 1);
          const link = /https?:\/\/\S+\?token=[\w-]+/.exec(mail.text ?? '')?.[0];
          if (!link) throw new CheckFailure(`forgot: the mail to ${to} carries no link: ${JSON.stringify(mail.text)}`);
          return link;
        }
        if (Date.now() > deadline)
          throw new CheckFailure(`forgot: no mail to ${to} within ${STEP_TIMEOUT_MS / 1000} s`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** The built API on a free port, with these origins allowed, its log in artifacts/spa-check/server.log. */
async function startApi(corsOrigins, mailEnv) {
  const serverLog = createWriteStream(path.join(ARTIFACTS, 'server.log'));
  const api = await startLiveApi({
    env: {
      CORS_ORIGINS: corsOrigins.join(','),
      ADMIN_EMAILS: ADMIN.email,
      RATE_LIMIT_MAX: '1000',
      LOG_LEVEL: 'warn',
      ...mailEnv,
    },
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

/** Two published blogs for the list, created as an admin through the API (Node's fetch, no browser); their banners, newest first. */
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
  // the older first: lists go newest first; the banners, newest first, as the list shows them
  const banners = [];
  for (const [title, tags] of [
    [OTHER_TITLE, 'other'],
    [BLOG_TITLE, BLOG_TAG],
  ]) {
    const form = new FormData();
    form.set('title', title);
    form.set('content', '<p>Published for the browser check.</p>');
    form.set('status', 'published');
    form.set('tags', tags);
    form.set('banner_image', new Blob([banner], { type: 'image/png' }), 'banner.png');
    const { blog } = await call('/blogs/', {
      method: 'POST',
      headers: { Authorization: `Bearer ${accessToken}` },
      body: form,
    });
    banners.unshift(blog.banner);
  }
  return banners;
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
  /** Loads the SPA (or one of its pages, such as a mailed link's), with a fresh list of requests. */
  async function load(url = spaOrigin) {
    seenCalls = 0;
    const response = await page.goto(url, { waitUntil: 'load', timeout: STEP_TIMEOUT_MS });
    if (!response || response.status() !== 200)
      throw new CheckFailure(`${name}: GET ${url} answered ${response?.status()}`);
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
  tags: (status) => `GET /api/v1/tags/ → ${status}`,
  logout: (status) => `POST /api/v1/auth/logout → ${status}`,
  forgot: (status) => `POST /api/v1/auth/forgot-password → ${status}`,
  reset: (status) => `POST /api/v1/auth/reset-password → ${status}`,
};

async function register(spa, email) {
  await spa.page.fill('#email', email);
  await spa.page.fill('#password', 'password123');
  await spa.page.click('#register');
}

async function loadBlogs(spa, what) {
  await spa.page.click('#load-blogs');
  await spa.expectCalls([calls.blogs(200), calls.tags(200)], what);
  const titlesListed = () => spa.page.$$eval('#blogs li .title', (items) => items.map((item) => item.textContent));
  expectEqual(await titlesListed(), [BLOG_TITLE, OTHER_TITLE], `${what}: blog titles listed`);
  // the tag filter: a tag of the tag list (GET /tags) lists that tag's posts only (?tag=)
  await spa.page.click(`#tags button[data-tag="${BLOG_TAG}"]`);
  await spa.expectCalls([calls.blogs(200), calls.tags(200)], `${what}, tag filter`);
  await spa.page.waitForFunction((tag) => document.querySelector('#blogs').dataset.tag === tag, BLOG_TAG);
  expectEqual(await titlesListed(), [BLOG_TITLE], `${what}: the tag's posts listed`);
  // the search box: the post whose title holds the word, its snippet's match marked (?q=, snippets);
  // once the listed banners have loaded, so that replacing the list aborts no image request
  await spa.page.waitForFunction(() => [...document.querySelectorAll('#blogs img')].every((image) => image.complete));
  await spa.page.fill('#q', 'greetings hello');
  await spa.page.click('#search button');
  await spa.expectCalls([calls.blogs(200)], `${what}, search`);
  await spa.page.waitForFunction(() => document.querySelector('#blogs').dataset.search === 'greetings hello');
  expectEqual(await titlesListed(), [], `${what}: no post holds both words`);
  await spa.page.fill('#q', 'hello');
  await spa.page.click('#search button');
  await spa.expectCalls([calls.blogs(200)], `${what}, search`);
  await spa.page.waitForFunction(() => document.querySelector('#blogs').dataset.search === 'hello');
  expectEqual(await titlesListed(), [BLOG_TITLE], `${what}: the search's post listed`);
  const marked = await spa.page.$$eval('#blogs li .snippet mark', (marks) => marks.map((mark) => mark.textContent));
  expectEqual(marked, ['Hello'], `${what}: the snippet's marked words`);
  // the search's banner too has loaded before the caller goes on (a reload would abort its request)
  await spa.page.waitForFunction(() => [...document.querySelectorAll('#blogs img')].every((image) => image.complete));
}

/**
 * The first listed blog's image, in a 360-pixel window: the card's, the 640w variant of its banner; the
 * browser fetched no banner file, only the card-sized variants of the listed blogs.
 */
async function expectBannerVariant(spa, banners) {
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
  const cardImage = (banner) => banner.variants.find((variant) => variant.width === 640);
  const listed = banners.map((banner) => cardImage(banner)?.url);
  if (shown !== listed[0] || spa.bannerRequests.some((url) => !listed.includes(url)))
    throw new CheckFailure(
      `same-site, banner: shown ${shown}, fetched ${JSON.stringify(spa.bannerRequests)}; expected only the cards' images ${JSON.stringify(listed)}`,
    );
  return cardImage(banners[0]);
}

async function sameSite(spaOrigin, apiOrigin, banners) {
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
    const variant = await expectBannerVariant(spa, banners);

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
      `same-site: register 201 (cookie SameSite=${cookie.sameSite}), blog list (360 px wide: the card's image, the ${variant.width}w variant of the banner's ${banners[0].variants.length}), its tag filter and search box, reload refreshed through the cookie (401, refresh 200, retry 200), logout 200`,
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

/** "Forgot password?" for the account the same-site run registered, then the mailed link's reset page. */
async function forgotPassword(spaOrigin, apiOrigin, mail) {
  const email = 'reader.same-site@example.com';
  const spa = await openSpa(spaOrigin, 'forgot');
  try {
    await spa.load();
    await spa.expectCalls([calls.current(401), calls.refresh(401)], 'first visit');
    await spa.page.fill('#email', email);
    await spa.page.click('#forgot');
    await spa.expectCalls([calls.forgot(202)], 'forgot password');
    await spa.page.waitForFunction(() => document.querySelector('#notice').textContent !== '', null, {
      timeout: STEP_TIMEOUT_MS,
    });

    const link = await mail.nextLinkTo(email);
    if (!link.startsWith(`${spaOrigin}/reset-password?token=`))
      throw new CheckFailure(`forgot: the mailed link ${link} does not open ${spaOrigin}/reset-password`);
    await spa.load(link);
    await spa.expectCalls([calls.current(401), calls.refresh(401)], 'reset page');
    expectEqual(new URL(spa.page.url()).search, '', 'forgot: the token left the address bar');
    await spa.page.fill('#new-password', 'a new password 1');
    await spa.page.click('#reset button');
    await spa.expectCalls([calls.reset(200)], 'reset');
    await spa.expectState('signed-in', 'reset');
    if (!(await spa.refreshCookie(apiOrigin))) throw new CheckFailure('forgot, reset: no refreshToken cookie stored');
    await spa.screenshot('reset');
    if (spa.problems.length > 0) throw new CheckFailure(`forgot: ${spa.problems.join('; ')}`);
    log('forgot: "Forgot password?" 202, the mailed link opened the reset page, reset 200 and signed in');
  } finally {
    await spa.close();
  }
}

/** A webhook receiver on 127.0.0.1 keeping each delivery's event, body and signature header; answers 204. */
async function startWebhookReceiver() {
  const received = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ event: req.headers['webhook-event'], signature: req.headers['webhook-signature'], body });
      res.writeHead(204).end();
    });
  });
  const port = await freePort();
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}/hook`,
    /** The blog.published delivery of the post titled `title` (waiting up to 30 s past `afterMs`). */
    async published(title, afterMs = 0) {
      const deadline = Date.now() + afterMs + STEP_TIMEOUT_MS;
      for (;;) {
        const found = received.find(
          (delivery) => delivery.event === 'blog.published' && JSON.parse(delivery.body).data.title === title,
        );
        if (found) return found;
        if (Date.now() > deadline) throw new CheckFailure(`admin: no blog.published webhook for "${title}"`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** Whether the Webhook-Signature header (t=<seconds>,v1=<hex HMAC-SHA256 of "t.body">) holds for this secret. */
function signatureHolds({ signature, body }, secret) {
  const { t, v1 } = Object.fromEntries(
    String(signature)
      .split(',')
      .map((part) => part.split('=')),
  );
  return v1 === createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
}

/** The admin's tools in the page: webhooks, a scheduled draft, a preview link, the trash. */
async function admin(spaOrigin) {
  const SCHEDULED = 'Scheduled from the example SPA';
  const DRAFT = 'A draft shown by its preview link';
  const SCHEDULE_AHEAD_MS = 8_000;
  const receiver = await startWebhookReceiver();
  const spa = await openSpa(spaOrigin, 'admin');
  const reader = await openSpa(spaOrigin, 'preview-reader');
  const { page } = spa;
  const draftItem = (title) => page.locator('#drafts li', { hasText: title });
  try {
    await spa.load();
    await spa.expectCalls([calls.current(401), calls.refresh(401)], 'first visit');
    await page.fill('#email', ADMIN.email);
    await page.fill('#password', ADMIN.password);
    await page.click('#login');
    await spa.expectState('signed-in', 'sign-in');
    await page.waitForSelector('#admin:not([hidden])', { timeout: STEP_TIMEOUT_MS });

    await page.fill('#webhook-url', receiver.url);
    await page.click('#webhook button');
    await page.waitForSelector('#webhook-secret[data-secret]', { timeout: STEP_TIMEOUT_MS });
    const secret = await page.getAttribute('#webhook-secret', 'data-secret');

    const banner = await sharp({ create: { width: 800, height: 450, channels: 3, background: '#cc6633' } })
      .png()
      .toBuffer();
    const write = async (title, publishAtMs) => {
      await page.fill('#post-title', title);
      await page.fill('#post-content', `<p>${title}, written in the browser.</p>`);
      await page.setInputFiles('#post-banner', { name: 'banner.png', mimeType: 'image/png', buffer: banner });
      // datetime-local takes the browser's local time, to the second
      const publishAt = await page.evaluate((at) => {
        if (!at) return '';
        const local = new Date(at - new Date(at).getTimezoneOffset() * 60_000);
        return local.toISOString().slice(0, 19);
      }, publishAtMs);
      await page.fill('#post-publish-at', publishAt);
      await page.click('#write button');
      await draftItem(title).waitFor({ timeout: STEP_TIMEOUT_MS });
    };
    const scheduledAt = Date.now() + SCHEDULE_AHEAD_MS;
    await write(SCHEDULED, scheduledAt);
    const shown = await draftItem(SCHEDULED).textContent();
    if (!shown.includes('scheduled for')) throw new CheckFailure(`admin: the scheduled draft shows "${shown}"`);
    await write(DRAFT);

    await draftItem(DRAFT).getByRole('button', { name: 'Preview link' }).click();
    const link = await draftItem(DRAFT).locator('a.preview').getAttribute('href');
    if (!link.startsWith(`${spaOrigin}/preview?token=`))
      throw new CheckFailure(`admin: the preview link ${link} does not open ${spaOrigin}/preview`);
    const previewShows = async (state) => {
      await reader.load(link);
      await reader.page.waitForSelector(`#preview[data-state="${state}"]`, { timeout: STEP_TIMEOUT_MS });
      await reader.expectState('signed-out', `preview ${state}`);
      return reader.page.textContent('#preview');
    };
    const preview = await previewShows('shown');
    if (!preview.startsWith(`Preview: ${DRAFT}`)) throw new CheckFailure(`admin: the preview shows "${preview}"`);

    await draftItem(DRAFT).getByRole('button', { name: 'Trash' }).click();
    await page.locator('#trash li', { hasText: DRAFT }).waitFor({ timeout: STEP_TIMEOUT_MS });
    await draftItem(DRAFT).waitFor({ state: 'detached', timeout: STEP_TIMEOUT_MS });
    await previewShows('gone');
    await page.locator('#trash li', { hasText: DRAFT }).getByRole('button', { name: 'Restore' }).click();
    await draftItem(DRAFT).waitFor({ timeout: STEP_TIMEOUT_MS });
    await draftItem(DRAFT).getByRole('button', { name: 'Publish now' }).click();
    await draftItem(DRAFT).waitFor({ state: 'detached', timeout: STEP_TIMEOUT_MS });
    const byHand = await receiver.published(DRAFT);

    const scheduled = await receiver.published(SCHEDULED, Math.max(0, scheduledAt - Date.now()));
    const lateMs = Date.now() - scheduledAt;
    for (const delivery of [scheduled, byHand]) {
      if (!signatureHolds(delivery, secret))
        throw new CheckFailure(`admin: a blog.published signature does not hold for the secret the page showed`);
    }
    await page.click('#load-blogs');
    await page.locator('#blogs li', { hasText: SCHEDULED }).waitFor({ timeout: STEP_TIMEOUT_MS });
    await draftItem(SCHEDULED).waitFor({ state: 'detached', timeout: STEP_TIMEOUT_MS });
    await page.waitForFunction(() => [...document.querySelectorAll('#blogs img')].every((image) => image.complete));
    await spa.screenshot('admin');
    const problems = [...spa.problems, ...reader.problems];
    if (problems.length > 0) throw new CheckFailure(`admin: ${problems.join('; ')}`);
    log(
      `admin: a draft scheduled ${SCHEDULE_AHEAD_MS / 1000} s ahead went live by itself, its blog.published ` +
        `received ${(lateMs / 1000).toFixed(1)} s after its time, signed with the secret the page showed; a preview ` +
        'link opened the draft signed out and died with the trash; restored and published by hand (signed webhook too)',
    );
  } finally {
    await reader.close();
    await spa.close();
    await receiver.close();
  }
}

async function main() {
  mkdirSync(ARTIFACTS, { recursive: true });
  // The SPA's server listens on 127.0.0.1 and is reached as localhost (same-site with the API) and
  // as 127.0.0.1 (cross-site); the API's origin is http://localhost:P2 in both setups.
  let spaServer;
  let api;
  const mail = await startMailServer();
  try {
    // The API's port is known only once it runs, and it must list the SPA's origins: pick the SPA's
    // port first, then start the API, then the SPA's server on that port.
    const spaPort = await freePort();
    api = await startApi([`http://localhost:${spaPort}`, `http://127.0.0.1:${spaPort}`], {
      SMTP_URL: mail.url,
      SITE_URL: `http://localhost:${spaPort}`,
      // the check's webhook receiver listens on 127.0.0.1 over plain HTTP
      WEBHOOKS_ALLOW_PRIVATE: 'true',
    });
    const apiOrigin = `http://localhost:${api.port}`;
    spaServer = await startSpaServer({ apiBaseUrl: `${apiOrigin}/api/v1`, host: '127.0.0.1', port: spaPort });
    log(`API on ${apiOrigin}, SPA served on port ${spaPort}`);
    const banners = await seedBlog(`http://127.0.0.1:${api.port}/api/v1`);
    await sameSite(`http://localhost:${spaPort}`, apiOrigin, banners);
    await crossSite(`http://127.0.0.1:${spaPort}`, apiOrigin);
    await forgotPassword(`http://localhost:${spaPort}`, apiOrigin, mail);
    await admin(`http://localhost:${spaPort}`);
  } finally {
    await spaServer?.close();
    await api?.stop();
    await mail.close();
  }
  log(
    'passed (same-site: signed in, card images (640w variants), a search with its snippet, refreshed and logged out; cross-site: refresh 401 as documented; forgot: reset by the mailed link; admin: scheduled, webhook signed, preview, trash, restore, publish)',
  );
}

main().catch((error) => {
  console.error(
    `spa-check: FAILED: ${error instanceof CheckFailure ? error.message : error && error.stack ? error.stack : error}`,
  );
  process.exit(1);
});
