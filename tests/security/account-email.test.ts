/**
 * The mailed-token surface (forgot/reset password, email verification): no account enumeration, tokens
 * single-use, bound to their purpose and address, unguessable, stored hashed, never in the log or in
 * /metrics; a reset ends stolen sessions; line breaks in an address never reach a mail header; a flood
 * for one address mails it a few times at most. Registration and login do reveal whether an address has an
 * account, as the interface requires (docs/security.md); forgot-password does not.
 */
import { createHash } from 'node:crypto';
import type { Express } from 'express';
import mongoose from 'mongoose';
import request from 'supertest';
import { FORGOT_PASSWORD_ANSWER } from '../../src/schemas/auth';
import { MAILS_PER_ADDRESS } from '../../src/middlewares/mail-throttle';
import { agent } from '../helpers/agent';
import { captureLog } from '../helpers/log-capture';
import { TEST_SITE_URL, tokenOfLink, useMailServer } from '../helpers/mail-server';
import { useTestApp } from '../helpers/test-app';
import { registerUser, uniqueEmail, type SignedInUser } from '../helpers/users';
import { expectCleanRefusal } from './helpers';

const log = captureLog('debug');
const mail = useMailServer();
const ctx = useTestApp(() => ({
  env: { SMTP_URL: mail.url(), SITE_URL: TEST_SITE_URL, EMAIL_VERIFICATION: 'optional', TRUST_PROXY: 'true' },
  deps: { logger: log.logger },
}));

/** Every token a test saw: none may show in the log or in /metrics. */
const seenTokens = new Set<string>();

let address = 0;
/** Each request from an address of its own, so the per-IP mail bound stays out of tests about other things. */
const fromNewAddress = () => `198.51.100.${(address++ % 250) + 1}`;
const forgotPassword = (email: string, app: Express = ctx.app) =>
  agent(app).post('/auth/forgot-password').set('X-Forwarded-For', fromNewAddress()).send({ email });

async function resetTokenOf(email: string): Promise<string> {
  await forgotPassword(email).expect(202);
  const token = tokenOfLink(await mail.nextMessageTo(email, 'Reset your password'));
  seenTokens.add(token);
  return token;
}

/** The verification token mailed at registration. */
async function registerWithVerificationToken(): Promise<{ user: SignedInUser; token: string }> {
  const user = await registerUser(ctx.app);
  const token = tokenOfLink(await mail.nextMessageTo(user.user.email));
  seenTokens.add(token);
  return { user, token };
}

const resetWith = (token: string, password = 'a new password') =>
  ctx.api.post('/auth/reset-password').send({ token, password });
const verifyWith = (token: string) => ctx.api.post('/auth/verify-email').send({ token });

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

describe('no account enumeration through forgot-password', () => {
  const ROUNDS = 20;
  const accounts = ctx.fixture(async () => {
    const users: SignedInUser[] = [];
    for (let index = 0; index < ROUNDS; index++) users.push(await registerUser(ctx.app));
    await Promise.all(users.map((user) => mail.nextMessageTo(user.user.email)));
    return { emails: users.map((user) => user.user.email) };
  });

  it('answers 202 with the same body, in the same time within noise, whether or not an account has the address', async () => {
    const timings = { known: [] as number[], unknown: [] as number[] };
    // interleaved, each first in turn, so that a slower moment of the machine (or the mail work a request
    // leaves behind it) weighs on both sides alike
    for (let index = 0; index < ROUNDS; index++) {
      const pair = [
        ['known', accounts.emails[index]],
        ['unknown', uniqueEmail('nobody')],
      ] as const;
      for (const [kind, email] of index % 2 ? [...pair].reverse() : pair) {
        const started = process.hrtime.bigint();
        const response = await forgotPassword(email);
        timings[kind].push(Number(process.hrtime.bigint() - started) / 1e6);
        expect({ status: response.status, body: response.body }).toEqual({
          status: 202,
          body: { message: FORGOT_PASSWORD_ANSWER },
        });
      }
    }
    // The answer is sent before any lookup, so the medians differ by noise only: a loose bound (a lookup and
    // a mail done before answering would add tens of milliseconds to one side on every request).
    const [known, unknown] = [median(timings.known), median(timings.unknown)];
    expect(Math.abs(known - unknown)).toBeLessThan(Math.max(15, 0.5 * Math.max(known, unknown)));
    await Promise.all(accounts.emails.map((email) => mail.nextMessageTo(email).then((m) => tokenOfLink(m))));
  });

  it('answers a token that does not hold with one 400, whatever the reason', async () => {
    const { token: verification } = await registerWithVerificationToken();
    const used = await resetTokenOf((await registerUser(ctx.app)).user.email);
    await resetWith(used).expect(200);
    const expired = await resetTokenOf((await registerUser(ctx.app)).user.email);
    await mongoose.connection
      .collection('accounttokens')
      .updateOne(
        { tokenHash: createHash('sha256').update(expired).digest('base64url') },
        { $set: { expiresAt: new Date(Date.now() - 1000) } },
      );
    const answers = await Promise.all(
      [used, expired, verification, 'B'.repeat(43)].map(async (token) => (await resetWith(token)).body),
    );
    expect(new Set(answers.map((body) => JSON.stringify(body))).size).toBe(1);
    expect(answers[0].errors.token.msg).toBe('Reset token is invalid, used or expired');
  });
});

describe('tokens', () => {
  it('are 256 random bits, all different, and stored only as their SHA-256', async () => {
    const tokens: string[] = [];
    for (let index = 0; index < 5; index++) tokens.push(await resetTokenOf((await registerUser(ctx.app)).user.email));
    for (const token of tokens) expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Set(tokens).size).toBe(tokens.length);
    const stored = JSON.stringify(await mongoose.connection.collection('accounttokens').find({}).toArray());
    for (const token of tokens) {
      expect(stored).not.toContain(token);
      expect(stored).toContain(createHash('sha256').update(token).digest('base64url'));
    }
  });

  it('serve their own purpose only: a verification token cannot reset a password, nor a reset token verify', async () => {
    const { user, token: verification } = await registerWithVerificationToken();
    const reset = await resetTokenOf(user.user.email);
    await resetWith(verification).expect(400);
    await verifyWith(reset).expect(400);
    // the wrong use spent neither
    await verifyWith(verification).expect(200);
    await resetWith(reset).expect(200);
  });

  it('work once', async () => {
    const { token } = await registerWithVerificationToken();
    await verifyWith(token).expect(200);
    await verifyWith(token).expect(400);
  });
});

describe('a reset', () => {
  it("ends a thief's sessions: the stolen access and refresh tokens are refused at once", async () => {
    const victim = await registerUser(ctx.app);
    const thief = await ctx.api.post('/auth/login').send({ email: victim.user.email, password: victim.password });
    await ctx.api.as(thief.body.accessToken).get('/users/current').expect(200);

    await resetWith(await resetTokenOf(victim.user.email), 'only the owner knows').expect(200);
    for (const accessToken of [thief.body.accessToken, victim.accessToken]) {
      expectCleanRefusal(await ctx.api.as(accessToken).get('/users/current'), 401);
    }
    for (const cookie of [thief.headers['set-cookie'][0].split(';')[0], victim.refreshCookie]) {
      expectCleanRefusal(await ctx.api.post('/auth/refresh-token').set('Cookie', cookie), 401);
    }
  });
});

describe('addresses', () => {
  it('with a line break (header injection) are refused with 400 and mail nobody', async () => {
    const user = await registerUser(ctx.app, { email: 'v@victim.test' });
    for (const email of [
      'v@victim.test\r\nBcc: a@evil.test',
      'v@victim.test\nBcc: a@evil.test',
      'a@evil.test\r\nTo: v@victim.test',
    ]) {
      const response = await forgotPassword(email);
      expectCleanRefusal(response, 400);
      expect(response.body.errors.email.msg).toBe('Email must be a valid email address');
      expectCleanRefusal(await ctx.api.as(user).put('/users/current').send({ email }), 400);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(mail.countTo('a@evil.test')).toBe(0);
    expect(mail.countTo('v@victim.test')).toBe(1); // the verification link of its registration only
  });

  it(`get at most ${MAILS_PER_ADDRESS} reset mails per window however many ask, from however many addresses`, async () => {
    const { user } = await registerUser(ctx.app);
    await mail.nextMessageTo(user.email);
    const statuses: number[] = [];
    for (let index = 0; index < 10; index++) statuses.push((await forgotPassword(user.email)).status);
    expect(statuses).toEqual([...Array(MAILS_PER_ADDRESS).fill(202), ...Array(10 - MAILS_PER_ADDRESS).fill(429)]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(mail.countTo(user.email)).toBe(1 + MAILS_PER_ADDRESS);
  });
});

describe('what the service shows of tokens', () => {
  it('never writes one to the log or to /metrics', async () => {
    expect(seenTokens.size).toBeGreaterThan(5);
    const metrics = await request(ctx.app).get('/metrics').expect(200);
    expect(metrics.text).toMatch(/^mail_sent_total\{purpose="verify-email",result="sent"\} \d+$/m);
    for (const token of seenTokens) {
      expect(log.lines.filter((line) => line.includes(token))).toEqual([]);
      expect(metrics.text).not.toContain(token);
    }
    expect(metrics.text).not.toMatch(/mail_sent_total\{[^}]*@/);
  });
});
