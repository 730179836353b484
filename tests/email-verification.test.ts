/**
 * EMAIL_VERIFICATION: registration and an email change mail a link (to a real SMTP server in this
 * process); with `required`, an unverified account reads but may not comment, like or write blogs.
 */
import { UserModel } from '../src/models/user.model';
import { UNVERIFIED_EMAIL_MESSAGE } from '../src/schemas/auth';
import { agent } from './helpers/agent';
import { createBlog, postBlog } from './helpers/blogs';
import { TEST_SITE_URL, tokenOfLink, useMailServer } from './helpers/mail-server';
import { useTestApp } from './helpers/test-app';
import { registerAdmin, registerUser, uniqueEmail, type SignedInUser } from './helpers/users';

const mail = useMailServer();
const ctx = useTestApp(() => ({
  env: { SMTP_URL: mail.url(), SITE_URL: TEST_SITE_URL, EMAIL_VERIFICATION: 'required' },
}));

/** Follows the verification link mailed to the user's address. */
async function verify(user: SignedInUser) {
  const token = tokenOfLink(await mail.nextMessageTo(user.user.email));
  await ctx.api.post('/auth/verify-email').send({ token }).expect(200, { message: 'Email verified' });
}

/** A published blog, by an admin who verified their address. */
const blog = ctx.fixture(async () => {
  const admin = await registerAdmin(ctx.app, 'admin@example.com');
  await verify(admin);
  return createBlog(ctx.app, admin, { status: 'published' });
});

/** The writes others see, as an unverified account would try them. */
const writesOf = (user: SignedInUser, api = ctx.api) => ({
  comment: () => api.as(user).post(`/comments/blog/${blog._id}`).send({ content: 'Hello' }),
  like: () => api.as(user).post(`/likes/blog/${blog._id}`),
});

describe('EMAIL_VERIFICATION=required', () => {
  it('mails a link at registration; until it is followed the account reads but may not comment or like', async () => {
    const reader = await registerUser(ctx.app);
    expect(reader.user.emailVerified).toBe(false);
    const message = await mail.nextMessageTo(reader.user.email);
    expect(message.parsed.subject).toBe('Verify your email address');
    expect(message.parsed.text).toContain(`${TEST_SITE_URL}/verify-email?token=`);

    await ctx.api.as(reader).get(`/blogs/${blog.slug}`).expect(200);
    for (const write of Object.values(writesOf(reader))) {
      const refused = await write();
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ code: 'AuthorizationError', message: UNVERIFIED_EMAIL_MESSAGE });
    }

    await ctx.api
      .post('/auth/verify-email')
      .send({ token: tokenOfLink(message) })
      .expect(200);
    const current = await ctx.api.as(reader).get('/users/current').expect(200);
    expect(current.body.user.emailVerified).toBe(true);
    await writesOf(reader).comment().expect(201);
    await writesOf(reader).like().expect(200);
  });

  it('refuses an unverified admin a new blog too', async () => {
    const admin = await registerAdmin(ctx.app, 'chief@example.com');
    const refused = await postBlog(ctx.app, admin);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe(UNVERIFIED_EMAIL_MESSAGE);
  });

  it('unverifies a changed email and mails the new address; the old link stops working', async () => {
    const reader = await registerUser(ctx.app);
    const oldToken = tokenOfLink(await mail.nextMessageTo(reader.user.email));
    const email = uniqueEmail('moved');
    const updated = await ctx.api.as(reader).put('/users/current').send({ email }).expect(200);
    expect(updated.body.user.emailVerified).toBe(false);
    await ctx.api.post('/auth/verify-email').send({ token: oldToken }).expect(400);
    await verify({ ...reader, user: { ...reader.user, email } });
    await writesOf(reader).comment().expect(201);
  });

  it('resends a link to the signed-in user, a few times per window, and not once verified', async () => {
    const reader = await registerUser(ctx.app);
    await mail.nextMessageTo(reader.user.email);
    const resent = await ctx.api.as(reader).post('/auth/verify-email/resend').expect(202);
    expect(resent.body).toEqual({ message: 'A link to verify your email is on its way.' });
    await verify(reader);
    const again = await ctx.api.as(reader).post('/auth/verify-email/resend');
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ code: 'BadRequest', message: 'Your email is already verified' });
    // MAILS_PER_ADDRESS (3) requests per window, answered or not
    await ctx.api.as(reader).post('/auth/verify-email/resend').expect(400);
    const throttled = await ctx.api.as(reader).post('/auth/verify-email/resend');
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('a password reset', () => {
  /** The token of the reset link mailed to the reader, once the verification mail of their registration is read. */
  async function resetToken(reader: SignedInUser) {
    await mail.nextMessageTo(reader.user.email, 'Verify your email address');
    await ctx.api.post('/auth/forgot-password').send({ email: reader.user.email }).expect(202);
    return tokenOfLink(await mail.nextMessageTo(reader.user.email, 'Reset your password'));
  }

  it('proves the address its link went to, as a verification link does', async () => {
    const reader = await registerUser(ctx.app);
    const token = await resetToken(reader);

    const reset = await ctx.api.post('/auth/reset-password').send({ token, password: 'a new password' });

    expect(reset.body.user.emailVerified).toBe(true);
    await ctx.api.as(reset.body.accessToken).post(`/comments/blog/${blog._id}`).send({ content: 'Hi' }).expect(201);
  });

  it('leaves unverified an address the account changed to while the reset ran', async () => {
    const reader = await registerUser(ctx.app);
    const token = await resetToken(reader);
    const changed = uniqueEmail('changed');
    const save = UserModel.prototype.save;
    // the change lands while the reset saves the new password
    const spy = jest.spyOn(UserModel.prototype, 'save').mockImplementationOnce(async function (
      this: InstanceType<typeof UserModel>,
      ...args: Parameters<typeof save>
    ) {
      await UserModel.updateOne({ _id: this._id }, { $set: { email: changed, emailVerified: false } });
      return save.apply(this, args);
    });

    await ctx.api.post('/auth/reset-password').send({ token, password: 'a new password' }).expect(200);
    spy.mockRestore();

    expect(await UserModel.findById(reader.user._id).lean()).toMatchObject({ email: changed, emailVerified: false });
  });
});

describe('EMAIL_VERIFICATION=optional and off', () => {
  it('optional mails the link but lets an unverified account comment', async () => {
    const { app } = ctx.buildApp({ EMAIL_VERIFICATION: 'optional' });
    const reader = await registerUser(app);
    expect(reader.user.emailVerified).toBe(false);
    await mail.nextMessageTo(reader.user.email);
    await writesOf(reader, agent(app)).comment().expect(201);
  });

  it('off (the default) shows no emailVerified, mails nothing, and has no resend', async () => {
    const { app } = ctx.buildApp({ EMAIL_VERIFICATION: 'off' });
    const reader = await registerUser(app);
    expect(reader.user).not.toHaveProperty('emailVerified');
    const resend = await agent(app).as(reader).post('/auth/verify-email/resend');
    expect(resend.status).toBe(404);
    expect(resend.body.message).toBe('Email verification is off on this server (EMAIL_VERIFICATION=off)');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(mail.countTo(reader.user.email)).toBe(0);
  });
});
