import type { Express } from 'express';
import { loadConfig } from '../../libs/shared/src/config';
import type { ServiceDefinition } from '../../libs/shared/src/service';
import { testAppDeps } from '../../libs/shared/src/testing';
import { services } from '../dev/services';
import { buildDocument } from '../openapi/generate';

/*
 * The reference covers what the services really serve: every route registered in every
 * service's express app (and the gateway's own) has an operation in the generated document,
 * and every operation there is served by some app. A new route without an operation in its
 * service's src/openapi.ts, or an operation whose route was removed, fails here.
 */

/** The gateway's pages (HTML and assets of the endpoint browser), not API operations. */
const PAGES = ['GET /api-docs', 'GET /api-docs/assets/{name}'];

interface Layer {
  rawPath?: unknown;
  slash?: boolean;
  route?: { path: unknown; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

function join(base: string, path: string): string {
  if (path === '/' || path === '') return base || '/';
  return `${base.replace(/\/$/, '')}${path}`;
}

/** `METHOD /path/{param}` for every route of an express 5 app, through mounted routers. */
function routesOf(app: Express): string[] {
  const out: string[] = [];
  const walk = (stack: Layer[], base: string) => {
    for (const layer of stack) {
      const raw = layer.route ? layer.route.path : layer.rawPath;
      for (const path of (Array.isArray(raw) ? raw.flat(Infinity) : [raw]) as unknown[]) {
        if (typeof path !== 'string') {
          if (path !== undefined) out.push(`UNREADABLE ${String(path)}`);
          continue;
        }
        const full = join(base, path).replace(/:(\w+)/g, '{$1}');
        if (layer.route) {
          for (const method of Object.keys(layer.route.methods)) {
            if (method !== '_all') out.push(`${method.toUpperCase()} ${full}`);
          }
        } else if (layer.handle?.stack) walk(layer.handle.stack, layer.slash ? base : full);
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  return out;
}

describe('every route has an operation in the OpenAPI document, and every operation a route', () => {
  const deps = testAppDeps();
  afterAll(() => deps.closeAll());

  const document = buildDocument() as { paths: Record<string, Record<string, unknown>> };
  const operations = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
  );
  const routes = new Map(
    (services as readonly ServiceDefinition[]).map((service) => [
      service.name,
      routesOf(service.createApp(deps, loadConfig(service.name, service.configSchema, {}))),
    ]),
  );

  it.each([...routes.keys()])('%s: every route it registers has an operation', (name) => {
    const own = routes.get(name)!;
    expect(own).toContain('GET /health');
    const undocumented = own.filter((r) => !operations.includes(r) && !PAGES.includes(r));
    expect({ service: name, undocumented }).toEqual({ service: name, undocumented: [] });
  });

  it('every operation in the document is served by some service', () => {
    const served = new Set([...routes.values()].flat());
    expect(operations.filter((op) => !served.has(op))).toEqual([]);
  });

  it('the walk sees the routes (sanity: a known route of each kind)', () => {
    expect(routes.get('crm-api')).toEqual(
      expect.arrayContaining(['GET /api/crm/deals', 'PATCH /api/crm/deals/{id}']),
    );
    expect(routes.get('gateway')).toEqual(
      expect.arrayContaining(['GET /api/openapi.json', 'POST /api/auth/sign-in', ...PAGES]),
    );
    expect(operations.length).toBeGreaterThan(50);
  });
});
