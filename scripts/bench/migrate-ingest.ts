import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../libs/shared/src/config';
import { signSvcRequest } from '../../libs/shared/src/crypto';
import type { Db } from '../../libs/shared/src/db';
import { closeServer, listen } from '../../libs/shared/src/service';
import { service as gateway } from '../../services/gateway/src/main';
import { service as migrate } from '../../services/migrate/src/main';
import { benchDeps } from './bench-deps';

const SECRET = 'bench-migrate-signing-secret';

/**
 * Signed migration ingest through the gateway (no session: the HMAC is checked by migrate):
 * returns a function that pushes `count` new leads in one signed request.
 */
export async function migrateIngest(database: Db, tenantId: string) {
  const deps = benchDeps(database);
  const svc = await listen(
    migrate.createApp(
      deps,
      loadConfig('migrate', migrate.configSchema, { SVC_MIGRATE_SIGNING_SECRET: SECRET }),
    ),
    0,
    '127.0.0.1',
  );
  const svcUrl = `http://127.0.0.1:${(svc.address() as AddressInfo).port}`;
  const gw = await listen(
    gateway.createApp(deps, loadConfig('gateway', gateway.configSchema, { MIGRATE_URL: svcUrl })),
    0,
    '127.0.0.1',
  );
  const gwUrl = `http://127.0.0.1:${(gw.address() as AddressInfo).port}`;
  return {
    ingestLeads: async (count: number, run: number) => {
      const body = JSON.stringify({
        tenant: tenantId,
        source_system: 'bench',
        entity: 'leads',
        records: Array.from({ length: count }, (_, i) => ({
          external_id: `m-${run}-${i}`,
          email: `migrate-${run}-${i}@example.com`,
          first_name: 'Bench',
          last_name: `Lead ${i}`,
          phone: '+1 555 0100',
          status: 'new',
          lead_source: 'Web Form',
          company: 'Bench Corp',
        })),
      });
      const path = '/api/migrate/ingest';
      const res = await fetch(`${gwUrl}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...signSvcRequest(SECRET, { method: 'POST', path, body }),
        },
        body,
      });
      const answer = (await res.json()) as { created: number };
      if (res.status !== 200 || answer.created !== count) {
        throw new Error(`migrate ingest failed: ${res.status} ${JSON.stringify(answer)}`);
      }
    },
    close: async () => {
      await closeServer(gw, 1000);
      await closeServer(svc, 1000);
    },
  };
}
