import { loadConfig } from '../../libs/shared/src/config';
import { prefixesOf, type RouteOwner } from '../../libs/shared/src/routes';
import type { ServiceDefinition } from '../../libs/shared/src/service';
import { pathsNotOwnedBy, registeredPaths, testAppDeps } from '../../libs/shared/src/testing';
import { services } from '../dev/services';

/*
 * Route ownership is written once (libs/shared/src/routes/proxy-table.ts): a service that
 * registers a route under a prefix the table gives another service, or none, would never be
 * reached through the gateway (or would shadow the owner). Every service's real app is built
 * and its registered paths walked.
 */
describe('every route a service registers is under a prefix the route table gives it', () => {
  const deps = testAppDeps();
  afterAll(() => deps.closeAll());

  it.each((services as readonly ServiceDefinition[]).map((service) => [service.name, service]))(
    '%s',
    (_name, service) => {
      const app = service.createApp(deps, loadConfig(service.name, service.configSchema, {}));
      expect(registeredPaths(app).some((p) => p.path === '/health')).toBe(true);
      expect({
        service: service.name,
        notOwned: pathsNotOwnedBy(service.name as RouteOwner, app),
      }).toEqual({ service: service.name, notOwned: [] });
    },
  );

  it('every service of the route table is one of the services started', () => {
    const names = (services as readonly ServiceDefinition[]).map((s) => s.name).sort();
    for (const name of names) expect(prefixesOf(name as RouteOwner).length).toBeGreaterThan(0);
    expect(names).toEqual(
      ['automation', 'crm-api', 'gateway', 'mcp-ingest', 'migrate', 'webhook-ingest'].sort(),
    );
  });
});
