/**
 * All configuration, read from the environment once at boot, validated, typed and frozen.
 * Nothing else in src/ reads process.env. Documented setting by setting in docs/configuration.md.
 */
import { randomBytes } from 'node:crypto';
import express from 'express';
import { z } from 'zod';
import { parseCorsOrigins } from './cors-origins';
import { ConfigError } from './errors';
import { loadDevelopmentSecrets } from './development-secrets';
import { parseDurationMs, parseDurationSeconds } from './duration';
import { hasReadableHosts } from './mongodb-uri';
import { readNamedParts } from './named-parts';
import { parsePublicReads, PUBLIC_READS_FORMAT, type PublicCachePolicy } from './public-reads';
import { TRASH_RETENTION } from '../schemas/trash';
import { canonicalEmail } from '../schemas/user';

export { ConfigError };
export { API_BASE_PATH, API_VERSION } from './api';
export type { PublicCachePolicy } from './public-reads';

const emptyToUndefined = (value: unknown) => (value === '' ? undefined : value);
const optionalString = z.preprocess(emptyToUndefined, z.string().optional());
const boolean = (fallback: boolean) =>
  z
    .preprocess(emptyToUndefined, z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off']).optional())
    .transform((value) => (value === undefined ? fallback : ['true', '1', 'yes', 'on'].includes(value)));
const integer = (fallback: number, min: number, max = Number.MAX_SAFE_INTEGER) =>
  z
    .preprocess(emptyToUndefined, z.coerce.number().int().min(min).max(max).optional())
    .transform((value) => value ?? fallback);
const duration = (fallback: string) =>
  z.preprocess(emptyToUndefined, z.string().optional()).transform((value, ctx) => {
    const seconds = parseDurationSeconds(value ?? fallback);
    if (seconds === undefined) {
      ctx.addIssue({ code: 'custom', message: 'must be a duration such as 900, 90s, 15m, 12h or 7d' });
      return z.NEVER;
    }
    return seconds;
  });
/** Bounds of one duration in a setting of several (`name=duration,...`), in milliseconds. */
interface DurationBound {
  fallback: number;
  min: number;
  max: number;
}

/**
 * Several related durations in one setting, such as HTTP_TIMEOUTS=headers=20s,request=60s: each name
 * optional (its default otherwise), case-insensitive, bounded; anything unknown or out of bounds refused.
 */
const durations = <Name extends string>(bounds: Record<Name, DurationBound>) =>
  z.preprocess(emptyToUndefined, z.string().optional()).transform((value, ctx) => {
    const names = Object.keys(bounds) as Name[];
    const parts = readNamedParts(value ?? '', names);
    if (!parts.ok) {
      ctx.addIssue({
        code: 'custom',
        message: `"${parts.part}": expected name=duration, each name once, among ${names.join(', ')}`,
      });
      return z.NEVER;
    }
    const result = {} as Record<Name, number>;
    for (const name of names) {
      const text = parts.values[name];
      const millis = text === undefined ? bounds[name].fallback : parseDurationMs(text);
      const { min, max } = bounds[name];
      if (millis === undefined || millis < min || millis > max) {
        ctx.addIssue({
          code: 'custom',
          message: `${name} must be a duration from ${min} ms to ${max} ms, such as 20s`,
        });
        return z.NEVER;
      }
      result[name] = millis;
    }
    return result;
  });
const list = z.preprocess(emptyToUndefined, z.string().optional()).transform((value) =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean),
);

/** Longest blog content accepted by default, in characters (the contract documents this bound). */
export const DEFAULT_BLOG_CONTENT_MAX_LENGTH = 100_000;

/** Whether text written with %-escapes (a URL's user or password) decodes. */
function decodes(part: string): boolean {
  try {
    decodeURIComponent(part);
    return true;
  } catch {
    return false;
  }
}

function isRedisUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return url.port !== '0' && decodes(url.username) && decodes(url.password);
}

/** An address readers' browsers open or fetch: http or https only (`javascript:`, `ftp:` are URLs too). */
const webUrl = z.preprocess(
  emptyToUndefined,
  z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).optional(),
);

const environmentSchema = z.object({
  NODE_ENV: z.preprocess(emptyToUndefined, z.enum(['development', 'test', 'production']).default('development')),
  PORT: integer(3000, 0, 65535),
  PUBLIC_URL: webUrl,
  // The front end's address, for the links the API hands out to readers (feeds, mails, previews): src/lib/site-links.ts.
  SITE_URL: webUrl,
  MONGODB_URI: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^mongodb(\+srv)?:\/\/\S+$/, 'must be a mongodb:// or mongodb+srv:// connection string')
      .refine(
        (uri) => !/^mongodb(\+srv)?:\/\//.test(uri) || hasReadableHosts(uri),
        'has a host the driver cannot read: list hosts as host or host:port (1-65535), comma-separated, and percent-encode @, : and / in the user name and password',
      )
      .optional(),
  ),
  MONGODB_SERVER_API: boolean(false),
  JWT_ACCESS_SECRET: optionalString,
  JWT_REFRESH_SECRET: optionalString,
  ACCESS_TOKEN_TTL: duration('15m'),
  REFRESH_TOKEN_TTL: duration('7d'),
  ADMIN_EMAILS: list,
  BCRYPT_COST: integer(12, 4, 15),
  RATE_LIMIT_MAX: integer(60, 1),
  RATE_LIMIT_WINDOW_MS: integer(60_000, 1000),
  LOGIN_MAX_FAILURES_PER_ACCOUNT: integer(10, 1),
  LOGIN_MAX_FAILURES_PER_IP: integer(100, 1),
  LOGIN_FAILURE_WINDOW: duration('15m'),
  CORS_ORIGINS: list,
  // The refresh cookie: SameSite=Strict and Secure in production by default, as the interface says.
  COOKIE_SAMESITE: z.preprocess(
    (value) => (typeof value === 'string' ? emptyToUndefined(value.toLowerCase()) : value),
    z.enum(['strict', 'lax', 'none']).default('strict'),
  ),
  COOKIE_SECURE: z.preprocess(
    emptyToUndefined,
    z.enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off']).optional(),
  ),
  // Anonymous reading of published blogs and their comments (an operator option; the interface requires a token).
  // With cache directives instead of a switch, on with those durations (config/public-reads.ts).
  PUBLIC_READS: z.preprocess(emptyToUndefined, z.string().optional()).transform((value, ctx) => {
    const publicReads = parsePublicReads(value);
    if (!publicReads) {
      ctx.addIssue({ code: 'custom', message: PUBLIC_READS_FORMAT });
      return z.NEVER;
    }
    return publicReads;
  }),
  // Development and tests only: webhooks may target http:// and loopback/private addresses.
  WEBHOOKS_ALLOW_PRIVATE: boolean(false),
  // Reads may rely on a session check kept for this long (0: every request asks the database); docs/performance.md.
  AUTH_CACHE_TTL_MS: integer(5000, 0, 60_000),
  // PUT /users/current must carry current_password to change the password or email (the interface has no such field).
  REQUIRE_CURRENT_PASSWORD: boolean(false),
  // Outgoing mail (password reset, email verification): smtp(s)://user:pass@host:port?from=<sender>; src/lib/mailer.ts.
  SMTP_URL: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^smtps?:\/\/\S+$/, 'must look like smtp://user:pass@host:587?from=<sender address> (or smtps://)')
      .optional(),
  ),
  // Whether an account's address must be proven by a mailed link: off (the interface's behaviour), optional, required.
  EMAIL_VERIFICATION: z.preprocess(emptyToUndefined, z.enum(['off', 'optional', 'required']).default('off')),
  TRUST_PROXY: optionalString,
  LOG_LEVEL: z.preprocess(emptyToUndefined, z.enum(['silent', 'error', 'warn', 'info', 'http', 'debug']).optional()),
  BLOG_CONTENT_MAX_LENGTH: integer(DEFAULT_BLOG_CONTENT_MAX_LENGTH, 1, 1_000_000),
  UPLOADS_DIR: z.preprocess(emptyToUndefined, z.string().default('uploads')),
  CLOUDINARY_URL: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(
        /^cloudinary:\/\/[^:@/\s]+:[^:@/\s]+@[^:@/?\s]+(\?(upload_prefix|folder)=[^&\s]+(&(upload_prefix|folder)=[^&\s]+)?)?$/,
        'must look like cloudinary://<api_key>:<api_secret>@<cloud_name>, optionally followed by ?folder=<folder>&upload_prefix=<API base URL>',
      )
      .optional(),
  ),

  // Operations: several instances behind one limit, and graceful shutdown.
  REDIS_URL: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^rediss?:\/\/\S+$/, 'must be a redis:// or rediss:// URL')
      // a port that is no number, or past 65535, is no URL either; the client decodes the user and password
      .refine(isRedisUrl, 'must be a redis:// or rediss:// URL, with a port of 1 to 65535 and "%" written as %25')
      .optional(),
  ),
  // After SIGTERM: /readyz answers 503 for `readiness` while still serving, then in-flight requests get `grace`.
  SHUTDOWN_TIMEOUTS: durations({
    readiness: { fallback: 5_000, min: 0, max: 10 * 60_000 },
    grace: { fallback: 10_000, min: 0, max: 10 * 60_000 },
  }),

  // Metrics: GET /metrics for Prometheus (docs/operations-metrics.md).
  METRICS_ENABLED: boolean(true),
  // Each MongoDB command's round trip: the driver then decodes every reply once more for its event (lib/database.ts).
  MONGODB_COMMAND_METRICS: boolean(false),
  METRICS_TOKEN: z.preprocess(emptyToUndefined, z.string().min(16, 'must be at least 16 characters long').optional()),
  // Failure behaviour (docs/failure-behaviour.md): every wait on a dependency is bounded. The MongoDB
  // driver's own deadlines are options of MONGODB_URI (MONGODB_URI_TIMEOUTS below).
  DB_WATCHDOG_UNREACHABLE_MS: integer(20_000, 0, 60 * 60_000),
  RECONCILE_INTERVAL_MS: integer(60 * 60_000, 0, 7 * 24 * 60 * 60_000),
  // Posts in the trash longer than this are purged by the maintenance runs.
  TRASH_RETENTION_DAYS: integer(TRASH_RETENTION.defaultDays, TRASH_RETENTION.minDays, TRASH_RETENTION.maxDays),
  STORAGE_SAVE_TIMEOUT_MS: integer(15_000, 100, 10 * 60_000),
  // Node's HTTP server: all headers, the whole request, an idle keep-alive connection.
  HTTP_TIMEOUTS: durations({
    headers: { fallback: 20_000, min: 1_000, max: 10 * 60_000 },
    request: { fallback: 60_000, min: 1_000, max: 60 * 60_000 },
    keepAlive: { fallback: 5_000, min: 100, max: 10 * 60_000 },
  }),
});

/**
 * The MongoDB driver's deadlines, read from MONGODB_URI's options (?timeoutMS=5000&socketTimeoutMS=3000),
 * the driver's own way to set them, with this service's defaults and bounds. They are passed to the driver
 * explicitly, which would otherwise prefer them over the URI's.
 */
const MONGODB_URI_TIMEOUTS = {
  timeoutMS: { field: 'operationTimeoutMs', fallback: 10_000, min: 100, max: 10 * 60_000 },
  serverSelectionTimeoutMS: { field: 'serverSelectionTimeoutMs', fallback: 2_500, min: 100, max: 60_000 },
  socketTimeoutMS: { field: 'socketTimeoutMs', fallback: 10_000, min: 500, max: 10 * 60_000 },
  connectTimeoutMS: { field: 'connectTimeoutMs', fallback: 3_000, min: 100, max: 60_000 },
  heartbeatFrequencyMS: { field: 'heartbeatMs', fallback: 1_000, min: 500, max: 60_000 },
} as const;

/** Largest JSON body (bytes.js syntax): every JSON body the API takes is a few kB; blogs come as multipart. */
const JSON_BODY_LIMIT = '100kb';
/** Retry-After (seconds) of a 503 ServiceUnavailable while the database cannot be reached. */
const DB_UNAVAILABLE_RETRY_AFTER_SECONDS = 5;
/** Banner files younger than this are never swept as orphans: their blog may still be being written. */
const ORPHAN_BANNER_MIN_AGE_MS = 60 * 60_000;
/** The watchdog looks this many times within DB_WATCHDOG_UNREACHABLE_MS. */
const WATCHDOG_LOOKS_PER_BOUND = 4;

/**
 * Variables this service no longer reads, with what replaces each: refused at start, so that a setting
 * an operator still relies on is not silently ignored.
 */
const RETIRED_SETTINGS: Record<string, string> = {
  CLOUDINARY_CLOUD_NAME: 'set CLOUDINARY_URL=cloudinary://<api_key>:<api_secret>@<cloud_name>',
  CLOUDINARY_API_KEY: 'set CLOUDINARY_URL=cloudinary://<api_key>:<api_secret>@<cloud_name>',
  CLOUDINARY_API_SECRET: 'set CLOUDINARY_URL=cloudinary://<api_key>:<api_secret>@<cloud_name>',
  CLOUDINARY_UPLOAD_PREFIX: 'add ?upload_prefix=<URL> to CLOUDINARY_URL',
  CLOUDINARY_FOLDER: 'add ?folder=<folder> to CLOUDINARY_URL',
  MONGODB_OPERATION_TIMEOUT_MS: 'add ?timeoutMS=<ms> to MONGODB_URI',
  MONGODB_SERVER_SELECTION_TIMEOUT_MS: 'add ?serverSelectionTimeoutMS=<ms> to MONGODB_URI',
  MONGODB_SOCKET_TIMEOUT_MS: 'add ?socketTimeoutMS=<ms> to MONGODB_URI',
  MONGODB_CONNECT_TIMEOUT_MS: 'add ?connectTimeoutMS=<ms> to MONGODB_URI',
  MONGODB_HEARTBEAT_MS: 'add ?heartbeatFrequencyMS=<ms> to MONGODB_URI',
  DB_UNAVAILABLE_RETRY_AFTER_S: `unset it (Retry-After is ${DB_UNAVAILABLE_RETRY_AFTER_SECONDS} seconds)`,
  DB_WATCHDOG_INTERVAL_MS: `unset it (the watchdog looks ${WATCHDOG_LOOKS_PER_BOUND} times per DB_WATCHDOG_UNREACHABLE_MS; 0 there turns it off)`,
  RECONCILE_ON_START: 'unset it (RECONCILE_INTERVAL_MS=0 turns maintenance off, at start too)',
  ORPHAN_BANNER_MIN_AGE_MS: 'unset it (banner files younger than an hour are never swept)',
  JSON_BODY_LIMIT: `unset it (JSON bodies are limited to ${JSON_BODY_LIMIT}; blogs come as multipart forms)`,
  SHUTDOWN_READINESS_DELAY_MS: 'set SHUTDOWN_TIMEOUTS=readiness=<duration> (e.g. readiness=5s,grace=10s)',
  SHUTDOWN_GRACE_MS: 'set SHUTDOWN_TIMEOUTS=grace=<duration> (e.g. readiness=5s,grace=10s)',
  HTTP_HEADERS_TIMEOUT_MS: 'set HTTP_TIMEOUTS=headers=<duration> (e.g. headers=20s,request=60s,keepAlive=5s)',
  HTTP_REQUEST_TIMEOUT_MS: 'set HTTP_TIMEOUTS=request=<duration> (e.g. headers=20s,request=60s,keepAlive=5s)',
  HTTP_KEEP_ALIVE_TIMEOUT_MS: 'set HTTP_TIMEOUTS=keepAlive=<duration> (e.g. headers=20s,request=60s,keepAlive=5s)',
};

type DatabaseTimeoutField = (typeof MONGODB_URI_TIMEOUTS)[keyof typeof MONGODB_URI_TIMEOUTS]['field'];

/** The driver deadlines MONGODB_URI sets (option names are case-insensitive, as for the driver), else the defaults. */
function databaseTimeouts(uri: string | undefined): Record<DatabaseTimeoutField, number> {
  const query = uri?.includes('?') ? uri.slice(uri.indexOf('?') + 1) : '';
  const given = new Map([...new URLSearchParams(query)].map(([name, value]) => [name.toLowerCase(), value]));
  const timeouts = {} as Record<DatabaseTimeoutField, number>;
  for (const [option, { field, fallback, min, max }] of Object.entries(MONGODB_URI_TIMEOUTS)) {
    const text = given.get(option.toLowerCase());
    const value = text === undefined ? fallback : Number(text);
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new ConfigError(`MONGODB_URI: ${option} must be a whole number of milliseconds from ${min} to ${max}`);
    }
    timeouts[field] = value;
  }
  return timeouts;
}

/** Every environment variable the service reads (docs/configuration.md documents each one). */
export const SETTING_NAMES: readonly string[] = Object.keys(environmentSchema.shape);

export type TrustProxy = boolean | number | string[];

export type EmailVerification = 'off' | 'optional' | 'required';

/** The SMTP server mail goes through (SMTP_URL). Carries a password: never log it. */
export interface SmtpConfig {
  host: string;
  port: number;
  /** TLS from the first byte (smtps://); smtp:// upgrades with STARTTLS when the server offers it. */
  secure: boolean;
  auth?: { user: string; pass: string };
  /** The sender of every message: `?from=` of SMTP_URL, e.g. `Blog <no-reply@blog.example>`. */
  from: string;
}

export interface CloudinaryConfig {
  cloudName: string;
  apiKey: string;
  apiSecret: string;
  /** Folder the banners are uploaded into. */
  folder: string;
  /** API base URL; Cloudinary's own unless set (tests point it at a local server). */
  uploadPrefix?: string;
}

export interface Config {
  env: 'development' | 'test' | 'production';
  isProduction: boolean;
  port: number;
  /**
   * Absolute base URL of the service (e.g. https://api.example.com), for every link the API hands out
   * (banner URLs, the root's `docs`). Never derived from a request: a Host header is the client's to set.
   * PUBLIC_URL; required in production, http://localhost:<PORT> otherwise.
   */
  publicUrl: string;
  /** The front end's base URL (SITE_URL), without a trailing slash; links to it are off when unset. */
  siteUrl?: string;
  mongodb: { uri?: string; serverApi: boolean };
  jwt: {
    accessSecret: string;
    refreshSecret: string;
    accessTtlSeconds: number;
    refreshTtlSeconds: number;
  };
  adminEmails: ReadonlySet<string>;
  bcryptCost: number;
  rateLimit: { max: number; windowMs: number };
  /** Failed logins allowed per account and per client IP within a window, before login answers 429 until it ends. */
  loginThrottle: { maxFailuresPerAccount: number; maxFailuresPerIp: number; windowMs: number };
  /** Browser origins allowed to call with credentials, each normalised to scheme://host[:port]. */
  corsOrigins: readonly string[];
  /** How the refresh cookie is set (docs/spa.md explains the same-site rule). */
  refreshCookie: { sameSite: 'strict' | 'lax' | 'none'; secure: boolean };
  /** Anonymous visitors may read published blogs and their comments (GET only); off by default. */
  publicReads: boolean;
  webhooksAllowPrivate: boolean;
  /**
   * Cache-Control durations of public answers: anonymous reads under PUBLIC_READS, and the feeds and the
   * sitemap always (PUBLIC_READS's directives, or 60 s and 300 s).
   */
  publicCache: PublicCachePolicy;
  /**
   * How long a GET or HEAD may rely on a session and user this instance checked before, and blogs on the
   * authors it read (0: off). A logout, a role or profile change or a deletion made elsewhere shows on such
   * reads within this time; writes always check.
   */
  authCacheTtlMs: number;
  /** A change of password or email through PUT /users/current must carry the current password; off by default. */
  requireCurrentPassword: boolean;
  /**
   * Outgoing mail: through `smtp` when SMTP_URL is set; otherwise written as .eml files to `directory`
   * in development, and off in production (the routes that mail answer 503). `sendTimeoutMs` bounds one send.
   */
  mail: { smtp?: SmtpConfig; directory?: string; sendTimeoutMs: number };
  /** EMAIL_VERIFICATION: off (the interface's behaviour), optional (mailed, not needed), required (to comment, like, write). */
  emailVerification: EmailVerification;
  trustProxy: TrustProxy;
  logLevel: string;
  jsonBodyLimit: string;
  blogs: { contentMaxLength: number };
  /** Where banners go: Cloudinary when configured, otherwise files under `uploadsDir`, served by the API. */
  storage: {
    cloudinary?: CloudinaryConfig;
    uploadsDir: string;
    /** Overall deadline of one banner upload; past it the upload is aborted and its file removed. */
    saveTimeoutMs: number;
  };

  // Operations
  /** Redis for the shared rate-limit counters; each instance counts alone when unset. May carry a password: never log it. */
  redisUrl?: string;
  /** How long in-flight requests may take to finish after SIGTERM/SIGINT before their connections are closed. */
  shutdownGraceMs: number;
  /** GET /metrics: served unless `enabled` is false; when `token` is set, only to `Authorization: Bearer <token>`. A secret: never log it. */
  metrics: {
    enabled: boolean;
    token?: string;
    /** mongodb_command_duration_seconds, from the driver's command events; off unless MONGODB_COMMAND_METRICS. */
    commands: boolean;
  };
  /** After SIGTERM/SIGINT, how long /readyz answers 503 while requests are still served, before the listener closes. */
  shutdownReadinessDelayMs: number;
  /** Node's HTTP server timeouts: all headers, the whole request, and an idle keep-alive connection. */
  http: { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number };
  /** Bounds on every wait for MongoDB (docs/failure-behaviour.md). */
  database: {
    /** Client-side deadline of every operation (the driver's timeoutMS). */
    operationTimeoutMs: number;
    serverSelectionTimeoutMs: number;
    socketTimeoutMs: number;
    connectTimeoutMs: number;
    heartbeatMs: number;
    /** Retry-After (seconds) of a 503 ServiceUnavailable when the database cannot be reached. */
    retryAfterSeconds: number;
    /** How often the watchdog looks at the connection (0: no watchdog). */
    watchdogIntervalMs: number;
    /** How long the database may stay unreachable while a fresh connection succeeds before the connection is recreated. */
    watchdogUnreachableMs: number;
  };
  /** Counter reconciliation, the orphan-banner sweep and the trash's purge. */
  maintenance: { intervalMs: number; onStart: boolean; orphanMinAgeMs: number; trashRetentionMs: number };
}

export interface LoadedConfig {
  config: Config;
  /** Things the operator must hear about at start (generated development secrets). */
  warnings: string[];
}

export interface LoadConfigOptions {
  /**
   * Where development keeps the JWT secrets it generates when none are set, so restarts and `npm run dev`
   * reloads keep tokens valid (the entry points pass DEVELOPMENT_SECRETS_FILE of config/process.ts). Used only when NODE_ENV=development;
   * without it, secrets are generated per process.
   */
  developmentSecretsFile?: string;
}

/** Whether Express takes this list as its `trust proxy` setting: its own parser (proxy-addr) is the judge. */
function expressTrusts(items: string[]): boolean {
  try {
    express().set('trust proxy', items);
    return true;
  } catch {
    return false;
  }
}

function parseTrustProxy(value: string | undefined): TrustProxy {
  if (value === undefined || ['false', 'off', '0', 'no'].includes(value.toLowerCase())) return false;
  if (['true', 'on', 'yes'].includes(value.toLowerCase())) return true;
  if (/^\d+$/.test(value)) return Number(value);
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  // refused here, in one line, rather than by Express once the database is up
  const wrong = expressTrusts(items) ? undefined : items.find((item) => !expressTrusts([item]));
  if (wrong !== undefined) {
    throw new ConfigError(
      `TRUST_PROXY: "${wrong}" is no address or range: give a number of hops, true, or addresses and ranges ` +
        '(10.0.0.0/8, loopback, linklocal, uniquelocal), comma-separated',
    );
  }
  return items;
}

const MIN_SECRET_LENGTH = 32;
const MIN_BCRYPT_COST = 10;
/**
 * What production cannot start without. PUBLIC_URL too: links built from the Host header would point
 * readers wherever a client said (a stored banner URL included).
 */
const PRODUCTION_SETTINGS = ['MONGODB_URI', 'PUBLIC_URL', 'JWT_ACCESS_SECRET', 'JWT_REFRESH_SECRET'] as const;
/** `A`, `A and B`, `A, B and C`. */
const listed = (names: readonly string[]) =>
  names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}` : names.join('');

function resolveSecret(
  name: string,
  value: string | undefined,
  isProduction: boolean,
  warnings: string[],
  kept?: { secret: string; file: string },
): string {
  if (value !== undefined) {
    if (value.length < MIN_SECRET_LENGTH)
      throw new ConfigError(`${name} must be at least ${MIN_SECRET_LENGTH} characters long`);
    return value;
  }
  if (isProduction) throw new ConfigError(`${name} is required when NODE_ENV=production`);
  if (kept) {
    warnings.push(
      `${name} is not set: using the development secret kept in ${kept.file} (tokens survive restarts). ` +
        'Set it in .env for anything but local development.',
    );
    return kept.secret;
  }
  warnings.push(
    `!!! ${name} is not set: generated a random one for this process only. ` +
      'Tokens will not survive a restart and will not work across instances. Set it in .env for anything but local development. !!!',
  );
  return randomBytes(48).toString('base64url');
}

const DEFAULT_CLOUDINARY_FOLDER = 'blog-banners';
/** Where development writes the mail it would send, without SMTP_URL (docs/operations.md). */
export const DEVELOPMENT_MAIL_DIRECTORY = '.data/mail';
/** The longest one message may take to send: connecting, greeting and the whole exchange (lib/mailer.ts). */
const MAIL_SEND_TIMEOUT_MS = 10_000;

/** A user or password of a URL setting, decoded: a `%` that starts no escape is refused, naming the variable. */
function decodedPart(variable: string, part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new ConfigError(`${variable}: a "%" in the user or password starts no escape; write it as %25`);
  }
}

/** SMTP_URL's parts, as nodemailer takes them; a missing or odd sender is refused here, not at the first send. */
function resolveSmtp(smtpUrl: string | undefined): SmtpConfig | undefined {
  if (!smtpUrl) return undefined;
  if (!URL.canParse(smtpUrl))
    throw new ConfigError('SMTP_URL: must be a URL such as smtp://user:pass@host:587?from=...');
  const url = new URL(smtpUrl);
  const from = url.searchParams.get('from');
  // A sender with a line break would let a setting write headers of its own.
  if (!from || /[\r\n]/.test(from) || !/@[^@\s>]+>?$/.test(from.trim())) {
    throw new ConfigError(
      'SMTP_URL: add the sender as ?from=, e.g. smtp://user:pass@mail.example:587?from=Blog%20%3Cno-reply%40blog.example%3E',
    );
  }
  const secure = url.protocol === 'smtps:';
  return {
    host: url.hostname,
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    auth: url.username
      ? { user: decodedPart('SMTP_URL', url.username), pass: decodedPart('SMTP_URL', url.password) }
      : undefined,
    from: from.trim(),
  };
}

/**
 * Mail needs a way out and, in production, the front end's pages its links open: verification that can
 * mail nobody, or mail whose links point nowhere, is refused at start rather than failing for each reader.
 */
function checkMailSettings(env: z.infer<typeof environmentSchema>, isProduction: boolean, warnings: string[]) {
  if (!isProduction) return;
  if (env.SMTP_URL && !env.SITE_URL) {
    throw new ConfigError("SMTP_URL needs SITE_URL in production: the mails link to the front end's pages");
  }
  if (env.EMAIL_VERIFICATION !== 'off' && !env.SMTP_URL) {
    throw new ConfigError(`EMAIL_VERIFICATION=${env.EMAIL_VERIFICATION} needs SMTP_URL: verification links are mailed`);
  }
  if (!env.SMTP_URL) {
    warnings.push(
      'SMTP_URL is not set: mail is off, so POST /auth/forgot-password answers 503 (set SMTP_URL to send mail).',
    );
  }
}

/**
 * Cloudinary credentials from CLOUDINARY_URL (cloudinary://key:secret@cloud), Cloudinary's own form, with
 * its upload_prefix parameter for another API base URL (a regional endpoint, or a test's fake) and a folder.
 */
function resolveCloudinary(env: z.infer<typeof environmentSchema>): CloudinaryConfig | undefined {
  if (!env.CLOUDINARY_URL) return undefined;
  const url = new URL(env.CLOUDINARY_URL);
  const uploadPrefix = url.searchParams.get('upload_prefix') ?? undefined;
  if (uploadPrefix !== undefined && !URL.canParse(uploadPrefix)) {
    throw new ConfigError('CLOUDINARY_URL: upload_prefix must be a URL such as https://api-eu.cloudinary.com');
  }
  return {
    cloudName: url.hostname,
    apiKey: decodedPart('CLOUDINARY_URL', url.username),
    apiSecret: decodedPart('CLOUDINARY_URL', url.password),
    folder: url.searchParams.get('folder') ?? DEFAULT_CLOUDINARY_FOLDER,
    uploadPrefix: uploadPrefix?.replace(/\/+$/, ''),
  };
}

/** Reads and validates the environment. Throws ConfigError with one line naming the variable. */
export function loadConfig(
  environment: NodeJS.ProcessEnv = process.env,
  options: LoadConfigOptions = {},
): LoadedConfig {
  const retired = Object.keys(RETIRED_SETTINGS).find((name) => environment[name] !== undefined);
  if (retired) throw new ConfigError(`${retired}: no longer read; ${RETIRED_SETTINGS[retired]}`);
  const parsed = environmentSchema.safeParse(environment);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`${issue.path.join('.')}: ${issue.message}`);
  }
  const env = parsed.data;
  const isProduction = env.NODE_ENV === 'production';
  const warnings: string[] = [];

  // Costs below 10 are fast enough to guess offline; only the test suite may ask for them.
  if (env.BCRYPT_COST < MIN_BCRYPT_COST && env.NODE_ENV !== 'test') {
    throw new ConfigError(
      `BCRYPT_COST: must be at least ${MIN_BCRYPT_COST} (lower costs are allowed only when NODE_ENV=test)`,
    );
  }
  if (env.DB_WATCHDOG_UNREACHABLE_MS > 0 && env.DB_WATCHDOG_UNREACHABLE_MS < 1_000) {
    throw new ConfigError('DB_WATCHDOG_UNREACHABLE_MS: must be 0 (no watchdog) or at least 1000');
  }
  // every one missing in one line: a deployment should not need a try per setting to learn them
  const missing = PRODUCTION_SETTINGS.filter((name) => isProduction && !env[name]);
  if (missing.length > 0)
    throw new ConfigError(`${listed(missing)} ${missing.length > 1 ? 'are' : 'is'} required when NODE_ENV=production`);
  const keptSecrets =
    env.NODE_ENV === 'development' &&
    options.developmentSecretsFile &&
    (!env.JWT_ACCESS_SECRET || !env.JWT_REFRESH_SECRET)
      ? loadDevelopmentSecrets(options.developmentSecretsFile)
      : undefined;
  const kept = (secret: 'accessSecret' | 'refreshSecret') =>
    keptSecrets && { secret: keptSecrets[secret], file: options.developmentSecretsFile! };
  const accessSecret = resolveSecret(
    'JWT_ACCESS_SECRET',
    env.JWT_ACCESS_SECRET,
    isProduction,
    warnings,
    kept('accessSecret'),
  );
  const refreshSecret = resolveSecret(
    'JWT_REFRESH_SECRET',
    env.JWT_REFRESH_SECRET,
    isProduction,
    warnings,
    kept('refreshSecret'),
  );
  if (accessSecret === refreshSecret) throw new ConfigError('JWT_ACCESS_SECRET and JWT_REFRESH_SECRET must differ');

  // SameSite=None cookies are dropped by browsers unless Secure: refuse a setting that would fail silently.
  const cookieSecure =
    env.COOKIE_SECURE === undefined ? isProduction : ['true', '1', 'yes', 'on'].includes(env.COOKIE_SECURE);
  if (env.COOKIE_SAMESITE === 'none' && !cookieSecure) {
    throw new ConfigError(
      'COOKIE_SAMESITE: "none" needs a Secure cookie (browsers drop SameSite=None without Secure): set COOKIE_SECURE=true and serve the API over HTTPS',
    );
  }
  const cors = parseCorsOrigins(env.CORS_ORIGINS);
  warnings.push(...cors.warnings);
  checkMailSettings(env, isProduction, warnings);

  const config: Config = {
    env: env.NODE_ENV,
    isProduction,
    port: env.PORT,
    publicUrl: (env.PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, ''),
    siteUrl: env.SITE_URL?.replace(/\/+$/, ''),
    mongodb: { uri: env.MONGODB_URI, serverApi: env.MONGODB_SERVER_API },
    jwt: {
      accessSecret,
      refreshSecret,
      accessTtlSeconds: env.ACCESS_TOKEN_TTL,
      refreshTtlSeconds: env.REFRESH_TOKEN_TTL,
    },
    adminEmails: new Set(env.ADMIN_EMAILS.map(canonicalEmail)),
    bcryptCost: env.BCRYPT_COST,
    rateLimit: { max: env.RATE_LIMIT_MAX, windowMs: env.RATE_LIMIT_WINDOW_MS },
    loginThrottle: {
      maxFailuresPerAccount: env.LOGIN_MAX_FAILURES_PER_ACCOUNT,
      maxFailuresPerIp: env.LOGIN_MAX_FAILURES_PER_IP,
      windowMs: env.LOGIN_FAILURE_WINDOW * 1000,
    },
    corsOrigins: cors.origins,
    refreshCookie: { sameSite: env.COOKIE_SAMESITE, secure: cookieSecure },
    publicReads: env.PUBLIC_READS.enabled,
    publicCache: env.PUBLIC_READS.cache,
    webhooksAllowPrivate: env.WEBHOOKS_ALLOW_PRIVATE,
    authCacheTtlMs: env.AUTH_CACHE_TTL_MS,
    requireCurrentPassword: env.REQUIRE_CURRENT_PASSWORD,
    mail: {
      smtp: resolveSmtp(env.SMTP_URL),
      directory: env.NODE_ENV === 'development' ? DEVELOPMENT_MAIL_DIRECTORY : undefined,
      sendTimeoutMs: MAIL_SEND_TIMEOUT_MS,
    },
    emailVerification: env.EMAIL_VERIFICATION,
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    logLevel: env.LOG_LEVEL ?? (env.NODE_ENV === 'test' ? 'silent' : 'info'),
    jsonBodyLimit: JSON_BODY_LIMIT,
    blogs: { contentMaxLength: env.BLOG_CONTENT_MAX_LENGTH },
    storage: {
      cloudinary: resolveCloudinary(env),
      uploadsDir: env.UPLOADS_DIR,
      saveTimeoutMs: env.STORAGE_SAVE_TIMEOUT_MS,
    },

    redisUrl: env.REDIS_URL,
    shutdownGraceMs: env.SHUTDOWN_TIMEOUTS.grace,
    metrics: {
      enabled: env.METRICS_ENABLED,
      token: env.METRICS_TOKEN,
      commands: env.METRICS_ENABLED && env.MONGODB_COMMAND_METRICS,
    },
    shutdownReadinessDelayMs: env.SHUTDOWN_TIMEOUTS.readiness,
    http: {
      headersTimeoutMs: env.HTTP_TIMEOUTS.headers,
      requestTimeoutMs: env.HTTP_TIMEOUTS.request,
      keepAliveTimeoutMs: env.HTTP_TIMEOUTS.keepAlive,
    },
    database: {
      ...databaseTimeouts(env.MONGODB_URI),
      retryAfterSeconds: DB_UNAVAILABLE_RETRY_AFTER_SECONDS,
      watchdogIntervalMs: Math.round(env.DB_WATCHDOG_UNREACHABLE_MS / WATCHDOG_LOOKS_PER_BOUND),
      watchdogUnreachableMs: env.DB_WATCHDOG_UNREACHABLE_MS,
    },
    maintenance: {
      intervalMs: env.RECONCILE_INTERVAL_MS,
      onStart: env.RECONCILE_INTERVAL_MS > 0,
      orphanMinAgeMs: ORPHAN_BANNER_MIN_AGE_MS,
      trashRetentionMs: env.TRASH_RETENTION_DAYS * 24 * 60 * 60_000,
    },
  };
  if (config.http.headersTimeoutMs > config.http.requestTimeoutMs) {
    throw new ConfigError('HTTP_TIMEOUTS: headers must not exceed request');
  }
  if (isProduction && !config.storage.cloudinary) {
    warnings.push(
      "Cloudinary is not configured: banners are stored on this instance's disk, which several instances do not share.",
    );
  }
  return { config: deepFreeze(config), warnings };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !(value instanceof Set)) {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}
