/** Creates blogs through the API, as an admin's form would. */
import type { Express } from 'express';
import request from 'supertest';
import { makeImage } from './images';
import { bearer, type SignedInUser } from './users';

let counter = 0;

export interface BlogFields {
  title?: string;
  content?: string;
  status?: 'draft' | 'published';
  banner?: Buffer;
  filename?: string;
  /** Sent as they are: one field per string (repeated fields for an array). */
  tags?: string | string[];
  excerpt?: string;
  /** A scheduled publication (ISO date-time). */
  publishAt?: string;
}

/** A multipart POST /blogs/ with the given fields (a fresh title and a small PNG unless given). */
export async function postBlog(app: Express, admin: SignedInUser, fields: BlogFields = {}) {
  counter += 1;
  const req = request(app)
    .post('/api/v1/blogs/')
    .set(bearer(admin))
    .field('title', fields.title ?? `Blog number ${counter} of ${process.pid}`)
    .field('content', fields.content ?? '<p>Some <strong>content</strong></p>');
  if (fields.status) req.field('status', fields.status);
  for (const tag of [fields.tags ?? []].flat()) req.field('tags', tag);
  if (fields.excerpt !== undefined) req.field('excerpt', fields.excerpt);
  if (fields.publishAt !== undefined) req.field('publishAt', fields.publishAt);
  return req.attach('banner_image', fields.banner ?? (await makeImage('png')), fields.filename ?? 'banner.png');
}

/** A blog that must be created; fails the test with the answer otherwise. */
export async function createBlog(app: Express, admin: SignedInUser, fields: BlogFields = {}) {
  const response = await postBlog(app, admin, fields);
  if (response.status !== 201)
    throw new Error(`create blog failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.blog as { _id: string; slug: string; [key: string]: unknown };
}
