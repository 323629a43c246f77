import { loadConfig } from '@crm/shared/config';
import { testAppDeps } from '@crm/test-kit';
import request from 'supertest';
import { API_DOCS_CSP } from '../src/api-docs/api-docs.routes';
import { createApp } from '../src/app';
import { configSchema } from '../src/config';

/*
 * GET /api/openapi.json and GET /api-docs are public gateway routes: the document carries the
 * rate limit of this gateway's config (not a literal), the page has its own CSP, and every
 * asset the page loads comes from the gateway itself.
 */
describe('the API reference is served by the gateway', () => {
  const deps = testAppDeps();
  afterAll(() => deps.closeAll());
  const app = createApp(
    deps,
    loadConfig('gateway', configSchema, {
      RATE_LIMIT_DEFAULT_PER_MINUTE: '750',
      RATE_LIMIT_PLANS: 'free=750,pro=2500',
    }),
  );

  it('GET /api/openapi.json: the OpenAPI 3.1 document, without a session', async () => {
    const res = await request(app).get('/api/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.paths['/api/crm/deals'].get.security).toEqual([{ session: [] }]);
  });

  it('advertises the rate limit of the configuration it runs with', async () => {
    const res = await request(app).get('/api/openapi.json');
    expect(res.body.info['x-rate-limit']).toEqual({
      defaultPerMinute: 750,
      plans: { free: 750, pro: 2500 },
    });
    expect(res.body.info.description).toContain('**Rate limit:** 750 requests per minute');
    expect(res.body.info.description).not.toContain('1,000 requests');
  });

  it('GET /api-docs: the page, with its own Content-Security-Policy', async () => {
    const res = await request(app).get('/api-docs');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toBe(API_DOCS_CSP);
    const sources = [...res.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources.length).toBeGreaterThan(3);
    for (const source of sources) {
      expect(source).toMatch(/^\/api-docs\/assets\//);
      const asset = await request(app).get(source);
      expect({ source, status: asset.status }).toEqual({ source, status: 200 });
    }
  });

  it('the rest of the gateway keeps its strict policy; an unknown asset is a 404', async () => {
    const other = await request(app).get('/api/openapi.json');
    expect(other.headers['content-security-policy']).not.toBe(API_DOCS_CSP);
    expect(other.headers['content-security-policy']).toContain("script-src 'self'");
    const missing = await request(app).get('/api-docs/assets/../../package.json');
    expect(missing.status).toBe(404);
    const unknown = await request(app).get('/api-docs/assets/nope.js');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ success: false, code: 'NOT_FOUND' });
  });
});
