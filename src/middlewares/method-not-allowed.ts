/**
 * 405 for a known path asked with a method it does not serve (e.g. PATCH /users/current), with the
 * Allow header, instead of the 404 of an unknown path. The paths and their methods come from the
 * OpenAPI document, which the drift test keeps equal to the routes the app registers.
 */
import type { NextFunction, Request, Response } from 'express';
import { MethodNotAllowed } from '../errors/http-errors';
import { HTTP_METHODS, type Paths } from '../openapi/types';

interface KnownPath {
  pattern: RegExp;
  allow: string[];
}

/** `/users/{userId}` → /^\/users\/[^/]+\/?$/ ; a trailing slash is optional, as in Express. */
function templateToPattern(template: string): RegExp {
  const escaped = template
    .replace(/\/$/, '')
    .split(/\{[^}]+\}/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^/]+');
  return new RegExp(`^${escaped}/?$`);
}

export function methodNotAllowed(paths: Paths) {
  // Mounted at /api/v1: paths documented at the app's root (their own `servers`) are not its concern.
  const known: KnownPath[] = Object.entries(paths).filter(([, item]) => !item.servers).map(([template, item]) => {
    const methods = HTTP_METHODS.filter((method) => item[method]).map((method) => method.toUpperCase());
    if (methods.includes('GET')) methods.push('HEAD');
    return { pattern: templateToPattern(template), allow: methods };
  });
  return (req: Request, res: Response, next: NextFunction) => {
    // Several templates may match one path (GET /blogs/{slug}, PUT /blogs/{blogId}): allow them all.
    const matches = known.filter(({ pattern }) => pattern.test(req.path));
    if (matches.length === 0) return next();
    res.set('Allow', [...new Set(matches.flatMap(({ allow }) => allow))].join(', '));
    throw new MethodNotAllowed(`Method ${req.method} is not allowed on ${req.baseUrl}${req.path}`);
  };
}
