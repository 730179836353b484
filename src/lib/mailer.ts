/**
 * Outgoing mail, through nodemailer, one way out per process:
 *
 * - `smtp`: the server of SMTP_URL, each message within a deadline (connecting, the greeting and the
 *   whole exchange): a down or slow server costs a bounded wait, never a request (callers send after
 *   answering), and each failure is logged and counted (mail_sent_total{result="failed"});
 * - `files`: without SMTP_URL, in development (or a test that asks), each message is written as an RFC 822
 *   `.eml` file to a folder (.data/mail), so the flows work offline;
 * - `off`: without SMTP_URL elsewhere (production): nothing is sent, and the routes that mail say so (503).
 *
 * Neither the message (which carries a token) nor the address is ever logged or used as a label; only its
 * purpose and the outcome (and in development the file's name: `npm run mail:last` shows the newest).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import type { Counter } from 'prom-client';
import type { Logger } from './logger';
import { settleWithin } from './timeout';

/** Why a message is sent: the one label of mail_sent_total besides the outcome. */
export type MailPurpose = 'reset-password' | 'verify-email';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  purpose: MailPurpose;
}

export interface Mailer {
  mode: 'smtp' | 'files' | 'off';
  /** Sends one message; never throws: false when it could not be sent (logged and counted). */
  send(message: MailMessage): Promise<boolean>;
}

/** The SMTP server of SMTP_URL, as config/ parses it. Carries a password: never log it. */
export interface SmtpServer {
  host: string;
  port: number;
  secure: boolean;
  auth?: { user: string; pass: string };
  from: string;
}

export interface MailerOptions {
  smtp?: SmtpServer;
  /** Where messages are written when there is no SMTP server; mail is off without either. */
  directory?: string;
  /** The longest one message may take, connecting included. */
  sendTimeoutMs: number;
  logger: Logger;
  /** mail_sent_total, by purpose and result (sent, failed). */
  sent?: Counter<'purpose' | 'result'>;
}

const TIMED_OUT = Symbol('timed out');

/** A file name for a message, `<time>-<purpose>.eml`: sortable by time, never its address or token. */
const fileNameOf = (purpose: MailPurpose, unique = '') =>
  `${new Date().toISOString().replace(/[:.]/g, '-')}-${purpose}${unique}.eml`;

/** Writes a new file, never over another: two messages within a millisecond get a suffix. */
async function writeNewFile(directory: string, purpose: MailPurpose, content: Buffer): Promise<string> {
  const file = path.join(directory, fileNameOf(purpose));
  try {
    await writeFile(file, content, { flag: 'wx' });
    return file;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const other = path.join(directory, fileNameOf(purpose, `-${randomBytes(3).toString('hex')}`));
    await writeFile(other, content, { flag: 'wx' });
    return other;
  }
}

/** What a failure says in the log: nodemailer's code and the first line of its message (no body, no address). */
function describeFailure(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { reason: String(error) };
  const code = (error as { code?: unknown }).code;
  return { reason: error.message.split('\n')[0].slice(0, 200), ...(code ? { code: String(code) } : {}) };
}

export function createMailer(options: MailerOptions): Mailer {
  const { smtp, directory, sendTimeoutMs, logger } = options;
  const mode = smtp ? 'smtp' : directory ? 'files' : 'off';
  const transport = smtp
    ? nodemailer.createTransport({
        host: smtp.host,
        port: smtp.port,
        secure: smtp.secure,
        auth: smtp.auth,
        // nodemailer's own deadlines (minutes by default) within the overall one below, so a stalled
        // connection is closed soon after the send is given up
        connectionTimeout: Math.ceil(sendTimeoutMs / 2),
        greetingTimeout: Math.ceil(sendTimeoutMs / 2),
        socketTimeout: sendTimeoutMs,
        dnsTimeout: Math.ceil(sendTimeoutMs / 2),
      })
    : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  const from = smtp?.from ?? 'Blog API (development) <no-reply@localhost>';

  async function deliver(message: MailMessage): Promise<void> {
    const { to, subject, text, html } = message;
    const info = await transport.sendMail({ from, to, subject, text, html });
    if (mode !== 'files') return;
    await mkdir(directory!, { recursive: true });
    const file = await writeNewFile(directory!, message.purpose, info.message as Buffer);
    logger.info('mail written (no SMTP_URL)', { purpose: message.purpose, file });
  }

  async function send(message: MailMessage): Promise<boolean> {
    if (mode === 'off') {
      logger.warn('mail is off (no SMTP_URL): message not sent', { purpose: message.purpose });
      return false;
    }
    let delivered = false;
    try {
      const outcome = await settleWithin(deliver(message), sendTimeoutMs, TIMED_OUT);
      if (outcome === TIMED_OUT)
        logger.warn('mail not sent: no answer in time', { purpose: message.purpose, sendTimeoutMs });
      else delivered = true;
    } catch (error) {
      logger.warn('mail not sent', { purpose: message.purpose, ...describeFailure(error) });
    }
    options.sent?.inc({ purpose: message.purpose, result: delivered ? 'sent' : 'failed' });
    return delivered;
  }

  return { mode, send };
}
