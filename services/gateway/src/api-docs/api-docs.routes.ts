import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Router, type RequestHandler } from 'express';
import type { Config } from '../config';
import { withRateLimit } from './rate-limit';

/** The committed document and the page's own files (the production image carries them). */
export const API_DOCS_DIR = join(__dirname, '../../api-docs');

/** The renderer's files, served by the gateway itself (no CDN): swagger-ui-dist. */
const RENDERER_DIR = dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSETS: Record<string, { dir: string; type: string }> = {
  'swagger-ui.css': { dir: RENDERER_DIR, type: 'text/css; charset=utf-8' },
  'swagger-ui-bundle.js': { dir: RENDERER_DIR, type: 'text/javascript; charset=utf-8' },
  'favicon-32x32.png': { dir: RENDERER_DIR, type: 'image/png' },
  'api-docs.js': { dir: API_DOCS_DIR, type: 'text/javascript; charset=utf-8' },
  'api-docs.css': { dir: API_DOCS_DIR, type: 'text/css; charset=utf-8' },
};

/**
 * The page's Content-Security-Policy, replacing the gateway-wide one for /api-docs only: its
 * scripts and styles come from this origin; the renderer sets inline styles and data: images
 * (its icons); "try it" calls this origin only.
 */
export const API_DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * GET /api/openapi.json (the generated reference, with the rate limit of this gateway's
 * config) and GET /api-docs (the endpoint browser) with its assets. All public.
 */
export function apiDocsRoutes(config: Config, publicLimit: RequestHandler): Router {
  // Read on first use, not at start: the document and the renderer (~2.5 MB with its parse)
  // would otherwise sit in every gateway's idle memory whether anyone opens the page or not.
  const document = once(() =>
    JSON.stringify(
      withRateLimit(JSON.parse(readFileSync(join(API_DOCS_DIR, 'openapi.json'), 'utf8')), config),
    ),
  );
  const page = once(() => readFileSync(join(API_DOCS_DIR, 'index.html'), 'utf8'));
  const router = Router();
  router.get('/api/openapi.json', publicLimit, (_req, res) => {
    res.type('application/json').send(document());
  });
  router.get('/api-docs', publicLimit, (_req, res) => {
    res.set('Content-Security-Policy', API_DOCS_CSP).type('text/html').send(page());
  });
  router.get('/api-docs/assets/:name', (req, res, next) => {
    const asset = Object.hasOwn(ASSETS, req.params.name) ? ASSETS[req.params.name] : undefined;
    if (!asset) return next();
    // Streamed from disk (the page cache keeps it warm), never held by the process.
    res.sendFile(
      join(asset.dir, req.params.name),
      { headers: { 'Cache-Control': 'public, max-age=3600', 'Content-Type': asset.type } },
      (err) => err && next(err),
    );
  });
  return router;
}

function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}
