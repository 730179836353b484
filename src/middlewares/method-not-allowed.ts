/**
 * 405 for a known path asked with a method it does not serve (e.g. PATCH /users/current), with the
 * Allow header, instead of the 404 of an unknown path. The paths and their methods come from the
 * OpenAPI document, which the drift test keeps equal to the routes the app registers.
 */
import type { NextFunction, Request, Response } from 'express';
import { MethodNotAllowed } from '../errors/http-errors';
import { operationsOf, pathPattern } from '../openapi/document';
import type { Paths } from '../openapi/types';

interface KnownPath {
  pattern: RegExp;
  allow: string[];
}

/** Mounted at the app's root, after every router: paths are matched as served, /api/v1 or not. */
export function methodNotAllowed(paths: Paths) {
  const methodsByPath = new Map<string, string[]>();
  for (const { fullPath, method } of operationsOf(paths)) {
    const methods = methodsByPath.get(fullPath) ?? [];
    methods.push(method.toUpperCase());
    if (method === 'get') methods.push('HEAD');
    methodsByPath.set(fullPath, methods);
  }
  const known: KnownPath[] = [...methodsByPath].map(([fullPath, allow]) => ({ pattern: pathPattern(fullPath), allow }));
  return (req: Request, res: Response, next: NextFunction) => {
    // Several templates may match one path (GET /blogs/{slug}, PUT /blogs/{blogId}): allow them all.
    const matches = known.filter(({ pattern }) => pattern.test(req.path));
    if (matches.length === 0) return next();
    res.set('Allow', [...new Set(matches.flatMap(({ allow }) => allow))].join(', '));
    throw new MethodNotAllowed(`Method ${req.method} is not allowed on ${req.path}`);
  };
}
