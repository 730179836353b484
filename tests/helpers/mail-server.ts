/**
 * A real SMTP server in this process (the smtp-server package), whose delivered messages are parsed with
 * mailparser for a test to read, and the two faults the API must survive: an SMTP port where nothing
 * listens (down) and one that accepts connections and never says a word (slow).
 *
 *   const mail = useMailServer();      // beforeAll starts it, afterAll stops it
 *   const ctx = useTestApp(() => ({ env: { SMTP_URL: mail.url(), SITE_URL: SITE } }));
 *   const message = await mail.nextMessageTo('ada@example.com');
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { freePort } from '../../tools/lib/server';

/** The front end's address the tests' mails link to. */
export const TEST_SITE_URL = 'http://spa.test';
const SENDER = 'Blog <no-reply@blog.test>';

/** An smtp:// URL for a port, with the sender as SMTP_URL carries it. */
export const smtpUrlOf = (port: number) => `smtp://127.0.0.1:${port}?from=${encodeURIComponent(SENDER)}`;

export interface DeliveredMail {
  to: string;
  parsed: ParsedMail;
  /** Everything received, headers included, as the server got it. */
  raw: string;
}

export interface MailServer {
  url(): string;
  delivered: DeliveredMail[];
  /** The next message delivered to `to` (with this subject, when given) that no earlier call took; fails after 5 s. */
  nextMessageTo(to: string, subject?: string): Promise<DeliveredMail>;
  /** How many messages went to `to` so far. */
  countTo(to: string): number;
  close(): Promise<void>;
}

export async function startMailServer(): Promise<MailServer> {
  const delivered: DeliveredMail[] = [];
  const taken = new Set<DeliveredMail>();
  const waiters: Array<() => void> = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        simpleParser(raw).then(
          (parsed) => {
            for (const recipient of session.envelope.rcptTo) {
              delivered.push({ to: recipient.address, parsed, raw: raw.toString('utf8') });
            }
            waiters.splice(0).forEach((wake) => wake());
            callback();
          },
          (error: Error) => callback(error),
        );
      });
    },
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));

  async function nextMessageTo(to: string, subject?: string, timeoutMs = 5000): Promise<DeliveredMail> {
    const deadline = Date.now() + timeoutMs;
    const wanted = (mail: DeliveredMail) =>
      mail.to === to && !taken.has(mail) && (subject === undefined || mail.parsed.subject === subject);
    for (;;) {
      const found = delivered.find(wanted);
      if (found) {
        taken.add(found);
        return found;
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  return {
    url: () => smtpUrlOf(port),
    delivered,
    nextMessageTo,
    countTo: (to) => delivered.filter((mail) => mail.to === to).length,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The server for this file: started in beforeAll, stopped in afterAll; url() is read in hooks and tests. */
export function useMailServer(): MailServer {
  let current: MailServer | undefined;
  beforeAll(async () => {
    current = await startMailServer();
  });
  afterAll(async () => {
    await current?.close();
  });
  const ready = () => {
    if (!current) throw new Error('useMailServer: started in beforeAll; read it inside a test or a hook');
    return current;
  };
  return {
    url: () => ready().url(),
    get delivered() {
      return ready().delivered;
    },
    nextMessageTo: (to, subject) => ready().nextMessageTo(to, subject),
    countTo: (to) => ready().countTo(to),
    close: () => ready().close(),
  };
}

/** A folder for mail written as files (no SMTP_URL), made in beforeAll and removed in afterAll. */
export function useMailFolder(): { path: string } {
  const folder = { path: '' };
  beforeAll(() => void (folder.path = mkdtempSync(path.join(tmpdir(), 'blog-api-mail-'))));
  afterAll(() => rmSync(folder.path, { recursive: true, force: true }));
  return folder;
}

/** An SMTP port that accepts connections and never answers (no greeting): a stalled server. */
export async function startSilentSmtpServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: smtpUrlOf(port),
    close: () =>
      new Promise<void>((resolve) => {
        sockets.forEach((socket) => socket.destroy());
        server.close(() => resolve());
      }),
  };
}

/** An SMTP URL on a port nothing listens on: a server that is down. */
export const downSmtpUrl = async () => smtpUrlOf(await freePort());

/**
 * The token a mail carries: in its link (SITE_URL's /reset-password?token= or /verify-email?token=), or on a
 * line of its own when SITE_URL is unset.
 */
export function tokenOf(text: string | undefined): string {
  const match = /\?token=([A-Za-z0-9_-]+)/.exec(text ?? '') ?? /^([A-Za-z0-9_-]{43})$/m.exec(text ?? '');
  if (!match) throw new Error(`no token in: ${text}`);
  return match[1];
}

export const tokenOfLink = (mail: DeliveredMail) => tokenOf(mail.parsed.text);
