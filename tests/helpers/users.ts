/** Creates users and sessions through the API itself, as a client would. */
import type { Express } from 'express';
import request from 'supertest';

export interface SignedInUser {
  accessToken: string;
  /** The `refreshToken=...` pair, ready for a Cookie header. */
  refreshCookie: string;
  user: { _id: string; email: string; username: string; role: string; [key: string]: unknown };
  password: string;
}

let counter = 0;

export function uniqueEmail(prefix = 'user'): string {
  counter += 1;
  return `${prefix}${counter}.${process.pid}@example.com`;
}

export function refreshCookieOf(response: request.Response): string {
  const cookies = ([] as string[]).concat(response.headers['set-cookie'] ?? []);
  const cookie = cookies.find((value) => value.startsWith('refreshToken='));
  if (!cookie) throw new Error(`no refreshToken cookie in response ${response.status}`);
  return cookie.split(';')[0];
}

export async function registerUser(
  app: Express,
  fields: { email?: string; password?: string; role?: 'admin' | 'user' } = {},
): Promise<SignedInUser> {
  const password = fields.password ?? 'password123';
  const response = await request(app)
    .post('/api/v1/auth/register')
    .send({ email: fields.email ?? uniqueEmail(), password, ...(fields.role ? { role: fields.role } : {}) });
  if (response.status !== 201) throw new Error(`register failed: ${response.status} ${JSON.stringify(response.body)}`);
  return {
    accessToken: response.body.accessToken,
    refreshCookie: refreshCookieOf(response),
    user: response.body.user,
    password,
  };
}

/** An admin: the test environment whitelists admin@example.com; other admins need ADMIN_EMAILS overrides. */
export async function registerAdmin(app: Express, email = 'admin@example.com'): Promise<SignedInUser> {
  return registerUser(app, { email, role: 'admin' });
}

export const bearer = (user: SignedInUser) => ({ Authorization: `Bearer ${user.accessToken}` });
