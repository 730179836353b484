/**
 * The routes an Express 5 app really registers, read from its router stack (router 2.x layers):
 * a route layer carries `route.path` and `route.methods`; a mounted router is a layer whose
 * `handle.stack` holds more layers and whose `rawPath` is its mount path. Express `:param`
 * becomes OpenAPI `{param}`.
 */
import type { Express } from 'express';

interface Layer {
  rawPath?: string | string[];
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

export interface RegisteredRoute {
  method: string;
  path: string;
}

const toOpenApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

function join(prefix: string, path: string): string {
  if (path === '/' && prefix !== '') return `${prefix}/`;
  return `${prefix}${path}` || '/';
}

function collect(stack: Layer[], prefix: string, into: RegisteredRoute[]): void {
  for (const layer of stack) {
    if (layer.route) {
      const paths = ([] as string[]).concat(layer.route.path);
      for (const path of paths) {
        for (const [method, enabled] of Object.entries(layer.route.methods)) {
          if (enabled && method !== '_all') into.push({ method, path: toOpenApiPath(join(prefix, path)) });
        }
      }
    } else if (layer.handle?.stack) {
      const mount = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
      collect(layer.handle.stack, `${prefix}${mount}`, into);
    }
  }
}

export function registeredRoutes(app: Express): RegisteredRoute[] {
  const router = (app as unknown as { router: { stack: Layer[] } }).router;
  const routes: RegisteredRoute[] = [];
  collect(router.stack, '', routes);
  return routes;
}
