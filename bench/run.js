// @ts-check
/**
 * `npm run bench`: seeds a database, starts the API (built, NODE_ENV=production, its own process) and
 * the floor server (bench/floor-server.js) on it, proves the floor answers like the API, then drives
 * both with autocannon scenario by scenario and reports ours beside the floor. See bench/README.md.
 *
 * Settings (environment): BENCH_DURATION seconds per scenario and side (6), split into BENCH_ROUNDS
 * alternating slices (3), BENCH_WARMUP seconds (1),
 * BENCH_CONNECTIONS (10), BENCH_BLOGS (5000), BENCH_GROWTH_BLOGS (50000; 0 skips the growth step),
 * BENCH_GROWTH_SAMPLES (sequential requests per side and size, 9),
 * BENCH_ONLY (comma-separated scenario names), BENCH_CPU_PROF=1 (profile the API with --cpu-prof),
 * BENCH_LOG_LEVEL (the API's LOG_LEVEL, warn), BENCH_METRICS (the API's METRICS_ENABLED, true),
 * BENCH_AUTH_CACHE_TTL_MS (the API's AUTH_CACHE_TTL_MS, its default unless set), BENCH_UPLOAD_IMAGE (`photo`: the
 * uploads scenario sends a photo-like JPEG instead of a noise PNG), BENCH_API_ENTRY (another build's server.js, to compare
 * before and after a change), MONGODB_URI (a server to use instead of the embedded one;
 * the benchmark writes into a database of its own there and drops it at the end).
 */
'use strict';
const { spawnSync } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const autocannon = require('autocannon');
const bcrypt = require('bcrypt');
const { MongoClient } = require('mongodb');
const { compareAnswers } = require('./lib/equivalence');
const { formatTable, renderChart } = require('./lib/report');
const { checkSeedAgainstApi, seedBlogs, seedUsers, userEmail, ADMINS, READER } = require('./lib/seed');
const { compareProfiles, summarizeProfile } = require('./lib/profile');
const { freePort, startInMemoryDatabase, startServer, withDatabaseName } = require('../tools/lib/server');

const ROOT = path.resolve(__dirname, '..');
const RESULTS_DIR = path.join(__dirname, 'results');
const PASSWORD = 'bench-password-1';
// the front end the feed links into (SITE_URL), the same for the API and the floor
const BENCH_SITE_URL = 'https://blog.example';
/** The lowest cost production accepts: logins stay slow enough to matter and fast enough to run. */
const BCRYPT_COST = 10;
/** The tag of the tag-page scenario: one of the seed's, carried by about a quarter of the blogs. */
const BENCH_TAG = 'design';
/**
 * The search scenario's word: in the text of nearly every seeded blog and in about one title in seven
 * (its stem also matches "dolore"), so a first page of 20 comes from the title tier of some 560 hits.
 */
const BENCH_SEARCH = 'dolor';

const env = process.env;
const settings = {
  duration: Number(env.BENCH_DURATION ?? 6),
  rounds: Math.max(1, Number(env.BENCH_ROUNDS ?? 3)),
  warmup: Number(env.BENCH_WARMUP ?? 1),
  connections: Number(env.BENCH_CONNECTIONS ?? 10),
  blogs: Number(env.BENCH_BLOGS ?? 5000),
  growthBlogs: Number(env.BENCH_GROWTH_BLOGS ?? 50000),
  growthSamples: Number(env.BENCH_GROWTH_SAMPLES ?? 9),
  only: env.BENCH_ONLY ? new Set(env.BENCH_ONLY.split(',').map((name) => name.trim())) : undefined,
  cpuProf: env.BENCH_CPU_PROF === '1',
  logLevel: env.BENCH_LOG_LEVEL ?? 'warn',
  /** Another build of the API to measure (e.g. an older commit's dist/server.js), for before/after figures. */
  apiEntry: env.BENCH_API_ENTRY ?? path.join('dist', 'server.js'),
};
const wanted = (name) => !settings.only || settings.only.has(name);
const log = (message) => process.stdout.write(`${message}\n`);

// ---------------------------------------------------------------------------------------------- processes

/** Started and stopped by tools/lib/server.js; the last lines of its output explain a failure. */
const serverOptions = { timeoutMs: 60_000, maxLines: 200 };
const stopServer = (server) => server.stop({ graceMs: 15_000 });

/** Peak resident memory of a process from now on: the kernel's high-water mark, reset first (Linux). */
function peakRssFrom(pid) {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    // not Linux, or not allowed: the peak is then the process's lifetime peak
  }
  return () => {
    try {
      const match = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
      return match ? Number(match[1]) : undefined;
    } catch {
      return undefined;
    }
  };
}

/** CPU time (user + system) a process has used so far, in ms (Linux; undefined elsewhere). */
function cpuMs(pid) {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux)
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

const currentRssKb = (pid) => {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
};

// ---------------------------------------------------------------------------------------------- load

/**
 * Drives the API and the floor with the same scenario, in alternating slices (ours, floor, ours, …,
 * BENCH_ROUNDS of each), so that a burst of load from elsewhere on a shared machine falls on both
 * alike. Answers, per side, req/s over all its slices, latency percentiles over every response (ms),
 * the non-2xx count and the peak RSS of its process. `targets` is [{name, url, pid}, …].
 */
async function driveAlternating(scenario, targets) {
  for (const target of targets) if (settings.warmup > 0) await cannon(target.url, scenario, settings.warmup);
  const totals = new Map(
    targets.map((target) => [
      target.name,
      {
        requests: 0,
        seconds: 0,
        non2xx: 0,
        /** @type {Record<string, number>} */
        otherStatuses: {},
        errors: 0,
        latencies: /** @type {number[]} */ ([]),
        peakRssKb: 0,
        cpuMs: 0,
      },
    ]),
  );
  const slice = settings.duration / settings.rounds;
  for (let round = 0; round < settings.rounds; round++) {
    for (const target of targets) {
      const total = /** @type {any} */ (totals.get(target.name));
      const peak = peakRssFrom(target.pid);
      const cpuBefore = cpuMs(target.pid) ?? 0;
      const result = await cannon(target.url, scenario, slice, total.latencies);
      total.cpuMs += (cpuMs(target.pid) ?? 0) - cpuBefore;
      total.requests += result.requests.total;
      total.seconds += result.duration;
      total.non2xx += result.non2xx;
      for (const [status, { count }] of Object.entries(result.statusCodeStats ?? {}))
        if (!status.startsWith('2')) total.otherStatuses[status] = (total.otherStatuses[status] ?? 0) + count;
      total.errors += result.errors + result.timeouts;
      total.peakRssKb = Math.max(total.peakRssKb, peak() ?? 0);
    }
  }
  return Object.fromEntries(
    [...totals].map(([name, total]) => {
      const sorted = total.latencies.sort((a, b) => a - b);
      const at = (share) => sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))];
      const mean = sorted.reduce((sum, value) => sum + value, 0) / Math.max(1, sorted.length);
      return [
        name,
        {
          rps: total.requests / total.seconds,
          p50: at(0.5),
          p99: at(0.99),
          meanLatency: mean,
          non2xx: total.non2xx,
          otherStatuses: total.otherStatuses,
          errors: total.errors,
          requests: total.requests,
          peakRssKb: total.peakRssKb || undefined,
          cpuMsPerRequest: total.cpuMs / Math.max(1, total.requests),
        },
      ];
    }),
  );
}

/** " (429: 26)" for the statuses other than 2xx, by status; "" when there were none. */
const statusList = (statuses) =>
  Object.keys(statuses).length === 0
    ? ''
    : ` (${Object.entries(statuses)
        .map(([status, count]) => `${status}: ${count}`)
        .join(', ')})`;

/** One target alone (writes, login): the same figures as driveAlternating. */
async function drive(baseUrl, scenario, pid) {
  const figures = await driveAlternating(scenario, [{ name: 'only', url: baseUrl, pid }]);
  return figures.only;
}

/** One autocannon run; every response's latency (ms) is appended to `latencies` when given. */
function cannon(baseUrl, scenario, seconds, latencies) {
  const options = {
    url: `${baseUrl}${scenario.path ?? ''}`,
    connections: settings.connections,
    duration: seconds,
    headers: scenario.headers && { ...scenario.headers },
    method: scenario.method,
    body: scenario.body,
    requests: scenario.requests,
  };
  // autocannon adds to the headers object it is given (a POST's Content-Length, then again on the next
  // run, and the server waits for a body that never comes): each run gets a copy. And it takes an
  // option given as undefined for a value: leave those out.
  const given = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
  return new Promise((resolve, reject) => {
    const instance = autocannon(given, (error, result) => (error ? reject(error) : resolve(result)));
    if (latencies) instance.on('response', (_client, _status, _bytes, responseTime) => latencies.push(responseTime));
  });
}

/** Raw sizes of one answer: body as sent without compression, with gzip when accepted, and the header block. */
function answerSizes(baseUrl, requestPath, headers) {
  const once = (extra) =>
    new Promise((resolve, reject) => {
      const req = http.get(`${baseUrl}${requestPath}`, { headers: { ...headers, ...extra } }, (res) => {
        let bytes = 0;
        res.on('data', (chunk) => (bytes += chunk.length));
        res.on('end', () => {
          const headerBytes = res.rawHeaders.reduce((sum, item) => sum + item.length + 2, 0);
          resolve({ bytes, headerBytes, encoding: res.headers['content-encoding'], status: res.statusCode });
        });
      });
      req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
      req.on('error', reject);
    });
  return Promise.all([once({}), once({ 'Accept-Encoding': 'gzip' })]).then(([plain, gzip]) => ({
    body: plain.bytes,
    gzip: gzip.encoding === 'gzip' ? gzip.bytes : undefined,
    headers: plain.headerBytes,
  }));
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function readAnswer(url, headers, timeoutMs = 10_000) {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
  return { status: response.status, text: await response.text() };
}

// ---------------------------------------------------------------------------------------------- main

async function main() {
  const startedAt = new Date();
  fs.mkdirSync(RESULTS_DIR, { recursive: true });

  if (env.BENCH_SKIP_BUILD !== '1') {
    log('building the API (npm run build)…');
    const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit', timeout: 300_000 });
    if (build.status !== 0) throw new Error('npm run build failed');
  }

  // The database: MONGODB_URI's server (a database of our own on it), or the embedded one.
  let localDatabase;
  let serverUri = env.MONGODB_URI;
  if (!serverUri) {
    localDatabase = await startInMemoryDatabase({ log });
    serverUri = localDatabase.uri;
    log(`database: ${localDatabase.kind}`);
  }
  const databaseName = `blog_bench_${randomBytes(4).toString('hex')}`;
  const uri = withDatabaseName(/** @type {string} */ (serverUri), databaseName);
  const client = new MongoClient(uri);
  await client.connect();
  const db = client.db();

  const servers = [];
  /** @type {Record<string, any>} */
  const results = {
    startedAt: startedAt.toISOString(),
    machine: machine(),
    settings: { ...settings, only: settings.only && [...settings.only] },
    database: localDatabase?.kind ?? 'MONGODB_URI',
    rows: [],
    checks: {},
  };
  try {
    // ------------------------------------------------------------------ seed
    let seedStarted = Date.now();
    const userIds = await seedUsers(db, await bcrypt.hash(PASSWORD, BCRYPT_COST));
    let publishedSlugs = await seedBlogs(db, userIds, 0, settings.blogs);
    results.checks.seedSeconds = (Date.now() - seedStarted) / 1000;
    log(`seeded 200 users and ${settings.blogs} blogs in ${results.checks.seedSeconds.toFixed(1)} s`);
    await checkSeedAgainstApi(db);

    // ------------------------------------------------------------------ servers
    const secrets = {
      JWT_ACCESS_SECRET: randomBytes(32).toString('hex'),
      JWT_REFRESH_SECRET: randomBytes(32).toString('hex'),
    };
    const apiPort = await freePort();
    const uploadsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'blog-bench-uploads-'));
    const profileDir = path.join(RESULTS_DIR, 'profiles');
    const apiSpawnedAt = Date.now();
    const api = await startServer({
      ...serverOptions,
      name: 'API',
      args: [...(settings.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), settings.apiEntry],
      env: {
        NODE_ENV: 'production',
        PORT: String(apiPort),
        PUBLIC_URL: `http://127.0.0.1:${apiPort}`,
        SITE_URL: BENCH_SITE_URL,
        MONGODB_URI: uri,
        // BENCH_METRICS=false measures the API without its Prometheus instrumentation (the overhead of /metrics)
        METRICS_ENABLED: env.BENCH_METRICS ?? 'true',
        // the cache of session checks for reads (docs/performance.md): the API's default unless set
        ...(env.BENCH_AUTH_CACHE_TTL_MS === undefined ? {} : { AUTH_CACHE_TTL_MS: env.BENCH_AUTH_CACHE_TTL_MS }),
        ...secrets,
        ACCESS_TOKEN_TTL: '2h',
        BCRYPT_COST: String(BCRYPT_COST),
        RATE_LIMIT_MAX: '100000000',
        LOG_LEVEL: settings.logLevel,
        UPLOADS_DIR: uploadsDir,
      },
      readyPath: '/readyz',
    });
    servers.push(api);
    const floor = await startServer({
      ...serverOptions,
      name: 'floor',
      args: [
        ...(settings.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${path.join(profileDir, 'floor')}`] : []),
        path.join('bench', 'floor-server.js'),
      ],
      env: {
        MONGODB_URI: uri,
        JWT_ACCESS_SECRET: secrets.JWT_ACCESS_SECRET,
        // the feed's links and self link, as the API writes them
        SITE_URL: BENCH_SITE_URL,
        PUBLIC_URL: `http://127.0.0.1:${apiPort}`,
      },
      readyLine: /floor listening on (\d+)/,
    });
    servers.push(floor);
    const apiUrl = api.baseUrl;
    const floorUrl = floor.baseUrl;
    log(`API on ${apiUrl} (pid ${api.child.pid}), floor on ${floorUrl} (pid ${floor.child.pid})`);

    // ------------------------------------------------------------------ who reads
    const login = async (index) => {
      const response = await fetch(`${apiUrl}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: userEmail(index), password: PASSWORD }),
      });
      if (response.status !== 200)
        throw new Error(`login of user ${index}: ${response.status} ${await response.text()}`);
      return /** @type {string} */ ((await response.json()).accessToken);
    };
    const readerToken = await login(READER);
    const adminToken = await login(0);
    const writerTokens = await Promise.all(Array.from({ length: 10 }, (_, i) => login(ADMINS + 20 + i)));
    const auth = (token) => ({ Authorization: `Bearer ${token}` });
    const pick = (list) => list[Math.floor(Math.random() * list.length)];
    /** The page after the first, as a client scrolls to it: asked with the first page's nextCursor. */
    const afterFirstPage = async (token, query = 'limit=20') => {
      const first = await readAnswer(`${apiUrl}/api/v1/blogs?${query}`, auth(token));
      const { nextCursor } = JSON.parse(first.text);
      if (first.status !== 200 || !nextCursor) throw new Error(`no nextCursor for ?${query}: ${first.status}`);
      return `/api/v1/blogs?${query}&cursor=${encodeURIComponent(nextCursor)}`;
    };
    // the cursor page scenario asks for the same second page throughout (a cursor stays valid)
    const cursorPagePath = await afterFirstPage(readerToken);
    // four fifths into the reader's list, a full page the database skips to (a fixed offset fell past the
    // end once the seed published fewer than 4,020 blogs, and measured an empty answer instead)
    const deepOffset = Math.floor((publishedSlugs.length * 0.8) / 20) * 20;
    const deepPagePath = `/api/v1/blogs?limit=20&offset=${deepOffset}`;

    const readScenarios = () => [
      { name: 'list (user)', path: '/api/v1/blogs?limit=20', headers: auth(readerToken) },
      { name: 'list (admin)', path: '/api/v1/blogs?limit=20', headers: auth(adminToken) },
      {
        name: 'slug',
        headers: auth(readerToken),
        requests: [{ setupRequest: (req) => ({ ...req, path: `/api/v1/blogs/${pick(publishedSlugs)}` }) }],
      },
      { name: 'current user', path: '/api/v1/users/current', headers: auth(readerToken) },
      { name: 'deep page', path: deepPagePath, headers: auth(readerToken) },
      { name: 'feed', path: '/feed.xml' },
      { name: 'tag page', path: `/api/v1/blogs?limit=20&tag=${BENCH_TAG}`, headers: auth(readerToken) },
      { name: 'card page', path: '/api/v1/blogs?limit=20&fields=card', headers: auth(readerToken) },
      { name: 'search', path: `/api/v1/blogs?q=${BENCH_SEARCH}&limit=20`, headers: auth(readerToken) },
      { name: 'cursor page', path: cursorPagePath, headers: auth(readerToken) },
    ];

    // ------------------------------------------------------------------ equivalence
    const equivalence = async () => {
      const cases = [
        ['list (user)', '/api/v1/blogs?limit=20', readerToken],
        ['list (user), offset 20', '/api/v1/blogs?limit=20&offset=20', readerToken],
        ['deep page', deepPagePath, readerToken],
        ['list (admin)', '/api/v1/blogs?limit=20', adminToken],
        ['tag page', `/api/v1/blogs?limit=20&tag=${BENCH_TAG}`, readerToken],
        ['tag page (admin), offset 20', `/api/v1/blogs?limit=20&offset=20&tag=${BENCH_TAG}`, adminToken],
        ['card page', '/api/v1/blogs?limit=20&fields=card', readerToken],
        ['card page (admin), of a tag', `/api/v1/blogs?limit=20&fields=card&tag=${BENCH_TAG}`, adminToken],
        ['search', `/api/v1/blogs?q=${BENCH_SEARCH}&limit=20`, readerToken],
        // about where the title tier ends at 5,000 blogs, so the page takes from both tiers
        ['search, offset 550', `/api/v1/blogs?q=${BENCH_SEARCH}&limit=20&offset=550`, readerToken],
        ['search (admin), cards', `/api/v1/blogs?q=${BENCH_SEARCH}&limit=20&fields=card`, adminToken],
        ['cursor page', await afterFirstPage(readerToken), readerToken],
        [
          'cursor page (admin), cards of a tag',
          await afterFirstPage(adminToken, `limit=20&fields=card&tag=${BENCH_TAG}`),
          adminToken,
        ],
        ['current user', '/api/v1/users/current', readerToken],
        ['current user (admin)', '/api/v1/users/current', adminToken],
        ['unknown slug', '/api/v1/blogs/no-such-blog-here', readerToken],
        ['feed', '/feed.xml', readerToken],
        ...Array.from({ length: 5 }, (_, i) => [
          `slug #${i + 1}`,
          `/api/v1/blogs/${pick(publishedSlugs)}`,
          i % 2 ? adminToken : readerToken,
        ]),
      ];
      const failures = [];
      for (const [name, requestPath, token] of cases) {
        const ours = await readAnswer(`${apiUrl}${requestPath}`, auth(token));
        const theirs = await readAnswer(`${floorUrl}${requestPath}`, auth(token));
        const problems = compareAnswers(ours, theirs, { viewCounted: name.startsWith('slug') });
        if (problems.length) failures.push(`${name} (${requestPath}): ${problems.join('; ')}`);
      }
      return { cases: cases.length, failures };
    };
    const proof = await equivalence();
    results.checks.equivalence = proof;
    if (proof.failures.length)
      throw new Error(`the floor does not answer like the API:\n  ${proof.failures.join('\n  ')}`);
    log(`equivalence: the floor answered all ${proof.cases} reads exactly like the API`);

    // ------------------------------------------------------------------ reads, ours beside the floor
    const runRead = async (scenario, label = scenario.name) => {
      const samplePath = scenario.path ?? `/api/v1/blogs/${publishedSlugs[0]}`;
      const bytes = await answerSizes(apiUrl, samplePath, scenario.headers);
      const { ours, floor: theirs } = await driveAlternating(scenario, [
        { name: 'ours', url: apiUrl, pid: api.child.pid },
        { name: 'floor', url: floorUrl, pid: floor.child.pid },
      ]);
      const row = { name: label, ours, floor: theirs, bytes };
      results.rows.push(row);
      log(
        `  ${label}: ours ${ours.rps.toFixed(0)} req/s, floor ${theirs.rps.toFixed(0)} req/s (${(ours.rps / theirs.rps).toFixed(2)}×), p99 ${ours.p99.toFixed(0)} / ${theirs.p99.toFixed(0)} ms`,
      );
      return row;
    };
    // the CPU profile's summary leaves out what came before (start-up, seeding logins, the equivalence check)
    results.profileFromMs = Date.now() - apiSpawnedAt;
    log(
      `read scenarios: ${settings.connections} connections, ${settings.duration} s each (after ${settings.warmup} s warm-up), on Node ${process.version}; the deep page at offset ${deepOffset}`,
    );
    // on the clock of the CPU profiles (both processes'), to compare them over the read scenarios alone
    const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
    results.readsWindowUs = { from: monotonicUs() };
    for (const scenario of readScenarios()) if (wanted(scenario.name)) await runRead(scenario);
    results.readsWindowUs.to = monotonicUs();
    // the issue's target for cards: a page of 20 at most 10 % of the full page's bytes (measured here
    // whether the full page's scenario ran or not)
    const card = results.rows.find((row) => row.name === 'card page');
    if (card) {
      const full = await answerSizes(apiUrl, '/api/v1/blogs?limit=20', auth(readerToken));
      results.checks.cardBytes = { card: card.bytes, full, share: card.bytes.body / full.body };
      log(
        `card page: ${card.bytes.body} bytes (gzip ${card.bytes.gzip}), ${(100 * results.checks.cardBytes.share).toFixed(1)} % of the full page's ${full.body} (gzip ${full.gzip}) (target ≤ 10 %)`,
      );
    }

    // ------------------------------------------------------------------ writes and login, ours only
    const publishedIds = (
      await db
        .collection('blogs')
        .find({ status: 'published' }, { projection: { _id: 1 } })
        .toArray()
    ).map((blog) => String(blog._id));
    const writeScenarios = [
      {
        name: 'like + unlike',
        requests: [
          {
            method: 'POST',
            setupRequest: (req, context) => (
              (context.blog = pick(publishedIds)),
              (context.token = pick(writerTokens)),
              { ...req, path: `/api/v1/likes/blog/${context.blog}`, headers: auth(context.token) }
            ),
          },
          {
            method: 'DELETE',
            setupRequest: (req, context) => ({
              ...req,
              path: `/api/v1/likes/blog/${context.blog}`,
              headers: auth(context.token),
            }),
          },
        ],
      },
      {
        name: 'comment',
        method: 'POST',
        headers: { ...auth(writerTokens[0]), 'Content-Type': 'application/json' },
        body: JSON.stringify({ content: 'A benchmark comment, short and to the point.' }),
        requests: [{ setupRequest: (req) => ({ ...req, path: `/api/v1/comments/blog/${pick(publishedIds)}` }) }],
      },
      {
        name: 'login',
        method: 'POST',
        path: '/api/v1/auth/login',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: userEmail(READER + 1), password: PASSWORD }),
      },
    ];
    log('write scenarios (ours only):');
    for (const scenario of writeScenarios) {
      if (!wanted(scenario.name)) continue;
      const ours = await drive(apiUrl, scenario, api.child.pid);
      results.rows.push({ name: scenario.name, ours });
      log(
        `  ${scenario.name}: ${ours.rps.toFixed(0)} req/s, p99 ${ours.p99.toFixed(0)} ms, non-2xx ${ours.non2xx}${statusList(ours.otherStatuses)}`,
      );
    }

    // ------------------------------------------------------------------ login does not stall reads
    if (wanted('login stall')) {
      const slug = readScenarios()[2];
      const alone = await drive(apiUrl, slug, api.child.pid);
      const { name: _name, ...loginRequest } = writeScenarios[2];
      const loginLoad = cannon(apiUrl, loginRequest, settings.duration + settings.warmup + 1);
      const during = await drive(apiUrl, slug, api.child.pid);
      const logins = await loginLoad;
      results.checks.loginStall = {
        slugAloneP99: alone.p99,
        slugDuringLoginsP99: during.p99,
        ratio: during.p99 / alone.p99,
        loginsPerSecond: logins.requests.average,
        slugAloneRps: alone.rps,
        slugDuringRps: during.rps,
      };
      log(
        `login stall: slug p99 alone ${alone.p99.toFixed(0)} ms, during ${logins.requests.average.toFixed(0)} logins/s ${during.p99.toFixed(0)} ms (${(during.p99 / alone.p99).toFixed(2)}×, target < 2×)`,
      );
    }

    // ------------------------------------------------------------------ growth
    // One request at a time, ours and the floor alternating, at both sizes: at 50,000 blogs the stand-in
    // takes seconds per list page (it scans and sorts the collection), too long for a load at concurrency.
    // The API's own time is its median latency minus the floor's for the same request.
    if (settings.growthBlogs > settings.blogs && wanted('growth')) {
      const growthCases = () => [
        { name: 'list (user), first page', path: () => '/api/v1/blogs?limit=20' },
        { name: 'slug', path: () => `/api/v1/blogs/${pick(publishedSlugs)}` },
      ];
      const sequential = async () => {
        const figures = {};
        for (const { name, path: pathOf } of growthCases()) {
          // one unmeasured request each first: the first run of a path pays for compiling it
          for (const url of [apiUrl, floorUrl]) await readAnswer(`${url}${pathOf()}`, auth(readerToken), 120_000);
          const times = { ours: /** @type {number[]} */ ([]), floor: /** @type {number[]} */ ([]) };
          for (let i = 0; i < settings.growthSamples; i++) {
            const requestPath = pathOf();
            for (const [side, url] of /** @type {const} */ ([
              ['ours', apiUrl],
              ['floor', floorUrl],
            ])) {
              const started = performance.now();
              const answer = await readAnswer(`${url}${requestPath}`, auth(readerToken), 120_000);
              if (answer.status !== 200) throw new Error(`growth: ${side} answered ${answer.status} to ${requestPath}`);
              times[side].push(performance.now() - started);
            }
          }
          const ours = median(times.ours);
          const floorMs = median(times.floor);
          figures[name] = { oursMs: ours, floorMs, ownMs: ours - floorMs };
        }
        return figures;
      };
      const small = await sequential();
      seedStarted = Date.now();
      publishedSlugs = publishedSlugs.concat(await seedBlogs(db, userIds, settings.blogs, settings.growthBlogs));
      log(`growth: seeded up to ${settings.growthBlogs} blogs in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s`);
      const again = await equivalence();
      if (again.failures.length)
        throw new Error(`after growth, the floor does not answer like the API:\n  ${again.failures.join('\n  ')}`);
      const large = await sequential();
      results.checks.growth = Object.fromEntries(
        Object.keys(small).map((name) => [
          name,
          {
            [settings.blogs]: small[name],
            [settings.growthBlogs]: large[name],
            ownTimeGrowth: small[name].ownMs > 0 ? large[name].ownMs / small[name].ownMs : undefined,
          },
        ]),
      );
      for (const name of Object.keys(small)) {
        const fmt = (f) =>
          `ours ${f.oursMs.toFixed(0)} ms, floor ${f.floorMs.toFixed(0)} ms, own ${f.ownMs.toFixed(1)} ms`;
        log(
          `  ${name}: ${settings.blogs} blogs: ${fmt(small[name])}; ${settings.growthBlogs} blogs: ${fmt(large[name])}`,
        );
      }
    }

    // ------------------------------------------------------------------ 50 concurrent 2 MB uploads
    if (wanted('uploads')) {
      const sharp = require('sharp');
      const photo = env.BENCH_UPLOAD_IMAGE === 'photo';
      // noise does not compress: 830×830 RGB at compression level 0 is just under the 2 MB limit; or a
      // photo-like 3000×2000 JPEG of about as many bytes (bench/lib/photo.js)
      const png = photo
        ? await require('./lib/photo').photoLikeJpeg()
        : await sharp({
            create: { width: 830, height: 830, channels: 3, noise: { type: 'gaussian', mean: 128, sigma: 60 } },
          })
            .png({ compressionLevel: 0 })
            .toBuffer();
      const [mimeType, fileName] = photo ? ['image/jpeg', 'banner.jpg'] : ['image/png', 'banner.png'];
      const uploadMs = [];
      const before = currentRssKb(/** @type {number} */ (api.child.pid));
      const peak = peakRssFrom(api.child.pid);
      const uploadStarted = Date.now();
      const statuses = await Promise.all(
        Array.from({ length: 50 }, async (_, i) => {
          const form = new FormData();
          form.set('title', `Bench upload ${i} ${Date.now()}`);
          form.set('content', '<p>An uploaded banner.</p>');
          form.set('banner_image', new Blob([png], { type: mimeType }), fileName);
          const sent = Date.now();
          const response = await fetch(`${apiUrl}/api/v1/blogs/`, {
            method: 'POST',
            headers: auth(adminToken),
            body: form,
            signal: AbortSignal.timeout(120_000),
          });
          await response.arrayBuffer();
          uploadMs.push(Date.now() - sent);
          return response.status;
        }),
      );
      const peakKb = peak();
      // bytes on disk: the stored banners beside their variants (`<banner>.<width>w.webp`)
      const stored = fs.readdirSync(path.join(uploadsDir, 'banners')).map((name) => ({
        variant: /\.\d+w\.webp$/.test(name),
        bytes: fs.statSync(path.join(uploadsDir, 'banners', name)).size,
      }));
      const bytesOf = (variant) =>
        stored.filter((file) => file.variant === variant).reduce((sum, f) => sum + f.bytes, 0);
      results.checks.uploads = {
        count: 50,
        fileBytes: png.length,
        created: statuses.filter((s) => s === 201).length,
        statuses: [...new Set(statuses)],
        rssBeforeKb: before,
        peakRssKb: peakKb,
        riseMb: before && peakKb ? (peakKb - before) / 1024 : undefined,
        seconds: (Date.now() - uploadStarted) / 1000,
        image: photo ? 'photo' : 'noise',
        uploadMsMedian: median(uploadMs),
        uploadMsMax: Math.max(...uploadMs),
        bannerBytes: bytesOf(false),
        variantBytes: bytesOf(true),
      };
      const { uploads } = results.checks;
      log(
        `uploads: 50 × ${(png.length / 1048576).toFixed(2)} MB ${uploads.image} at once: ${uploads.created} created in ${uploads.seconds.toFixed(1)} s (each ${uploads.uploadMsMedian} ms median, ${uploads.uploadMsMax} ms max), RSS ${(before / 1024).toFixed(0)} → peak ${(peakKb / 1024).toFixed(0)} MB (+${uploads.riseMb?.toFixed(0)} MB, target < 150); stored ${(uploads.bannerBytes / 1048576).toFixed(1)} MB of banners, ${(uploads.variantBytes / 1048576).toFixed(1)} MB of variants`,
      );
    }
  } finally {
    for (const server of servers.reverse()) await stopServer(server);
    await client
      .db()
      .dropDatabase()
      .catch(() => undefined);
    await client.close();
    await localDatabase?.stop();
  }

  // ------------------------------------------------------------------ report
  results.finishedAt = new Date().toISOString();
  log(`\n${formatTable(results.rows)}\n`);
  if (settings.cpuProf) {
    const newestProfile = (directory) =>
      fs
        .readdirSync(directory)
        .filter((file) => file.endsWith('.cpuprofile'))
        .map((file) => path.join(directory, file))
        .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0];
    const profileDirectory = path.join(RESULTS_DIR, 'profiles');
    const newest = newestProfile(profileDirectory);
    if (newest) {
      results.profile = {
        file: path.relative(ROOT, newest),
        top: summarizeProfile(JSON.parse(fs.readFileSync(newest, 'utf8')), { skipFirstMs: results.profileFromMs }),
      };
      log(`CPU profile of the API (${results.profile.file}), self time by package, then by function:`);
      for (const entry of results.profile.top.packages)
        log(`  ${entry.percent.toFixed(1).padStart(5)}%  ${entry.where}`);
      log('');
      for (const entry of results.profile.top.functions)
        log(`  ${entry.percent.toFixed(1).padStart(5)}%  ${entry.where}`);
    }
    const floorProfile = newestProfile(path.join(profileDirectory, 'floor'));
    const reads = results.rows.filter((row) => row.floor);
    if (newest && floorProfile && reads.length > 0) {
      const requests = (side) => reads.reduce((sum, row) => sum + row[side].requests, 0);
      const comparison = compareProfiles(
        JSON.parse(fs.readFileSync(newest, 'utf8')),
        JSON.parse(fs.readFileSync(floorProfile, 'utf8')),
        {
          fromUs: results.readsWindowUs.from,
          toUs: results.readsWindowUs.to,
          oursRequests: requests('ours'),
          floorRequests: requests('floor'),
        },
      );
      results.profile.beside = { floorFile: path.relative(ROOT, floorProfile), ...comparison };
      const row = (entry) =>
        `  ${(entry.ours - entry.floor).toFixed(3).padStart(7)}  ${entry.ours.toFixed(3).padStart(7)}  ${entry.floor.toFixed(3).padStart(7)}  ${entry.where}`;
      log(
        `\nSelf time in ms per request over the read scenarios, ours ${comparison.total.ours.toFixed(3)} beside the floor's ${comparison.total.floor.toFixed(3)} (${results.profile.beside.floorFile}); where the API spends most beyond the floor, by package, then by function:`,
      );
      log('     more     ours    floor');
      for (const entry of comparison.packages) log(row(entry));
      log('');
      for (const entry of comparison.functions) log(row(entry));
    }
  }
  const stamp = results.startedAt.replace(/[:.]/g, '-');
  fs.writeFileSync(path.join(RESULTS_DIR, `bench-${stamp}.json`), `${JSON.stringify(results, null, 2)}\n`);
  fs.writeFileSync(path.join(RESULTS_DIR, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  if (results.rows.some((row) => row.floor)) {
    const subtitle = `${results.startedAt.slice(0, 16).replace('T', ' ')} UTC · ${results.machine.cpus} · Node ${results.machine.node} · ${settings.connections} connections, ${settings.duration} s per scenario · ${settings.blogs} blogs`;
    fs.writeFileSync(
      path.join(__dirname, 'chart.svg'),
      renderChart(results.rows, { title: 'Blog API reads: requests per second, ours beside the floor', subtitle }),
    );
  }
  log(`results: ${path.relative(ROOT, path.join(RESULTS_DIR, 'latest.json'))}, chart: bench/chart.svg`);
}

function machine() {
  const cpus = os.cpus();
  return {
    cpus: `${cpus.length} × ${cpus[0]?.model ?? 'unknown CPU'}`,
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
  };
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
