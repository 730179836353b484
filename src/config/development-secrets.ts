/**
 * Development JWT secrets that outlive the process: generated once into a git-ignored file
 * (.data/dev-secrets.json, mode 0600) and read back on every start, so restarts and `npm run dev`
 * reloads keep the tokens a SPA holds valid. Never used in production (the secrets are required there)
 * nor in tests (they bring their own).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from './errors';

export interface DevelopmentSecrets {
  accessSecret: string;
  refreshSecret: string;
}

const generate = () => randomBytes(48).toString('base64url');
const isSecret = (value: unknown): value is string => typeof value === 'string' && value.length >= 32;

export function loadDevelopmentSecrets(file: string): DevelopmentSecrets {
  const existing = readSecrets(file);
  if (existing) return existing;
  const created = { accessSecret: generate(), refreshSecret: generate() };
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    // 'wx': when two processes start at once, the one that loses the race reads the winner's file
    writeFileSync(file, `${JSON.stringify(created, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    return created;
  } catch (error) {
    const raced = (error as NodeJS.ErrnoException).code === 'EEXIST' && readSecrets(file);
    if (raced) return raced;
    throw new ConfigError(
      `JWT secrets: cannot keep development secrets in ${file} (${(error as Error).message}); set JWT_ACCESS_SECRET and JWT_REFRESH_SECRET`,
    );
  }
}

function readSecrets(file: string): DevelopmentSecrets | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    if (
      isSecret(parsed.accessSecret) &&
      isSecret(parsed.refreshSecret) &&
      parsed.accessSecret !== parsed.refreshSecret
    ) {
      return { accessSecret: parsed.accessSecret, refreshSecret: parsed.refreshSecret };
    }
  } catch {
    // fall through
  }
  throw new ConfigError(`JWT secrets: ${file} is not a valid development secrets file; delete it to generate new ones`);
}
