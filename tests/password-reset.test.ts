/**
 * Forgot password → the mail a real SMTP server (in this process) receives → reset → signed in with the
 * new password, every earlier session ended.
 */
import request from 'supertest';
import { FORGOT_PASSWORD_ANSWER } from '../src/schemas/auth';
import { TEST_SITE_URL, tokenOfLink, useMailServer } from './helpers/mail-server';
import { useTestApp } from './helpers/test-app';
import { refreshCookieOf, registerUser, uniqueEmail } from './helpers/users';

const mail = useMailServer();
const ctx = useTestApp(() => ({ env: { SMTP_URL: mail.url(), SITE_URL: TEST_SITE_URL } }));

/** Asks for a reset link for an account and returns the token its mail carries. */
async function mailedResetToken(email: string): Promise<string> {
  await ctx.api.post('/auth/forgot-password').send({ email }).expect(202);
  return tokenOfLink(await mail.nextMessageTo(email));
}

describe('POST /auth/forgot-password', () => {
  it('mails a reset link to the front end, in plain text and HTML, from the sender of SMTP_URL', async () => {
    const { user } = await registerUser(ctx.app);
    const response = await ctx.api.post('/auth/forgot-password').send({ email: user.email.toUpperCase() });
    expect(response.status).toBe(202);
    expect(response.body).toEqual({ message: FORGOT_PASSWORD_ANSWER });

    const message = await mail.nextMessageTo(user.email);
    expect(message.parsed.subject).toBe('Reset your password');
    expect(message.parsed.from?.value).toEqual([{ name: 'Blog', address: 'no-reply@blog.test' }]);
    const link = `${TEST_SITE_URL}/reset-password?token=${tokenOfLink(message)}`;
    expect(message.parsed.text).toContain(link);
    expect(message.parsed.html).toContain(`href="${link}"`);
    expect(message.parsed.text).toContain('30 minutes');
  });

  it('answers the same for an address without an account, and mails nothing', async () => {
    const email = uniqueEmail('nobody');
    const response = await ctx.api.post('/auth/forgot-password').send({ email });
    expect(response.status).toBe(202);
    expect(response.body).toEqual({ message: FORGOT_PASSWORD_ANSWER });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(mail.countTo(email)).toBe(0);
  });

  it('refuses a missing or malformed email with the spec 400', async () => {
    for (const body of [{}, { email: 'not-an-email' }, { email: 'a@b.example', extra: 1 }]) {
      const response = await ctx.api.post('/auth/forgot-password').send(body);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('ValidationError');
    }
  });
});

describe('POST /auth/reset-password', () => {
  it('sets the password, ends every session, and signs in as login does', async () => {
    const owner = await registerUser(ctx.app);
    const otherDevice = await ctx.api.post('/auth/login').send({ email: owner.user.email, password: owner.password });
    const token = await mailedResetToken(owner.user.email);

    const response = await ctx.api
      .post('/auth/reset-password')
      .send({ token, password: 'a brand new secret', confirm_password: 'a brand new secret' });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(['accessToken', 'user']);
    expect(response.body.user._id).toBe(owner.user._id);
    const cookie = refreshCookieOf(response);
    await ctx.api.as(response.body.accessToken).get('/users/current').expect(200);

    // the sessions from before the reset are gone: access and refresh tokens alike
    await ctx.api.as(owner).get('/users/current').expect(401);
    await ctx.api.as(otherDevice.body.accessToken).get('/users/current').expect(401);
    await ctx.api.post('/auth/refresh-token').set('Cookie', owner.refreshCookie).expect(401);
    await ctx.api.post('/auth/refresh-token').set('Cookie', cookie).expect(200);

    await ctx.api.post('/auth/login').send({ email: owner.user.email, password: owner.password }).expect(400);
    await ctx.api.post('/auth/login').send({ email: owner.user.email, password: 'a brand new secret' }).expect(200);
  });

  it("ends the account's login lock: the owner who proved the address signs in with the new password at once", async () => {
    const owner = await registerUser(ctx.app);
    const login = (password: string) => ctx.api.post('/auth/login').send({ email: owner.user.email, password });
    for (let attempt = 0; attempt < 10; attempt++) expect((await login('a guessed password')).status).toBe(400);
    expect((await login(owner.password)).status).toBe(429);

    const token = await mailedResetToken(owner.user.email);
    await ctx.api.post('/auth/reset-password').send({ token, password: 'the new password' }).expect(200);

    expect((await login('the new password')).status).toBe(200);
  });

  it('refuses a token used once already, an unknown one, and a malformed one with 400 on token', async () => {
    const { user } = await registerUser(ctx.app);
    const token = await mailedResetToken(user.email);
    await ctx.api.post('/auth/reset-password').send({ token, password: 'first new secret' }).expect(200);
    const unknown = 'A'.repeat(43);
    for (const refused of [token, unknown, 'short', `${token}x`]) {
      const response = await ctx.api
        .post('/auth/reset-password')
        .send({ token: refused, password: 'second new secret' });
      expect(response.status).toBe(400);
      expect(response.body.errors.token).toMatchObject({
        msg: 'Reset token is invalid, used or expired',
        value: '',
        location: 'body',
      });
    }
  });

  it("keeps the spec's password rules and the confirmation check", async () => {
    const { user } = await registerUser(ctx.app);
    const token = await mailedResetToken(user.email);
    const short = await ctx.api.post('/auth/reset-password').send({ token, password: 'short' });
    expect(short.status).toBe(400);
    expect(short.body.errors.password.msg).toBe('Password must be at least 8 characters');
    const mismatch = await ctx.api
      .post('/auth/reset-password')
      .send({ token, password: 'long enough', confirm_password: 'long enougH' });
    expect(mismatch.status).toBe(400);
    expect(Object.keys(mismatch.body.errors)).toEqual(['confirm_password']);
    // a refused form does not use the token up
    await ctx.api.post('/auth/reset-password').send({ token, password: 'long enough' }).expect(200);
  });

  it('refuses a token mailed to an address the account no longer has', async () => {
    const owner = await registerUser(ctx.app);
    const token = await mailedResetToken(owner.user.email);
    await ctx.api
      .as(owner)
      .put('/users/current')
      .send({ email: uniqueEmail('moved') })
      .expect(200);
    await ctx.api.post('/auth/reset-password').send({ token, password: 'new secret 123' }).expect(400);
  });

  it('counts what it mails in /metrics by purpose and result only', async () => {
    const metrics = await request(ctx.app).get('/metrics').expect(200);
    expect(metrics.text).toMatch(/^mail_sent_total\{purpose="reset-password",result="sent"\} [1-9]\d*$/m);
  });
});
