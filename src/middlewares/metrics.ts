/**
 * What the metrics learn from requests (lib/metrics.ts; docs/operations-metrics.md):
 *   measureRequests: count, duration and in-flight requests, labelled with the route TEMPLATE of the
 *     OpenAPI document (/api/v1/users/{userId}), never the raw path: ids would make a series per user,
 *     and a scanner's made-up paths a series each (they all count as `unmatched`);
 *   recordRefusals: just before the error handler, counts refused authentications and banner uploads
 *     by reason, from the error that ends the request.
 */
import type { NextFunction, Request, Response } from 'express';
import { HttpError, PayloadTooLarge, RequestValidationError } from '../errors/http-errors';
import type { AppMetrics, UploadRefusalReason } from '../lib/metrics';
import { API_BASE_PATH } from '../config';
import { operationsOf, pathPattern } from '../openapi/document';
import type { Paths } from '../openapi/types';
import { StorageError } from '../services/storage';
import { BANNER_FIELD } from '../schemas/blog';

interface RouteTemplate {
  route: string;
  pattern: RegExp;
  methods: Set<string>;
}

export interface MeasureRequestsOptions {
  /** The OpenAPI document's paths: their templates label the requests. */
  paths: Paths;
  /** Trees of files served as they are (banners, the reference page's assets): one label each, `<prefix>/*`. */
  staticPrefixes?: readonly string[];
}

export function measureRequests(metrics: AppMetrics, { paths, staticPrefixes = [] }: MeasureRequestsOptions) {
  const routeOf = routeResolver(paths, staticPrefixes);
  const { requests, duration, inFlight } = metrics.http;
  return (req: Request, res: Response, next: NextFunction): void => {
    const startedAt = process.hrtime.bigint();
    inFlight.inc();
    res.once('close', () => {
      inFlight.dec();
      // a response cut short (client gone, shutdown) has no status worth the name
      const labels = {
        method: req.method,
        route: routeOf(req),
        status: res.writableFinished ? String(res.statusCode) : 'aborted',
      };
      requests.inc(labels);
      duration.observe(labels, Number(process.hrtime.bigint() - startedAt) / 1e9);
      if (res.statusCode === 429) metrics.rateLimitRefusals.inc();
      // multer leaves the banner it read on the request; a 2xx means it was stored
      if (req.file && res.statusCode < 300 && res.writableFinished) metrics.uploads.bytes.inc(req.file.size);
    });
    next();
  };
}

/** The path a request was served under, as its template; a method the path lacks still names the path. */
function routeResolver(paths: Paths, staticPrefixes: readonly string[]) {
  const byTemplate = new Map<string, RouteTemplate>();
  for (const { fullPath, method } of operationsOf(paths)) {
    const template = byTemplate.get(fullPath) ?? {
      route: fullPath,
      pattern: pathPattern(fullPath),
      methods: new Set(),
    };
    template.methods.add(method.toUpperCase());
    if (method === 'get') template.methods.add('HEAD');
    byTemplate.set(fullPath, template);
  }
  // Most literal first: /blogs/user/{userId} before /blogs/{slug}.
  const templates = [...byTemplate.values()].sort(
    (a, b) => b.route.replace(/\{[^}]+\}/g, '').length - a.route.replace(/\{[^}]+\}/g, '').length,
  );
  return (req: Request): string => {
    const path = req.originalUrl.split('?')[0];
    const matching = templates.filter(({ pattern }) => pattern.test(path));
    const served = matching.find(({ methods }) => methods.has(req.method)) ?? matching[0];
    if (served) return served.route;
    const prefix = staticPrefixes.find((candidate) => path.startsWith(`${candidate}/`));
    return prefix ? `${prefix}/*` : 'unmatched';
  };
}

const BLOGS_PATH = `${API_BASE_PATH}/blogs`;

export function recordRefusals(metrics: AppMetrics) {
  return (error: unknown, req: Request, _res: Response, next: NextFunction): void => {
    if (error instanceof HttpError && error.authenticationFailure) {
      metrics.authenticationFailures.inc({ reason: error.authenticationFailure });
    }
    const uploadRefusal = uploadRefusalOf(error, req);
    if (uploadRefusal) metrics.uploads.refusals.inc({ reason: uploadRefusal });
    next(error);
  };
}

/** Why a blog form was refused because of its banner; undefined when the banner is not the reason. */
function uploadRefusalOf(error: unknown, req: Request): UploadRefusalReason | undefined {
  // only the blog forms have a banner field, and only banner storage raises StorageError
  if (error instanceof RequestValidationError)
    return BANNER_FIELD in error.errors ? (req.file ? 'invalid_image' : 'missing') : undefined;
  if (error instanceof StorageError) return 'storage_unavailable';
  if (!req.is('multipart/form-data') || !req.originalUrl.startsWith(BLOGS_PATH)) return undefined;
  if (error instanceof PayloadTooLarge) return 'too_large';
  // upload.ts answers every other fault of reading the form with a plain 400
  if (error instanceof HttpError && error.status === 400) return 'malformed';
  return undefined;
}
