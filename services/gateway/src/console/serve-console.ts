import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { type RequestHandler } from 'express';
import { matchesPrefix } from '@crm/shared/routes';

/**
 * The console's Content-Security-Policy, replacing the gateway-wide one on its page and files:
 * scripts, styles, images and fonts from this origin only, no inline script or style, API calls
 * to this origin only, never framed.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

/** Paths the console never answers: the API, the API reference and the probes keep theirs. */
const NOT_THE_CONSOLE = ['/api', '/api-docs', '/health', '/ready'];
const isConsolePath = (path: string) => !NOT_THE_CONSOLE.some((p) => matchesPrefix(path, p));

/**
 * The web console (services/console, built by Vite into `dir`) at `/`: its files as they are
 * (the content-hashed ones under /assets cached for a year, the others for an hour), and
 * `index.html` for any other GET of a path without a file extension, so client-side routes such
 * as /leads/:id load the app. One handler, mounted after every API route, registering no route
 * of its own: what is not the console's (or a missing build) goes on to the 404 envelope.
 */
export function serveConsole(dir: string): RequestHandler {
  const indexFile = join(dir, 'index.html');
  const files = express.static(dir, {
    index: false,
    maxAge: '1h',
    setHeaders: (res, path) => {
      if (path.startsWith(join(dir, 'assets'))) {
        res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
      }
    },
  });
  const page: RequestHandler = (req, res, next) => {
    const isPageRequest = req.method === 'GET' || req.method === 'HEAD';
    if (!isPageRequest || /\.[^/]*$/.test(req.path) || !existsSync(indexFile)) return next();
    res.set('Cache-Control', 'no-cache');
    res.sendFile(indexFile, (err) => err && next(err));
  };
  return (req, res, next) => {
    if (!isConsolePath(req.path)) return next();
    res.set('Content-Security-Policy', CONSOLE_CSP);
    files(req, res, () => page(req, res, next));
  };
}
