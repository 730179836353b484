/**
 * The benchmark's fairness check (bench/lib/equivalence.js): it must let through only answers equal
 * to the API's, status and body as text, with one view more on a slug read. And the floor's feed, run
 * as the benchmark runs it, answers byte for byte what the API does.
 */
import mongoose from 'mongoose';
import request from 'supertest';
import { startServer, type ServerProcess } from '../tools/lib/server';
import { createBlog } from './helpers/blogs';
import { databaseUri } from './helpers/server-process';
import { useTestApp } from './helpers/test-app';
import { registerAdmin } from './helpers/users';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { compareAnswers } = require('../bench/lib/equivalence') as {
  compareAnswers(ours: Answer, floor: Answer, options?: { viewCounted?: boolean }): string[];
};

interface Answer {
  status: number;
  text: string;
}

const blogAnswer = (viewsCount: number, title = 'A title') => ({
  status: 200,
  text: JSON.stringify({
    blog: { _id: '5f0000000000000000000001', title, viewsCount, likesCount: 2, likedByMe: false },
  }),
});

describe('the floor equivalence check', () => {
  it('accepts identical answers', () => {
    const answer = { status: 200, text: '{"user":{"_id":"1","username":"a"}}' };
    expect(compareAnswers(answer, { ...answer })).toEqual([]);
  });

  it('refuses another status, another value, and the same fields in another order', () => {
    expect(compareAnswers({ status: 200, text: '{}' }, { status: 404, text: '{}' })).toEqual([
      'status: ours 200, floor 404',
    ]);
    expect(compareAnswers({ status: 200, text: '{"a":1}' }, { status: 200, text: '{"a":2}' })).toEqual([
      expect.stringMatching(/^body differs at character 5/),
    ]);
    expect(compareAnswers({ status: 200, text: '{"a":1,"b":2}' }, { status: 200, text: '{"b":2,"a":1}' })).toHaveLength(
      1,
    );
  });

  it('expects exactly one view more from the floor on a slug read, and nothing else different', () => {
    expect(compareAnswers(blogAnswer(7), blogAnswer(8), { viewCounted: true })).toEqual([]);
    expect(compareAnswers(blogAnswer(7), blogAnswer(7), { viewCounted: true })).toEqual([
      'viewsCount: ours 7, floor 7 (expected 8)',
    ]);
    expect(compareAnswers(blogAnswer(7), blogAnswer(8, 'Another title'), { viewCounted: true })).toEqual([
      expect.stringMatching(/^body differs/),
    ]);
  });
});

describe("the floor's feed", () => {
  const SITE_URL = 'https://blog.example';
  let floor: ServerProcess | undefined;
  // before useTestApp: the floor stops before the database is dropped
  afterAll(() => floor?.stop());
  const ctx = useTestApp({ env: { SITE_URL } });

  it("is byte for byte the API's feed", async () => {
    const admin = await registerAdmin(ctx.app);
    await ctx.api.as(admin).put('/users/current').send({ first_name: 'Ada' }).expect(200);
    await createBlog(ctx.app, admin, { status: 'published', tags: ['a', 'b'], title: 'Fish & <chips>' });
    await createBlog(ctx.app, admin, { status: 'draft' });
    await createBlog(ctx.app, admin, { status: 'published', excerpt: 'Its own ]]> excerpt' });
    floor = await startServer({
      name: 'floor',
      args: ['bench/floor-server.js'],
      env: {
        MONGODB_URI: databaseUri(mongoose.connection.name),
        JWT_ACCESS_SECRET: ctx.config.jwt.accessSecret,
        SITE_URL,
        PUBLIC_URL: ctx.config.publicUrl,
      },
      readyLine: /floor listening on (\d+)/,
    });
    const ours = await request(ctx.app).get('/feed.xml');
    const theirs = await fetch(`${floor.baseUrl}/feed.xml`);
    expect(ours.text).toContain('Fish &amp; &lt;chips&gt;');
    expect(compareAnswers(ours, { status: theirs.status, text: await theirs.text() })).toEqual([]);
  });
});
