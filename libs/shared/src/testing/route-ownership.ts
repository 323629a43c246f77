import type { Express } from 'express';
import { ownerOf, type RouteOwner } from '../routes';

/** A path an express app registers: a route (with its methods) or a path-scoped middleware. */
export interface RegisteredPath {
  path: string | RegExp;
  kind: 'route' | 'middleware';
}

/** Paths every service serves for the platform, not for clients: never proxied. */
const INTERNAL_PATHS = ['/health', '/ready'];

interface StackLayer {
  rawPath?: unknown;
  slash?: boolean;
  route?: { path: unknown };
  handle?: { stack?: StackLayer[] };
}

function joinPath(base: string, path: string): string {
  if (path === '/' || path === '') return base || '/';
  return `${base.replace(/\/$/, '')}${path.startsWith('/') ? '' : '/'}${path}`;
}

function walk(stack: readonly StackLayer[], base: string, out: RegisteredPath[]): void {
  for (const layer of stack) {
    const raw = layer.route ? layer.route.path : layer.rawPath;
    const paths = (Array.isArray(raw) ? raw.flat(Infinity) : [raw]) as unknown[];
    for (const path of paths) {
      if (path instanceof RegExp) {
        // A regexp under a mount point cannot be joined; report it whole, so it is looked at.
        out.push({ path, kind: layer.route ? 'route' : 'middleware' });
        continue;
      }
      if (typeof path !== 'string') continue;
      const full = joinPath(base, path);
      if (layer.route) out.push({ path: full, kind: 'route' });
      else if (layer.handle?.stack) walk(layer.handle.stack, layer.slash ? base : full, out);
      else if (!layer.slash && full !== '/') out.push({ path: full, kind: 'middleware' });
    }
  }
}

/**
 * Every path an express 5 app registers (routes, path-scoped middleware, and through mounted
 * routers), walking `app.router.stack` (router 2: each layer keeps the path it was given as
 * `rawPath`). Middleware for every path (`app.use(fn)`) claims no prefix and is left out.
 */
export function registeredPaths(app: Express): RegisteredPath[] {
  const router = (app as unknown as { router?: { stack: StackLayer[] } }).router;
  if (!router) throw new Error('not an express 5 app (no app.router)');
  const out: RegisteredPath[] = [];
  walk(router.stack, '', out);
  return out;
}

/**
 * The paths `app` registers that the route ownership table does not give `service`: a path the
 * gateway would send elsewhere, or nowhere (never reaching the service through it). Internal
 * paths (`/health`, `/ready`) are allowed; a regexp path is always reported, as it cannot be checked.
 */
export function pathsNotOwnedBy(service: RouteOwner, app: Express): RegisteredPath[] {
  return registeredPaths(app).filter(({ path }) => {
    if (typeof path !== 'string') return true;
    if (INTERNAL_PATHS.includes(path)) return false;
    return ownerOf(path) !== service;
  });
}
