/**
 * The entry points' way to their configuration (server.ts, reconcile.ts, cli/): this process's
 * environment, with the project's .env read into it first (dotenv never overrides a variable already
 * set). Only src/config touches process.env; everything else receives the Config it builds.
 */
import 'dotenv/config';
import path from 'node:path';
import { loadConfig, type LoadConfigOptions, type LoadedConfig } from './index';

/** Where development keeps what it generates, git-ignored: the JWT secrets and the local database. */
export const DEVELOPMENT_DATA_DIR = path.resolve(__dirname, '..', '..', '.data');
/** The JWT secrets development generates when none are set (see LoadConfigOptions). */
export const DEVELOPMENT_SECRETS_FILE = path.join(DEVELOPMENT_DATA_DIR, 'dev-secrets.json');

export function loadProcessConfig(options: LoadConfigOptions = {}): LoadedConfig {
  return loadConfig(process.env, options);
}

/**
 * Whether this process runs in production as far as NODE_ENV says, valid or not: for the one line a
 * start-up that failed writes before (or without) a Config, in the form production's log lines take.
 */
export const productionRequested = (): boolean => process.env.NODE_ENV === 'production';
