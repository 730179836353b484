/**
 * Admin bootstrap (`npm run make-admin -- <email>`): the operator promotes an existing account, which then
 * acts as admin at once, with the session it already has. And `npm start` runs the built dist/ only.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import mongoose from 'mongoose';
import { databaseUri, runToExit, type ProcessResult } from './helpers/server-process';
import { useTestApp } from './helpers/test-app';
import { registerUser } from './helpers/users';

const PROJECT_ROOT = path.resolve(__dirname, '..');

const ctx = useTestApp();
const api = ctx.api;

function makeAdmin(...args: string[]): Promise<ProcessResult> {
  return runToExit(path.join('cli', 'make-admin.ts'), args, {
    MONGODB_URI: databaseUri(mongoose.connection.name),
    ...Object.fromEntries(
      ['JWT_ACCESS_SECRET', 'JWT_REFRESH_SECRET'].map((name) => [name, 'x'.repeat(31) + name.length]),
    ),
  });
}

describe('npm run make-admin -- <email>', () => {
  it('promotes an existing account, not on the whitelist, whose open session then passes admin routes', async () => {
    const user = await registerUser(ctx.app, { email: 'Operator.Chosen@example.com' });
    expect((await api.as(user).get('/users')).status).toBe(403);

    const result = await makeAdmin('operator.chosen@EXAMPLE.com');

    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(`operator.chosen@example.com (${user.user.username}) is now an admin\n`);
    expect((await api.as(user).get('/users')).status).toBe(200);
    expect((await api.as(user).get('/users/current')).body.user.role).toBe('admin');
    expect((await makeAdmin('operator.chosen@example.com')).stdout).toBe(
      'operator.chosen@example.com is already an admin\n',
    );
  });

  it('says in one line that an unknown email must register first, and how to call it without one', async () => {
    const unknown = await makeAdmin('nobody@example.com');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(
      'make-admin: no account with the email nobody@example.com: register it first (POST /api/v1/auth/register), then run this again\n',
    );

    const usage = await makeAdmin();
    expect(usage.code).toBe(1);
    expect(usage.stderr).toBe('make-admin: usage: npm run make-admin -- <email of an existing account>\n');
  });
});

describe('npm start', () => {
  const scripts = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')).scripts as Record<
    string,
    string
  >;

  it('runs dist/ only, with no build step before it', () => {
    expect(scripts.start).toBe('node dist/server.js');
    expect(scripts).not.toHaveProperty('prestart');
    expect(scripts.build).toBe('tsc -p tsconfig.build.json');
  });

  it('is prepared by npm ci on a clone (the compiler and src/ present), and skipped on a production install', () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'blog-api-prepare-'));
    try {
      // a production install: package.json and dist/ only, no compiler on the PATH
      writeFileSync(path.join(directory, 'package.json'), JSON.stringify({ name: 'x', version: '1.0.0', scripts }));
      const production = spawnSync('sh', ['-c', scripts.prepare], {
        cwd: directory,
        env: { PATH: '/usr/bin:/bin' },
        encoding: 'utf8',
      });
      expect(production.status).toBe(0);
      expect(production.stdout + production.stderr).toBe('');
      // a clone: src/ present and tsc on the PATH, as npm puts node_modules/.bin there; npm run build is what it calls
      expect(scripts.prepare).toMatch(/\[ -d src \] && command -v tsc .* then npm run build; fi$/);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
