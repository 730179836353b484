/**
 * An HTTP server that answers as Cloudinary's upload API does, for the real Cloudinary SDK pointed at
 * it through `upload_prefix`. It checks what Cloudinary checks, the signature of every signed call
 * (sorted parameters + API secret, SHA-1), and records what it received, so tests can assert both sides.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import multer from 'multer';
import sharp from 'sharp';

export interface FakeCloudinary {
  /** The `upload_prefix` to give the SDK, e.g. http://127.0.0.1:12345 */
  url: string;
  cloudName: string;
  apiKey: string;
  apiSecret: string;
  uploads: { publicId: string; folder: string; bytes: number; format?: string }[];
  destroyed: string[];
  /** Files stored and not destroyed, by public id. */
  stored: Set<string>;
  /** Makes every following call answer this HTTP status with Cloudinary's error body (0 = normal again). */
  failWith(status: number): void;
  /**
   * How uploads are answered from now on: `hang` never answers; `trickle` sends the headers, then a
   * byte every `delayMs`; `late` stores the file at once but answers only after `delayMs`; `normal` again.
   */
  uploadMode(mode: 'normal' | 'hang' | 'trickle' | 'late', delayMs?: number): void;
  /** When each stored file was stored, by public id (GET resources reports it as created_at). */
  storedAt: Map<string, Date>;
  close(): Promise<void>;
}

/** Cloudinary's signing rule: every sent parameter but the signature, api_key and the file, sorted, as k=v joined by "&". */
/** The settings that send an app's banners to this fake, into `folder`. */
export function cloudinaryEnv(cloud: FakeCloudinary, folder: string): Record<string, string> {
  return {
    CLOUDINARY_URL: `cloudinary://${cloud.apiKey}:${cloud.apiSecret}@${cloud.cloudName}?folder=${folder}&upload_prefix=${cloud.url}`,
  };
}

export function cloudinarySignature(params: Record<string, string>, apiSecret: string): string {
  const toSign = Object.entries(params)
    .filter(
      ([key, value]) => !['signature', 'api_key', 'file', 'cloud_name', 'resource_type'].includes(key) && value !== '',
    )
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, value]) => `${key}=${value}`.replace(/&/g, '%26'))
    .join('&');
  return createHash('sha1')
    .update(toSign + apiSecret)
    .digest('hex');
}

export async function startFakeCloudinary(): Promise<FakeCloudinary> {
  const cloudName = 'test-cloud';
  const apiKey = '123456789012345';
  const apiSecret = randomBytes(16).toString('hex');
  let failure = 0;
  let mode: 'normal' | 'hang' | 'trickle' | 'late' = 'normal';
  let modeDelayMs = 0;
  const pending = new Set<NodeJS.Timeout>();
  const later = (ms: number, run: () => void) => {
    const timer = setTimeout(() => {
      pending.delete(timer);
      run();
    }, ms);
    pending.add(timer);
  };
  const fake = {
    uploads: [],
    destroyed: [],
    stored: new Set<string>(),
    storedAt: new Map<string, Date>(),
  } as unknown as FakeCloudinary;

  const app = express();
  const form = multer({ storage: multer.memoryStorage() }).single('file');
  const error = (res: express.Response, status: number, message: string) =>
    res.status(status).json({ error: { message } });

  /** Why Cloudinary would refuse a signed call: a wrong key or signature, or a timestamp over an hour old. */
  function refusalOf(req: express.Request): [number, string] | undefined {
    const fields = req.body as Record<string, string>;
    if (failure) return [failure, 'Simulated Cloudinary failure'];
    if (fields.api_key !== apiKey) return [401, 'Invalid api_key'];
    if (fields.signature !== cloudinarySignature(fields, apiSecret)) return [401, 'Invalid Signature'];
    if (Math.abs(Date.now() / 1000 - Number(fields.timestamp)) > 3600) return [400, 'Stale request'];
    return undefined;
  }

  app.post(`/v1_1/${cloudName}/image/upload`, form, async (req, res) => {
    const refused = refusalOf(req);
    if (refused) return error(res, ...refused);
    if (!req.file) return error(res, 400, 'Missing required parameter - file');
    const folder = String(req.body.folder ?? '');
    // like Cloudinary: the caller's public_id when given (inside the folder), a random one otherwise
    const publicId = `${folder ? `${folder}/` : ''}${req.body.public_id ? String(req.body.public_id) : randomBytes(10).toString('hex')}`;
    const metadata = await sharp(req.file.buffer).metadata();
    const store = () => {
      fake.uploads.push({ publicId, folder, bytes: req.file!.size, format: metadata.format });
      fake.stored.add(publicId);
      fake.storedAt.set(publicId, new Date());
    };
    if (mode === 'hang') return; // never answers; the client has to give up
    if (mode === 'trickle') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const drip = () => {
        if (res.destroyed || res.writableEnded) return;
        res.write(' ');
        later(modeDelayMs, drip);
      };
      drip();
      return;
    }
    if (mode === 'late') {
      // stored at once, whatever happens to the client; only the answer comes late
      store();
      later(modeDelayMs, () => {
        if (!res.destroyed)
          res.json({
            public_id: publicId,
            secure_url: `https://res.cloudinary.com/${cloudName}/image/upload/v1/${publicId}.png`,
          });
      });
      return;
    }
    store();
    const version = Math.floor(Date.now() / 1000);
    res.json({
      asset_id: randomBytes(16).toString('hex'),
      public_id: publicId,
      version,
      width: metadata.width,
      height: metadata.height,
      format: metadata.format,
      resource_type: 'image',
      type: 'upload',
      bytes: req.file.size,
      url: `http://res.cloudinary.com/${cloudName}/image/upload/v${version}/${publicId}.${metadata.format}`,
      secure_url: `https://res.cloudinary.com/${cloudName}/image/upload/v${version}/${publicId}.${metadata.format}`,
    });
  });

  app.post(`/v1_1/${cloudName}/image/destroy`, form, (req, res) => {
    const refused = refusalOf(req);
    if (refused) return error(res, ...refused);
    const publicId = String(req.body.public_id);
    fake.destroyed.push(publicId);
    fake.storedAt.delete(publicId);
    res.json({ result: fake.stored.delete(publicId) ? 'ok' : 'not found' });
  });

  // Admin API: the listing the orphan sweep reads (HTTP Basic with the API key and secret)
  app.get(`/v1_1/${cloudName}/resources/image/upload`, (req, res) => {
    const expected = `Basic ${Buffer.from(`${apiKey}:${apiSecret}`).toString('base64')}`;
    if (req.headers.authorization !== expected) return error(res, 401, 'Invalid credentials');
    if (failure) return error(res, failure, 'Simulated Cloudinary failure');
    const prefix = String(req.query.prefix ?? '');
    const resources = [...fake.stored]
      .filter((publicId) => publicId.startsWith(prefix))
      .map((publicId) => ({
        public_id: publicId,
        created_at: (fake.storedAt.get(publicId) ?? new Date()).toISOString(),
      }));
    res.json({ resources });
  });

  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    url: `http://127.0.0.1:${port}`,
    cloudName,
    apiKey,
    apiSecret,
    failWith: (status: number) => {
      failure = status;
    },
    uploadMode: (next: 'normal' | 'hang' | 'trickle' | 'late', delayMs = 0) => {
      mode = next;
      modeDelayMs = delayMs;
    },
    close: () =>
      new Promise<void>((resolve) => {
        pending.forEach(clearTimeout);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
