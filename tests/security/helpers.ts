/**
 * What every attack of the security suite asserts besides its refusal: that nothing changed in the
 * database (every collection, document by document) and that the answer leaks nothing of the server
 * (no stack trace, no driver or library message).
 */
import mongoose from 'mongoose';
import type { Response } from 'supertest';
import { createBlog } from '../helpers/blogs';
import { useTestApp } from '../helpers/test-app';

/** The app a security test file attacks, with an admin, a regular user and a published blog made before the tests. */
export function useTargetApp() {
  const ctx = useTestApp();
  const admin = ctx.signedInAdmin();
  const reader = ctx.signedInUser();
  const published = ctx.fixture(() => createBlog(ctx.app, admin, { title: 'A published post', status: 'published' }));
  return { ctx, api: ctx.api, admin, reader, published };
}

/** Every document of every collection of the test's database, in a stable order, as one string. */
export async function databaseSnapshot(): Promise<string> {
  const db = mongoose.connection.db!;
  const names = (await db.listCollections().toArray()).map((collection) => collection.name).sort();
  const collections: Array<[string, unknown[]]> = [];
  for (const name of names) {
    collections.push([name, await db.collection(name).find({}).sort({ _id: 1 }).toArray()]);
  }
  return JSON.stringify(collections);
}

/** Runs the attack and fails the test if any document was added, removed or changed meanwhile. */
export async function expectDatabaseUnchanged<T>(attack: () => Promise<T>): Promise<T> {
  const before = await databaseSnapshot();
  const result = await attack();
  expect(await databaseSnapshot()).toBe(before);
  return result;
}

/** Traces of the server's insides that must never reach a client. */
const LEAKS: RegExp[] = [
  /\n\s+at [^\n]+:\d+:\d+/, // a stack frame
  /"stack"/,
  /node_modules/,
  /\.ts:\d+/,
  /Mongo[A-Za-z]*Error/,
  /E11000/,
  /Cast to [A-Za-z]+ failed/,
  /BSON/,
  /mongoose/i,
  /Failed to decode param/,
  /incorrect header check/,
  /Maximum call stack/,
  /RangeError|TypeError|SyntaxError|URIError/,
];

/** The answer is a client error in the spec's shape, and its body carries nothing of the server's insides. */
export function expectCleanRefusal(response: Response, status: number | number[]): void {
  expect([status].flat()).toContain(response.status);
  const body = response.text ?? '';
  for (const leak of LEAKS) expect(body).not.toMatch(leak);
  if (response.status === 429) {
    expect(response.body).toEqual({ error: expect.any(String) });
  } else if (response.body?.code === 'ValidationError' && response.status === 400) {
    expect(Object.keys(response.body).sort()).toEqual(['code', 'errors']);
  } else {
    expect(response.body).toEqual({ code: expect.any(String), message: expect.any(String) });
  }
}
