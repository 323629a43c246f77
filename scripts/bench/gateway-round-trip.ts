import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../libs/shared/src/config';
import type { Db } from '../../libs/shared/src/db';
import { closeServer, listen } from '../../libs/shared/src/service';
import { service as crmApi } from '../../services/crm-api/src/main';
import { service as gateway } from '../../services/gateway/src/main';
import { benchDeps, benchSession } from './bench-deps';

/**
 * A signed-in Session request through the gateway to crm-api over real HTTP: session lookup,
 * memberships, tenant rate limit (Postgres), identity signing, proxy, identity check in the
 * service. Returns a function that makes one such request.
 */
export async function gatewayRoundTrip(database: Db, tenantId: string) {
  const deps = benchDeps(database);
  const crm = await listen(
    crmApi.createApp(deps, loadConfig('crm-api', crmApi.configSchema, {})),
    0,
    '127.0.0.1',
  );
  const crmUrl = `http://127.0.0.1:${(crm.address() as AddressInfo).port}`;
  const gw = await listen(
    gateway.createApp(
      deps,
      loadConfig('gateway', gateway.configSchema, {
        CRM_API_URL: crmUrl,
        RATE_LIMIT_PLANS: 'free=100000000',
      }),
    ),
    0,
    '127.0.0.1',
  );
  const gwUrl = `http://127.0.0.1:${(gw.address() as AddressInfo).port}`;
  const cookie = await benchSession(database, tenantId, gwUrl, 'bench');
  return {
    request: async () => {
      const res = await fetch(`${gwUrl}/api/crm/deals`, { headers: { cookie } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`unexpected ${res.status}`);
    },
    /** POST /api/v1/import/leads with `count` new leads; returns the response body. */
    importLeads: async (count: number, run: number) => {
      const leads = Array.from({ length: count }, (_, i) => ({
        email: `bench-${run}-${i}@example.com`,
        first_name: 'Bench',
        last_name: `Lead ${i}`,
        phone: '+1 555 0100',
        status: 'new',
        lead_source: 'Web Form',
        company: 'Bench Corp',
      }));
      const res = await fetch(`${gwUrl}/api/v1/import/leads`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ leads }),
      });
      const body = (await res.json()) as { imported: number };
      if (res.status !== 200 || body.imported !== count)
        throw new Error(`import failed: ${res.status}`);
    },
    close: async () => {
      await closeServer(gw, 1000);
      await closeServer(crm, 1000);
    },
  };
}
