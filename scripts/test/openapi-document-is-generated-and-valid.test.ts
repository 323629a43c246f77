/* eslint-disable @typescript-eslint/no-explicit-any -- the test walks a plain JSON document */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDocument, DOCUMENT_PATH, serialize } from '../openapi/generate';

/*
 * The reference the gateway serves (services/gateway/api-docs/openapi.json) is generated from
 * the zod schemas the routes validate with: the committed file must be what `npm run openapi`
 * writes now, and a real OpenAPI 3.1 validator must accept it.
 */
describe('the OpenAPI document', () => {
  const fresh = buildDocument();

  it('the committed file is what `npm run openapi` generates (run it after changing a schema)', () => {
    expect(readFileSync(DOCUMENT_PATH, 'utf8')).toBe(serialize(fresh));
  });

  // @apidevtools/swagger-parser is ESM only: node runs it (scripts/openapi/validate.mjs).
  const validate = (document: unknown) => {
    const dir = mkdtempSync(join(tmpdir(), 'openapi-'));
    const file = join(dir, 'openapi.json');
    writeFileSync(file, serialize(document));
    try {
      const script = join(__dirname, '../openapi/validate.mjs');
      return JSON.parse(execFileSync(process.execPath, [script, file], { encoding: 'utf8' }));
    } catch (error) {
      return JSON.parse((error as { stdout: string }).stdout);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it('passes a real OpenAPI 3.1 validator (@apidevtools/swagger-parser)', () => {
    expect(validate(fresh)).toEqual({ valid: true, openapi: '3.1.0' });
  });

  it('the validator does reject a broken document', () => {
    const broken = structuredClone(fresh) as any;
    broken.paths['/api/crm/deals'].get.responses['200'].content['application/json'].schema = {
      $ref: '#/components/schemas/NoSuchSchema',
    };
    expect(validate(broken)).toMatchObject({ valid: false });
  });

  it('every operation has a summary, a tag, an example request body and example responses', () => {
    const paths = fresh.paths as Record<string, Record<string, Record<string, any>>>;
    const missing: string[] = [];
    for (const [path, item] of Object.entries(paths)) {
      for (const [method, op] of Object.entries(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        if (!op.summary || !op.tags?.length) missing.push(`${where}: summary/tag`);
        for (const media of Object.values<any>(op.requestBody?.content ?? {})) {
          if (media.example === undefined) missing.push(`${where}: request example`);
        }
        for (const [status, response] of Object.entries<any>(op.responses)) {
          for (const media of Object.values<any>(response.content ?? {})) {
            if (media.example === undefined) missing.push(`${where} ${status}: example`);
          }
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('Session operations document the session cookie, 401 and 429 with details.retryAfter', () => {
    const deals = (fresh.paths as any)['/api/crm/deals'].get;
    expect(deals.security).toEqual([{ session: [] }]);
    expect(deals.responses['401'].content['application/json'].example.code).toBe('UNAUTHORIZED');
    const limited = deals.responses['429'];
    expect(limited.content['application/json'].example).toMatchObject({
      success: false,
      code: 'RATE_LIMIT_EXCEEDED',
      details: { retryAfter: expect.any(Number) },
    });
    expect(limited.headers['Retry-After']).toBeDefined();
    expect((fresh.components as any).securitySchemes.session).toMatchObject({
      type: 'apiKey',
      in: 'cookie',
      name: 'crm_session',
    });
  });

  it('the specified legacy shapes (deals list, lead import) are documented as such', () => {
    const paths = fresh.paths as any;
    const deals = paths['/api/crm/deals'].get.responses['200'].content['application/json'];
    // `{ deals }` as specified, and the cursor to the deals after them.
    expect(Object.keys(deals.schema.properties)).toEqual(['deals', 'nextCursor']);
    const leadImport =
      paths['/api/v1/import/leads'].post.responses['200'].content['application/json'];
    expect(Object.keys(leadImport.schema.properties).sort()).toEqual(
      ['data', 'errors', 'failed', 'imported', 'success'].sort(),
    );
  });

  it('lists the resources as callable, and the rate limit from the gateway config', () => {
    const info = fresh.info as {
      description: string;
      'x-rate-limit': { defaultPerMinute: number };
    };
    for (const [resource, note] of [
      ['Contacts', 'list, create, read, change, delete'],
      ['Leads', 'import, list, read'],
      ['Activities', 'list, read'],
      ['Automations', 'workflows, runs, test runs, outbound webhooks'],
    ]) {
      expect(info.description).toContain(`| ${resource} | callable: ${note} |`);
    }
    expect(info.description).not.toContain('planned');
    expect(info['x-rate-limit'].defaultPerMinute).toBe(1000);
    expect(info.description).toContain('1,000 requests per minute per tenant');
  });
});
