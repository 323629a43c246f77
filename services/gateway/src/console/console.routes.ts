import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { Router } from 'express';
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

/**
 * The web console (services/console, built by Vite into `dir`) at `/`: its files as they are
 * (the hashed assets cached for a year), and `index.html` for any other GET of a path without
 * a file extension, so client-side routes such as /leads/:id load the app. Mounted after the
 * API routes; a missing build answers nothing here (the 404 envelope follows).
 */
export function consoleRoutes(dir: string): Router {
  const router = Router();
  const indexFile = join(dir, 'index.html');
  const isConsolePath = (path: string) => !NOT_THE_CONSOLE.some((p) => matchesPrefix(path, p));
  const serveFiles = express.static(dir, { index: false, maxAge: '1h' });
  router.use((req, res, next) => {
    if (isConsolePath(req.path)) res.set('Content-Security-Policy', CONSOLE_CSP);
    next();
  });
  router.use('/assets', express.static(join(dir, 'assets'), { immutable: true, maxAge: '365d' }));
  // The few unhashed files beside the page (its icon): cached for an hour.
  router.use((req, res, next) => (isConsolePath(req.path) ? serveFiles(req, res, next) : next()));
  router.get(/.*/, (req, res, next) => {
    if (!isConsolePath(req.path) || /\.[^/]*$/.test(req.path) || !existsSync(indexFile)) {
      return next();
    }
    res.set('Cache-Control', 'no-cache');
    res.sendFile(indexFile, (err) => err && next(err));
  });
  return router;
}
