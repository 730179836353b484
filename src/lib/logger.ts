/**
 * The one way out for logs: winston, JSON lines in production, readable lines in development.
 * Secrets never reach it: callers log ids and outcomes, never bodies, headers or cookies; as a
 * second line of defence, fields named like secrets are replaced with "[redacted]" before writing.
 * A line written while a request is being served carries that request's id (lib/request-context).
 */
import winston from 'winston';
import { currentRequestId } from './request-context';

export type Logger = winston.Logger;

export interface LoggerOptions {
  level: string;
  json: boolean;
  /** Where lines go; the console by default. Tests pass an in-memory transport to read the lines. */
  transports?: winston.transport[];
  /** Every line to stderr: for a command whose stdout is its one JSON result. */
  toStderr?: boolean;
}

/** Field names whose values must never be written, at any depth of a log entry's metadata. */
const SECRET_FIELD = /pass(word)?|secret|token|authorization|cookie|api[-_]?key/i;
const REDACTED = '[redacted]';

function redact(value: unknown, depth = 0): unknown {
  if (depth > 5 || value === null || typeof value !== 'object' || value instanceof Error) return value;
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, SECRET_FIELD.test(key) ? REDACTED : redact(item, depth + 1)]),
  );
}

const redactSecrets = winston.format((info) => {
  for (const key of Object.keys(info)) {
    if (key === 'message' || key === 'level') continue;
    info[key] = SECRET_FIELD.test(key) ? REDACTED : redact(info[key]);
  }
  return info;
});

const withRequestId = winston.format((info) => {
  const requestId = currentRequestId();
  if (requestId !== undefined && info.requestId === undefined) info.requestId = requestId;
  return info;
});

export function createLogger(options: LoggerOptions): Logger {
  const silent = options.level === 'silent';
  const format = options.json
    ? winston.format.combine(
        withRequestId(),
        redactSecrets(),
        winston.format.timestamp(),
        winston.format.errors({ stack: true }),
        winston.format.json(),
      )
    : winston.format.combine(
        withRequestId(),
        redactSecrets(),
        winston.format.colorize(),
        winston.format.timestamp({ format: 'HH:mm:ss' }),
        winston.format.errors({ stack: true }),
        winston.format.printf(({ timestamp, level, message, stack, ...meta }) => {
          const extra = Object.keys(meta).length ? ` ${JSON.stringify(meta)}` : '';
          return `${timestamp} ${level} ${message}${extra}${stack ? `\n${stack}` : ''}`;
        }),
      );
  return winston.createLogger({
    level: silent ? 'error' : options.level,
    silent,
    format,
    transports: options.transports ?? [
      new winston.transports.Console({
        stderrLevels: options.toStderr ? Object.keys(winston.config.npm.levels) : ['error', 'warn'],
      }),
    ],
  });
}
