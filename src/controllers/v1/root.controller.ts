/** GET /api/v1/: what this service is, its version, and where its reference lives. */
import type { Request, Response } from 'express';
import { publicBaseUrl } from '../../lib/public-url';

export const API_VERSION = '1.0.0';

export function createRootController(options: { publicUrl?: string }) {
  return {
    getStatus(req: Request, res: Response) {
      res.json({
        message: 'Blog API is running',
        status: 'ok',
        version: API_VERSION,
        docs: `${publicBaseUrl(req, options.publicUrl)}/api/v1/docs`,
        timestamp: new Date().toISOString(),
      });
    },
  };
}
