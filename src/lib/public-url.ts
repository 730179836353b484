import type { Request } from 'express';

/**
 * The absolute base URL clients reach this API at: PUBLIC_URL when configured, otherwise the request's
 * own protocol and host (which honour X-Forwarded-* only when TRUST_PROXY says the proxy is trusted).
 */
export function publicBaseUrl(req: Request, publicUrl: string | undefined): string {
  return publicUrl ?? `${req.protocol}://${req.get('host')}`;
}
