/**
 * GET /metrics: scraped after real requests, its counters must have moved with the right labels
 * (route templates, never raw paths), refusals counted by reason, MongoDB and the process reported,
 * and the endpoint kept outside the rate limit, behind its token when one is set, or off.
 */
import type { Express } from 'express';
import mongoose from 'mongoose';
import request from 'supertest';
import { createApp } from '../src/app';
import { loadConfig } from '../src/config';
import { createMetrics } from '../src/lib/metrics';
import { monitorMongoClient } from '../src/lib/mongodb-metrics';
import { postBlog } from './helpers/blogs';
import { makeImage } from './helpers/images';
import { parseExposition, valueOf, type Sample } from './helpers/metrics';
import { testEnvironment, useTestApp } from './helpers/test-app';
import { agent } from './helpers/agent';
import { registerAdmin, registerUser, uniqueEmail } from './helpers/users';

const ctx = useTestApp();

async function scrape(app: Express, headers: Record<string, string> = {}) {
  const response = await request(app).get('/metrics').set(headers);
  expect(response.status).toBe(200);
  return { response, samples: parseExposition(response.text) };
}

describe('GET /metrics after a few requests', () => {
  it('counts requests by method, route template and status, never by raw path', async () => {
    const { app } = ctx.buildApp({});
    const user = await registerUser(app);
    await agent(app).as(user).get('/users/current').expect(200);
    await agent(app).as(user).get('/users/current').expect(200);
    const id = new mongoose.Types.ObjectId().toHexString();
    await agent(app).as(user).get(`/users/${id}`).expect(403);
    await request(app).get('/wp-login.php').expect(404);
    await request(app).get('/healthz').expect(200);

    const { response, samples } = await scrape(app);

    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(response.headers['cache-control']).toBe('no-store');
    const requests = (labels: Record<string, string>) => valueOf(samples, 'http_requests_total', labels);
    expect(requests({ method: 'POST', route: '/api/v1/auth/register', status: '201' })).toBe(1);
    expect(requests({ method: 'GET', route: '/api/v1/users/current', status: '200' })).toBe(2);
    expect(requests({ method: 'GET', route: '/api/v1/users/{userId}', status: '403' })).toBe(1);
    expect(requests({ method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(requests({ method: 'GET', route: '/healthz', status: '200' })).toBe(1);
    expect(response.text).not.toContain(id);
    expect(response.text).not.toContain('wp-login');
    expect(
      valueOf(samples, 'http_request_duration_seconds_count', { route: '/api/v1/users/current', status: '200' }),
    ).toBe(2);
    expect(
      valueOf(samples, 'http_request_duration_seconds_bucket', {
        route: '/api/v1/users/current',
        status: '200',
        le: '+Inf',
      }),
    ).toBe(2);
    // the scrape itself is in flight while it is being answered
    expect(valueOf(samples, 'http_requests_in_flight')).toBe(1);
  });

  it('counts each app on its own: createApp builds a registry per instance', async () => {
    const first = ctx.buildApp({}).app;
    const second = ctx.buildApp({}).app;
    await agent(first).get('/').expect(200);

    const { samples } = await scrape(second);

    expect(valueOf(samples, 'http_requests_total', { route: '/api/v1/' })).toBeUndefined();
    expect(valueOf((await scrape(first)).samples, 'http_requests_total', { route: '/api/v1/' })).toBe(1);
  });

  it('counts authentication failures by reason', async () => {
    const { app } = ctx.buildApp({});
    const user = await registerUser(app);
    await agent(app).get('/users/current').expect(401);
    await agent(app).get('/users/current').set('Authorization', 'Bearer a.b.c').expect(401);
    await agent(app).post('/auth/refresh-token').expect(401);
    await agent(app).post('/auth/refresh-token').set('Cookie', 'refreshToken=x.y.z').expect(401);
    await agent(app).post('/auth/login').send({ email: user.user.email, password: 'not the password' }).expect(400);
    await agent(app)
      .post('/auth/login')
      .send({ email: uniqueEmail('nobody'), password: 'whatever123' })
      .expect(404);
    // a malformed login is a validation error, not a failed attempt
    await agent(app).post('/auth/login').send({ email: 'not an email', password: 'x' }).expect(400);

    const { samples } = await scrape(app);

    const failures = (reason: string) => valueOf(samples, 'auth_failures_total', { reason });
    expect(failures('access_token_missing')).toBe(1);
    expect(failures('access_token_invalid')).toBe(1);
    expect(failures('refresh_token_missing')).toBe(1);
    expect(failures('refresh_token_invalid')).toBe(1);
    expect(failures('wrong_password')).toBe(1);
    expect(failures('unknown_email')).toBe(1);
    expect(
      samples.filter((sample) => sample.name === 'auth_failures_total').reduce((sum, sample) => sum + sample.value, 0),
    ).toBe(6);
  });

  it('counts the bytes of stored banners and refused uploads by reason', async () => {
    const { app } = ctx.buildApp({});
    const admin = await registerAdmin(app, 'Chief@Example.com');
    const banner = await makeImage('png', 120, 80);
    expect((await postBlog(app, admin, { banner })).status).toBe(201);
    expect((await postBlog(app, admin, { banner: Buffer.alloc(2 * 1024 * 1024 + 1, 1) })).status).toBe(413);
    expect((await postBlog(app, admin, { banner: Buffer.from('not an image at all'), filename: 'x.png' })).status).toBe(
      400,
    );
    const withoutBanner = await agent(app)
      .as(admin)
      .post('/blogs/')
      .field('title', 'No banner')
      .field('content', '<p>x</p>');
    expect(withoutBanner.status).toBe(400);

    const { samples } = await scrape(app);

    expect(valueOf(samples, 'banner_upload_bytes_total')).toBe(banner.length);
    const refusals = (reason: string) => valueOf(samples, 'banner_upload_refusals_total', { reason });
    expect(refusals('too_large')).toBe(1);
    expect(refusals('invalid_image')).toBe(1);
    expect(refusals('missing')).toBe(1);
    expect(valueOf(samples, 'http_requests_total', { method: 'POST', route: '/api/v1/blogs/', status: '201' })).toBe(1);
  });

  it('counts rate-limit refusals, and is itself outside the rate limit', async () => {
    const { app } = ctx.buildApp({ RATE_LIMIT_MAX: '2' });
    for (const expected of [200, 200, 429, 429]) await agent(app).get('/').expect(expected);

    // more scrapes than the limit allows requests, all answered
    for (let scrapeNumber = 0; scrapeNumber < 3; scrapeNumber += 1) await scrape(app);
    const { response, samples } = await scrape(app);

    expect(response.headers['ratelimit-limit']).toBeUndefined();
    expect(valueOf(samples, 'rate_limit_refusals_total')).toBe(2);
    expect(valueOf(samples, 'http_requests_total', { route: '/api/v1/', status: '429' })).toBe(2);
  });

  /** Registers a user and reads them back on an app watching the connection's client; the scrape after. */
  async function databaseScrape(commandDurations = false) {
    const metrics = createMetrics({ commandDurations });
    const detach = monitorMongoClient(mongoose.connection.getClient(), metrics);
    try {
      const app = createApp({ config: ctx.config, logger: ctx.logger, metrics });
      const user = await registerUser(app);
      await agent(app).as(user).get('/users/current').expect(200);
      return await scrape(app);
    } finally {
      detach();
    }
  }
  const commands = (samples: Sample[], command: string) =>
    valueOf(samples, 'mongodb_command_duration_seconds_count', { command, outcome: 'succeeded' });

  it('reports pool checkouts from the driver events, and no command durations by default', async () => {
    const { response, samples } = await databaseScrape();

    expect(valueOf(samples, 'mongodb_pool_checkout_wait_seconds_count')).toBeGreaterThanOrEqual(3);
    expect(valueOf(samples, 'mongodb_pool_connections_checked_out')).toBe(0);
    expect(commands(samples, 'insert')).toBeUndefined();
    // not even listed, empty, as if it were on
    expect(response.text).not.toContain('mongodb_command_duration_seconds');
    expect(loadConfig(testEnvironment()).config.metrics.commands).toBe(false);
    // the connection connectDatabase opened for the tests, with its defaults
    expect(mongoose.connection.getClient().options.monitorCommands).toBe(false);
  });

  it('reports MongoDB command durations with MONGODB_COMMAND_METRICS=true', async () => {
    expect(loadConfig(testEnvironment({ MONGODB_COMMAND_METRICS: 'true' })).config.metrics.commands).toBe(true);
    expect(
      loadConfig(testEnvironment({ MONGODB_COMMAND_METRICS: 'true', METRICS_ENABLED: 'false' })).config.metrics
        .commands,
    ).toBe(false);
    // a client reads the setting when it is made: reconnect with it on, as server.ts does with the setting
    const { name } = mongoose.connection;
    const uri = process.env.TEST_MONGODB_URI!;
    await mongoose.disconnect();
    await mongoose.connect(uri, { dbName: name, monitorCommands: true });
    try {
      const { samples } = await databaseScrape(true);

      expect(commands(samples, 'insert')).toBeGreaterThanOrEqual(2);
      expect(commands(samples, 'find')).toBeGreaterThanOrEqual(1);
    } finally {
      await mongoose.disconnect();
      await mongoose.connect(uri, { dbName: name });
    }
  });

  it("reports whether the rate limit's Redis is connected, only where Redis is configured", async () => {
    const metrics = createMetrics();
    const withoutRedis = createApp({ config: ctx.config, logger: ctx.logger, metrics });
    expect(valueOf((await scrape(withoutRedis)).samples, 'rate_limit_redis_up')).toBeUndefined();

    let connected = true;
    metrics.watchRedis(() => connected);
    expect(valueOf((await scrape(withoutRedis)).samples, 'rate_limit_redis_up')).toBe(1);
    connected = false;
    expect(valueOf((await scrape(withoutRedis)).samples, 'rate_limit_redis_up')).toBe(0);
  });

  it('includes the process metrics: event-loop lag, heap, GC', async () => {
    const { response, samples } = await scrape(ctx.app);

    expect(valueOf(samples, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    expect(valueOf(samples, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(response.text).toContain('# TYPE nodejs_gc_duration_seconds histogram');
    expect(valueOf(samples, 'process_cpu_seconds_total')).toBeGreaterThan(0);
  });
});

describe('GET /metrics with a token, or turned off', () => {
  const token = 'a-scraper-token-of-some-length';

  it('answers only a scrape that presents METRICS_TOKEN, and counts the others', async () => {
    const { app } = ctx.buildApp({ METRICS_TOKEN: token });

    const missing = await request(app).get('/metrics');
    const wrong = await request(app).get('/metrics').set('Authorization', `Bearer ${token}x`);

    for (const refused of [missing, wrong]) {
      expect(refused.status).toBe(401);
      expect(refused.body).toEqual({ code: 'AuthenticationError', message: 'A valid metrics token is required' });
      expect(refused.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    }
    const { samples } = await scrape(app, { Authorization: `Bearer ${token}` });
    expect(valueOf(samples, 'auth_failures_total', { reason: 'metrics_token_invalid' })).toBe(2);
  });

  it('refuses a token shorter than 16 characters at boot', () => {
    expect(() => loadConfig(testEnvironment({ METRICS_TOKEN: 'short' }))).toThrow(/METRICS_TOKEN/);
  });

  it('is a plain 404 with METRICS_ENABLED=false', async () => {
    const { app } = ctx.buildApp({ METRICS_ENABLED: 'false' });

    const response = await request(app).get('/metrics');

    expect(response.status).toBe(404);
    expect(response.body.code).toBe('NotFound');
  });
});
