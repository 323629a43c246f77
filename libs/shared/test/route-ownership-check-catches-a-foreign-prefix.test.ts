import { forbidViewerWrites } from '@crm/shared/identity';
import { createServiceApp } from '@crm/shared/http';
import { ownerOf, prefixesOf, sessionPrefixesOf } from '@crm/shared/routes';
import { captureLogger, pathsNotOwnedBy, registeredPaths } from '@crm/shared/testing';
import { Router, type Express } from 'express';

function appWith(routes: (app: Express) => void): Express {
  return createServiceApp({
    logger: captureLogger().logger,
    bodyLimitBytes: 1024,
    health: { version: 'test', checkDatabase: async () => undefined },
    routes,
  });
}

const ok = (_req: unknown, res: { send: (b: string) => void }) => res.send('ok');

describe('the route ownership table and its check', () => {
  it('derives each service’s prefixes, and its Session prefixes, from the one table', () => {
    expect(sessionPrefixesOf('crm-api')).toEqual(['/api/v1/import', '/api/crm', '/api/exports']);
    expect(sessionPrefixesOf('webhook-ingest')).toEqual(['/api/integrations']);
    expect(sessionPrefixesOf('mcp-ingest')).toEqual(['/api/mcp/keys', '/api/mcp/connections']);
    expect(sessionPrefixesOf('migrate')).toEqual([]);
    expect(prefixesOf('crm-api')).toEqual([
      '/api/v1/import',
      '/api/crm',
      '/api/exports',
      '/api/public/forms',
    ]);
    expect(ownerOf('/api/mcp/keys/1')).toBe('mcp-ingest');
    expect(ownerOf('/api/auth/sign-in')).toBe('gateway');
    expect(ownerOf('/api/crmx')).toBeUndefined();
  });

  it('walks routes, path-scoped middleware and mounted routers (express 5), with full paths', () => {
    const nested = Router().get('/:id', ok).post('/', ok);
    const app = appWith((a) => {
      a.use(['/api/crm', '/api/exports'], forbidViewerWrites());
      a.use('/api/crm/deals', nested);
      a.use(Router().get('/api/public/forms/:slug', ok));
    });
    expect(registeredPaths(app).map((p) => `${p.kind} ${String(p.path)}`)).toEqual([
      'route /health',
      'route /ready',
      'middleware /api/crm',
      'middleware /api/exports',
      'route /api/crm/deals/:id',
      'route /api/crm/deals',
      'route /api/public/forms/:slug',
    ]);
    expect(pathsNotOwnedBy('crm-api', app)).toEqual([]);
  });

  it('reports a route under a prefix the table gives another service, or nobody', () => {
    const app = appWith((a) => {
      a.get('/api/crm/leads', ok);
      a.post('/api/integrations/shopify', ok); // webhook-ingest's
      a.use('/api/auth', Router().get('/me', ok)); // the gateway's
      a.get('/api/leads-v2', ok); // nobody's: the gateway never forwards it
      a.get(/^\/api\/crm\/x$/, ok); // cannot be checked
    });
    expect(pathsNotOwnedBy('crm-api', app)).toEqual([
      { path: '/api/integrations/shopify', kind: 'route' },
      { path: '/api/auth/me', kind: 'route' },
      { path: '/api/leads-v2', kind: 'route' },
      { path: /^\/api\/crm\/x$/, kind: 'route' },
    ]);
    // The same routes are what webhook-ingest owns, and nothing else.
    expect(pathsNotOwnedBy('webhook-ingest', app).map((p) => String(p.path))).not.toContain(
      '/api/integrations/shopify',
    );
  });

  it('reports a Session guard mounted on another service’s prefix', () => {
    const app = appWith((a) => a.use(['/api/crm', '/api/automations'], forbidViewerWrites()));
    expect(pathsNotOwnedBy('crm-api', app)).toEqual([
      { path: '/api/automations', kind: 'middleware' },
    ]);
  });
});
