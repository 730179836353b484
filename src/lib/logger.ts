/**
 * The one way out for logs: winston, JSON lines in production, readable lines in development.
 * Secrets never reach it: callers log ids and outcomes, never bodies, headers or cookies.
 */
import winston from 'winston';

export type Logger = winston.Logger;

export function createLogger(options: { level: string; json: boolean }): Logger {
  const silent = options.level === 'silent';
  const format = options.json
    ? winston.format.combine(winston.format.timestamp(), winston.format.errors({ stack: true }), winston.format.json())
    : winston.format.combine(
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
    transports: [new winston.transports.Console({ stderrLevels: ['error', 'warn'] })],
  });
}
