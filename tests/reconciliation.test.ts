/**
 * Counters that heal: the reconciliation recounts likes and comments per blog and repairs what a crash
 * between a record and its counter left behind, logging each fix; and the database watchdog reopens a
 * connection that stays unreachable while a fresh one gets through, or else makes /healthz fail.
 */
import request from 'supertest';
import mongoose from 'mongoose';
import { createApp } from '../src/app';
import { startDatabaseWatchdog } from '../src/lib/database-watchdog';
import { BlogModel } from '../src/models/blog.model';
import { CommentModel } from '../src/models/comment.model';
import { LikeModel } from '../src/models/like.model';
import type { Logger } from '../src/lib/logger';
import { createCounterRepair } from '../src/services/counter-repair';
import { createReconciliationService } from '../src/services/reconciliation.service';
import { createLocalStorage } from '../src/services/storage/local-storage';
import { createBlog } from './helpers/blogs';
import { captureLog } from './helpers/log-capture';
import { useTestApp } from './helpers/test-app';
import { registerUser } from './helpers/users';

/** The counters half of the service; the banner storage is this file's own (the sweep is tested elsewhere). */
const reconcileCounters = (logger: Logger) =>
  createReconciliationService({
    storage: createLocalStorage(ctx.uploadsDir),
    logger,
    orphanMinAgeMs: 60 * 60_000,
  }).reconcileCounters();

const ctx = useTestApp();
const api = ctx.api;
const admin = ctx.signedInAdmin();

describe('reconcileCounters', () => {
  it('sets likesCount and commentsCount back to the records, logs each fix, and leaves right counters alone', async () => {
    const drifted = await createBlog(ctx.app, admin, { status: 'published' });
    const right = await createBlog(ctx.app, admin, { status: 'published' });
    const reader = await registerUser(ctx.app);
    for (const blog of [drifted, right]) {
      expect((await api.as(reader).post(`/likes/blog/${blog._id}`)).status).toBe(200);
      expect((await api.as(reader).post(`/comments/blog/${blog._id}`).send({ content: 'hi' })).status).toBe(201);
    }
    // what a SIGKILL between the record and its $inc leaves: one counter short, one too high
    await BlogModel.updateOne({ _id: drifted._id }, { $set: { likesCount: 0, commentsCount: 3 } });
    const log = captureLog();

    const report = await reconcileCounters(log.logger);

    expect(report.fixes).toEqual(
      expect.arrayContaining([
        { blog: drifted._id, counter: 'likesCount', from: 0, to: 1 },
        { blog: drifted._id, counter: 'commentsCount', from: 3, to: 1 },
      ]),
    );
    expect(report.fixes.filter((fix) => fix.blog === right._id)).toEqual([]);
    const [fixed, untouched] = await Promise.all([
      BlogModel.findById(drifted._id).lean(),
      BlogModel.findById(right._id).lean(),
    ]);
    expect([fixed!.likesCount, fixed!.commentsCount]).toEqual([1, 1]);
    expect([untouched!.likesCount, untouched!.commentsCount]).toEqual([1, 1]);
    expect(log.lines.join('\n')).toContain(`blog ${drifted._id} likesCount was 0, records say 1: fixed`);

    // a second run finds nothing left to fix
    expect((await reconcileCounters(captureLog().logger)).fixes.filter((fix) => fix.blog === drifted._id)).toEqual([]);
  });

  it('removes likes and comments whose blog was deleted half-way', async () => {
    const ghost = new mongoose.Types.ObjectId();
    await LikeModel.create({ blog: ghost, user: new mongoose.Types.ObjectId() });
    await CommentModel.create({ blog: ghost, author: new mongoose.Types.ObjectId(), content: 'orphan' });

    const report = await reconcileCounters(captureLog().logger);

    expect(report.orphanLikesRemoved).toBe(1);
    expect(report.orphanCommentsRemoved).toBe(1);
    expect(await LikeModel.countDocuments({ blog: ghost })).toBe(0);
    expect(await CommentModel.countDocuments({ blog: ghost })).toBe(0);
  });
});

describe('the counter repair (the instance that saw a write fail)', () => {
  it('sets a named blog right, checks it again once the settle time has passed, then lets it go', async () => {
    const blog = await createBlog(ctx.app, admin, { status: 'published' });
    const reader = await registerUser(ctx.app);
    expect((await api.as(reader).post(`/likes/blog/${blog._id}`)).status).toBe(200);
    // what a cut between the like and its $inc leaves
    await BlogModel.updateOne({ _id: blog._id }, { $set: { likesCount: 0 } });
    const log = captureLog();
    const repair = createCounterRepair({ logger: log.logger, settleMs: 300, intervalMs: 60_000 });
    try {
      repair.suspect(blog._id);
      await repair.repairNow();
      expect((await BlogModel.findById(blog._id).lean())!.likesCount).toBe(1);
      expect(log.lines.join('\n')).toContain(`counter repair: blog ${blog._id} likesCount was 0, records say 1: fixed`);
      // kept until a check after the settle time finds it right: an $inc in flight at the fix has landed by then
      expect(repair.waiting()).toBe(1);
      await repair.repairNow();
      expect(repair.waiting()).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await repair.repairNow();
      expect(repair.waiting()).toBe(0);
    } finally {
      repair.stop();
    }
  });

  it('does not set a counter that moved between its read and the recount (the next check does)', async () => {
    const blog = await createBlog(ctx.app, admin, { status: 'published' });
    await BlogModel.updateOne({ _id: blog._id }, { $set: { likesCount: 5 } });
    // another instance's like lands between this repair's read of the counter and its set
    const repair = createCounterRepair({ logger: captureLog().logger, settleMs: 0, intervalMs: 60_000 });
    const countDocuments = LikeModel.countDocuments.bind(LikeModel);
    const spy = jest.spyOn(LikeModel, 'countDocuments').mockImplementationOnce(
      (filter) =>
        (async () => {
          await BlogModel.updateOne({ _id: blog._id }, { $inc: { likesCount: 1 } });
          return countDocuments(filter);
        })() as never,
    );
    try {
      repair.suspect(blog._id);
      await repair.repairNow();
      // the $inc was kept, not overwritten by a count taken before it
      expect((await BlogModel.findById(blog._id).lean())!.likesCount).toBe(6);
      expect(repair.waiting()).toBe(1);
      await repair.repairNow();
      expect((await BlogModel.findById(blog._id).lean())!.likesCount).toBe(0);
      expect(repair.waiting()).toBe(1);
      await repair.repairNow();
      expect(repair.waiting()).toBe(0);
    } finally {
      spy.mockRestore();
      repair.stop();
    }
  });
});

describe('database watchdog', () => {
  function clock() {
    let now = 0;
    return { now: () => now, advance: (ms: number) => (now += ms) };
  }

  it('does nothing while the connection answers, nor during an outage nobody can reach through', async () => {
    const time = clock();
    let reopened = 0;
    let connectionUp = true;
    const watchdog = startDatabaseWatchdog({
      intervalMs: 0,
      unreachableMs: 10_000,
      logger: captureLog().logger,
      now: time.now,
      probes: { ping: async () => connectionUp, fresh: async () => false, reopen: async () => void (reopened += 1) },
    });
    await watchdog.check();
    connectionUp = false;
    time.advance(60_000);
    await watchdog.check();

    expect(reopened).toBe(0);
    expect(watchdog.healthy()).toBe(true);
  });

  it('reopens the connection once it has been unreachable past the bound while a fresh connection succeeds', async () => {
    const time = clock();
    let wedged = true;
    const log = captureLog();
    const watchdog = startDatabaseWatchdog({
      intervalMs: 0,
      unreachableMs: 10_000,
      logger: log.logger,
      now: time.now,
      probes: { ping: async () => !wedged, fresh: async () => true, reopen: async () => void (wedged = false) },
    });
    time.advance(5_000);
    await watchdog.check();
    expect(watchdog.reopened).toBe(0); // not yet past the bound

    time.advance(6_000);
    await watchdog.check();
    expect(watchdog.reopened).toBe(1);
    expect(watchdog.healthy()).toBe(true);
    expect(log.lines.join('\n')).toMatch(/reopening it[\s\S]*reopened and answering/);
  });

  it('does not reopen a connection that answers again once the database is back (no false alarm right after an outage)', async () => {
    const time = clock();
    const answers = [false, true]; // failed while the database was away, answers on the second look
    let reopened = 0;
    const watchdog = startDatabaseWatchdog({
      intervalMs: 0,
      unreachableMs: 1_000,
      logger: captureLog().logger,
      now: time.now,
      probes: {
        ping: async () => answers.shift() ?? true,
        fresh: async () => true,
        reopen: async () => void (reopened += 1),
      },
    });
    time.advance(5_000);
    await watchdog.check();

    expect(reopened).toBe(0);
    expect(watchdog.healthy()).toBe(true);
  });

  it('makes /healthz answer 503 when reopening does not bring the connection back', async () => {
    const time = clock();
    const watchdog = startDatabaseWatchdog({
      intervalMs: 0,
      unreachableMs: 1_000,
      logger: captureLog().logger,
      now: time.now,
      probes: { ping: async () => false, fresh: async () => true, reopen: async () => undefined },
    });
    const app = createApp({ config: ctx.config, logger: ctx.logger, isLive: () => watchdog.healthy() });
    expect((await request(app).get('/healthz')).status).toBe(200);

    time.advance(2_000);
    await watchdog.check();
    expect(watchdog.healthy()).toBe(true); // one failed attempt is not yet the end
    await watchdog.check();

    const response = await request(app).get('/healthz');
    expect(watchdog.healthy()).toBe(false);
    expect(response.status).toBe(503);
    expect(response.body).toEqual({ status: 'unhealthy', reason: expect.any(String) });
  });

  it('really reopens the application connection (models keep working afterwards)', async () => {
    const { reopenDatabase } = await import('../src/lib/database');
    await createBlog(ctx.app, admin);
    const before = mongoose.connection.getClient();
    await reopenDatabase();

    expect(mongoose.connection.getClient()).not.toBe(before);
    expect(mongoose.connection.readyState).toBe(1);
    expect(await BlogModel.countDocuments({})).toBeGreaterThan(0);
    expect((await request(ctx.app).get('/readyz')).status).toBe(200);
  });
});
