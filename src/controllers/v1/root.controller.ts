/** GET /api/v1/: what this service is, its version, and where its reference lives. */
import type { Request, Response } from 'express';
import { API_BASE_PATH, API_VERSION } from '../../config';

/** `publicUrl` comes from the configuration only, never from the request's Host (see config, PUBLIC_URL). */
export function createRootController(options: { publicUrl: string }) {
  return {
    getStatus(_req: Request, res: Response) {
      res.json({
        message: 'Blog API is running',
        status: 'ok',
        version: API_VERSION,
        docs: `${options.publicUrl}${API_BASE_PATH}/docs`,
        timestamp: new Date().toISOString(),
      });
    },
  };
}
