/** A real application logger whose lines are kept in memory, so a test can read what would be written. */
import { Writable } from 'node:stream';
import winston from 'winston';
import { createLogger, type Logger } from '../../src/lib/logger';

export interface CapturedLog {
  logger: Logger;
  /** Every line written so far, exactly as the transport received it. */
  lines: string[];
  /** The lines parsed as JSON (the logger is made with json: true). */
  entries(): Array<Record<string, unknown>>;
}

export function captureLog(level = 'debug'): CapturedLog {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const logger = createLogger({ level, json: true, transports: [new winston.transports.Stream({ stream })] });
  return { logger, lines, entries: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

/** Lets the 'close' listener that writes the access line run after supertest has its response. */
export const settle = () => new Promise((resolve) => setImmediate(resolve));
