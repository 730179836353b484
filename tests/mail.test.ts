/**
 * The ways mail leaves (src/lib/mailer.ts), and the faults it survives: written as .eml files without
 * SMTP_URL (the offline flow), off in production without SMTP_URL (503), and an SMTP server that is
 * down or stalls (the request is answered at once; the failure is logged and counted in /metrics).
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { simpleParser } from 'mailparser';
import request from 'supertest';
import { createApp } from '../src/app';
import { loadConfig } from '../src/config';
import { createMailer, type MailerOptions } from '../src/lib/mailer';
import { createMetrics } from '../src/lib/metrics';
import { MAIL_OFF_MESSAGE } from '../src/schemas/auth';
import { agent } from './helpers/agent';
import { captureLog } from './helpers/log-capture';
import { downSmtpUrl, startSilentSmtpServer, tokenOf, TEST_SITE_URL, useMailFolder } from './helpers/mail-server';
import { PRODUCTION_ENV, testEnvironment, useTestApp } from './helpers/test-app';
import { registerUser } from './helpers/users';

const ctx = useTestApp();
const LAST_MAIL_TOOL = path.join(__dirname, '..', 'tools', 'mail', 'last.js');

/** The deadline of one send in these tests: short, so a stalled server costs the test little. */
const SEND_TIMEOUT_MS = 800;

/**
 * An app on this file's database with a mailer of the test's choosing, its log captured and its metrics
 * readable; `env` over the test environment (SITE_URL, SMTP_URL for the server).
 */
function appWithMailer(env: Record<string, string>, mailer: Partial<MailerOptions> = {}) {
  const log = captureLog('debug');
  const metrics = createMetrics();
  const { config } = loadConfig(testEnvironment(env));
  const app = createApp({
    config,
    logger: log.logger,
    metrics,
    mailer: createMailer({
      smtp: config.mail.smtp,
      sendTimeoutMs: SEND_TIMEOUT_MS,
      logger: log.logger,
      sent: metrics.mailSent,
      ...mailer,
    }),
  });
  return { app, api: agent(app), log, metrics };
}

/** Waits (a bounded time) until `read` gives something. */
async function eventually<T>(read: () => T | undefined | Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`nothing within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const failedSends = async (app: Parameters<typeof request>[0]) => {
  const { text } = await request(app).get('/metrics');
  const match = /^mail_sent_total\{purpose="reset-password",result="failed"\} (\d+)$/m.exec(text);
  return match ? Number(match[1]) : undefined;
};

describe('without SMTP_URL', () => {
  const mailFolder = useMailFolder();

  it('writes each message as an .eml file; without SITE_URL it carries the token and how to send it', async () => {
    const folder = mailFolder.path;
    const { app, api, log } = appWithMailer({}, { directory: folder });
    const { user } = await registerUser(app);
    await api.post('/auth/forgot-password').send({ email: user.email }).expect(202);

    const file = await eventually(() => readdirSync(folder).find((name) => name.endsWith('-reset-password.eml')));
    expect(file).toMatch(/^\d{4}-\d\d-\d\dT[\d-]+Z-reset-password\.eml$/);
    const raw = readFileSync(path.join(folder, file));
    const message = await simpleParser(raw);
    expect(message.to).toMatchObject({ value: [{ address: user.email }] });
    expect(message.text).toContain('SITE_URL is not set');
    expect(message.text).toContain('POST http://localhost:3000/api/v1/auth/reset-password');
    expect(message.html).toContain('<pre>');
    const written = log.entries().find((entry) => entry.message === 'mail written (no SMTP_URL)');
    expect(written).toMatchObject({ purpose: 'reset-password', file: path.join(folder, file) });
    expect(written).not.toHaveProperty('link');

    // the offline flow: the token of the file resets the password
    const token = tokenOf(message.text);
    // read by eye in the file: the text part is 7bit, the token one whole line (not quoted-printable pieces)
    expect(raw.toString()).toMatch(/Content-Type: text\/plain; charset=utf-8\nContent-Transfer-Encoding: 7bit/);
    expect(raw.toString().split('\n')).toContain(token);
    await api.post('/auth/reset-password').send({ token, password: 'reset offline' }).expect(200);
  });

  it('with SITE_URL, never logs the link (it carries a token); npm run mail:last shows it whole', async () => {
    const folder = mailFolder.path;
    const { app, api, log } = appWithMailer({ SITE_URL: TEST_SITE_URL }, { directory: folder });
    const { user } = await registerUser(app);
    await api.post('/auth/forgot-password').send({ email: user.email }).expect(202);
    await eventually(() => log.entries().find((entry) => entry.message === 'mail written (no SMTP_URL)'));

    const { stdout } = await promisify(execFile)(process.execPath, [LAST_MAIL_TOOL, folder], { timeout: 20_000 });
    const link = new RegExp(`^${TEST_SITE_URL}/reset-password\\?token=([\\w-]{43})$`, 'm').exec(stdout);
    expect(stdout).toContain(`To: ${user.email}`);
    expect(link).not.toBeNull();
    expect(log.lines.join('\n')).not.toContain(link![1]);
    await api.post('/auth/reset-password').send({ token: link![1], password: 'reset by the link' }).expect(200);
  });

  it('is off in production: forgot-password answers 503 naming SMTP_URL, without Retry-After', async () => {
    const { app } = ctx.buildApp({ ...PRODUCTION_ENV, PUBLIC_URL: 'https://blog.example.com', LOG_LEVEL: 'silent' });
    const response = await agent(app).post('/auth/forgot-password').send({ email: 'ada@example.com' });
    expect(response.status).toBe(503);
    expect(response.body).toEqual({ code: 'ServiceUnavailable', message: MAIL_OFF_MESSAGE });
    expect(response.headers['retry-after']).toBeUndefined();
  });
});

describe('an SMTP server that fails', () => {
  it.each([
    ['down (nothing listens)', async () => ({ url: await downSmtpUrl(), close: async () => undefined })],
    ['stalled (accepts, never greets)', startSilentSmtpServer],
  ])('%s: the request is answered at once; the failure is logged and counted', async (_name, start) => {
    const server = await start();
    try {
      const { app, api, log } = appWithMailer({ SMTP_URL: server.url });
      const { user } = await registerUser(app);
      const started = Date.now();
      await api.post('/auth/forgot-password').send({ email: user.email }).expect(202);
      expect(Date.now() - started).toBeLessThan(SEND_TIMEOUT_MS);

      expect(await eventually(() => failedSends(app), SEND_TIMEOUT_MS * 4)).toBe(1);
      const failure = log.entries().find((entry) => String(entry.message).startsWith('mail not sent'));
      expect(failure).toMatchObject({ level: 'warn', purpose: 'reset-password' });
      expect(JSON.stringify(failure)).not.toContain(user.email);
    } finally {
      await server.close();
    }
  });
});
