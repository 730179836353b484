/**
 * How many sequential database round trips a read costs, counted with the driver's command monitoring.
 * A "step" begins with a command sent while none of the request's earlier commands is still in flight;
 * commands sent while another is in flight (Promise.all) share its step. Issue 11's budget: an
 * authenticated request spends at most 1 step before its handler; a list page and a slug read at most 3.
 * The app here checks every session in the database (AUTH_CACHE_TTL_MS=0), so the steps counted are those
 * of a session not checked lately; two tests count reads whose session check and authors were kept.
 */
import type { CommandStartedEvent, CommandSucceededEvent, CommandFailedEvent } from 'mongodb';
import mongoose from 'mongoose';
import request from 'supertest';
import { createBlog } from './helpers/blogs';
import { useTestApp } from './helpers/test-app';
import { agent } from './helpers/agent';

let slug: string;

interface Step {
  /** "find users", "count blogs", ... in the order they were sent */
  commands: string[];
}

let recording: { steps: Step[]; inFlight: Set<number> } | undefined;

function onStarted(event: CommandStartedEvent) {
  if (!recording) return;
  const collection = event.command[event.commandName];
  const label = `${event.commandName} ${typeof collection === 'string' ? collection : ''}`.trim();
  if (recording.inFlight.size === 0) recording.steps.push({ commands: [] });
  recording.steps[recording.steps.length - 1].commands.push(label);
  recording.inFlight.add(event.requestId);
}

function onEnded(event: CommandSucceededEvent | CommandFailedEvent) {
  recording?.inFlight.delete(event.requestId);
}

/** The steps the database saw while one request was served. */
async function stepsOf(send: () => Promise<request.Response>, expectedStatus = 200): Promise<Step[]> {
  recording = { steps: [], inFlight: new Set() };
  try {
    const response = await send();
    expect(response.status).toBe(expectedStatus);
    return recording.steps;
  } finally {
    recording = undefined;
  }
}

const ctx = useTestApp({ env: { AUTH_CACHE_TTL_MS: '0' } });
const api = ctx.api;
const admin = ctx.signedInAdmin();
const reader = ctx.signedInUser();
beforeAll(async () => {
  for (let i = 0; i < 3; i++) slug = (await createBlog(ctx.app, admin, { status: 'published' })).slug;

  // Reconnect with command monitoring on (a connection reads the setting when it is opened).
  const { name } = mongoose.connection;
  const uri = process.env.TEST_MONGODB_URI!;
  await mongoose.disconnect();
  await mongoose.connect(uri, { dbName: name, monitorCommands: true });
  const client = mongoose.connection.getClient();
  client.on('commandStarted', onStarted);
  client.on('commandSucceeded', onEnded);
  client.on('commandFailed', onEnded);
  // Open enough pooled connections that parallel reads never wait for a new connection to be made.
  await Promise.all(Array.from({ length: 8 }, () => agent(ctx.app).as(reader).get('/blogs/')));
});

describe('database steps per request', () => {
  it('authenticates in one step: the session and the user are read side by side', async () => {
    const steps = await stepsOf(() => api.as(reader).get('/users/current'));
    expect(steps).toEqual([{ commands: expect.arrayContaining(['find sessions', 'find users']) }]);
    expect(steps[0].commands).toHaveLength(2);
  });

  it('spends no step on a session checked by an earlier read of this instance (AUTH_CACHE_TTL_MS)', async () => {
    const cached = agent(ctx.buildApp({ AUTH_CACHE_TTL_MS: '60000' }).app);
    expect((await cached.as(reader).get('/users/current')).status).toBe(200);

    const steps = await stepsOf(() => cached.as(reader).get('/users/current'));

    expect(steps).toEqual([]);
  });

  it('reads no author an earlier read of this instance read (AUTH_CACHE_TTL_MS): a slug in 2 steps', async () => {
    const cached = agent(ctx.buildApp({ AUTH_CACHE_TTL_MS: '60000' }).app);
    expect((await cached.as(reader).get(`/blogs/${slug}`)).status).toBe(200);

    const steps = await stepsOf(() => cached.as(reader).get(`/blogs/${slug}`));

    expect(steps.map((step) => step.commands)).toEqual([['findAndModify blogs'], ['find likes']]);
  });

  it('reads no likes for an anonymous reader (PUBLIC_READS): a slug in 2 steps', async () => {
    const publicApp = ctx.buildApp({ AUTH_CACHE_TTL_MS: '0', PUBLIC_READS: 'true' }).app;

    const steps = await stepsOf(() => request(publicApp).get(`/api/v1/blogs/${slug}`));

    expect(steps.map((step) => step.commands)).toEqual([['findAndModify blogs'], ['find users']]);
  });

  it('answers an invalid token without reading the database', async () => {
    const steps = await stepsOf(() => api.as('a.b.c').get('/users/current'), 401);
    expect(steps).toEqual([]);
  });

  it.each([
    ['a regular user', () => reader],
    ['an admin', () => admin],
  ])('lists a page of blogs for %s in 3 steps: auth; count ‖ find; authors ‖ likes', async (_who, viewer) => {
    const steps = await stepsOf(() => api.as(viewer()).get('/blogs/?limit=20'));
    expect(steps.map((step) => [...step.commands].sort())).toEqual([
      ['find sessions', 'find users'],
      ['aggregate blogs', 'find blogs'], // countDocuments is an aggregate
      ['find likes', 'find users'],
    ]);
  });

  it("lists one author's blogs in 3 steps", async () => {
    const steps = await stepsOf(() => api.as(reader).get(`/blogs/user/${admin.user._id}`));
    expect(steps).toHaveLength(3);
  });

  it('reads a blog by slug in 3 steps, counting the view in the read itself', async () => {
    const steps = await stepsOf(() => api.as(reader).get(`/blogs/${slug}`));
    expect(steps.map((step) => [...step.commands].sort())).toEqual([
      ['find sessions', 'find users'],
      ['findAndModify blogs'],
      ['find likes', 'find users'],
    ]);
  });
});
