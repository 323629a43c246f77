import { IDENTITY_HEADER, signIdentity } from '@crm/shared/identity';
import { createTenant, createUser, freePortForTests } from '@crm/test-kit';
import type { Db } from '@crm/shared/db';
import { ServiceProcess } from './service-process';

export const INTERNAL_SECRET = 'reliability-suite-secret-0123456789abcdef';

/** crm-api as its own process on a spare port, with a tenant and an admin to call it as. */
export async function startCrmApi(
  db: Db,
  env: { DATABASE_URL: string; NATS_URL: string },
  port?: number,
): Promise<CrmApi> {
  const tenant = await createTenant(db);
  const user = await createUser(db);
  return startCrmApiAs(env, { tenantId: tenant.id, userId: user.id }, port);
}

export interface CrmApi {
  service: ServiceProcess;
  port: number;
  baseUrl: string;
  tenantId: string;
  userId: string;
  headers: Record<string, string>;
}

/** crm-api for an existing tenant and user (a restart on the same port, say). */
export async function startCrmApiAs(
  env: { DATABASE_URL: string; NATS_URL: string },
  who: { tenantId: string; userId: string },
  port?: number,
): Promise<CrmApi> {
  port ??= await freePortForTests();
  const service = await ServiceProcess.start('crm-api', {
    ...env,
    INTERNAL_TOKEN_SECRET: INTERNAL_SECRET,
    CRM_API_PORT: String(port),
    HOST: '127.0.0.1',
  });
  const headers = {
    'content-type': 'application/json',
    [IDENTITY_HEADER]: signIdentity(
      { userId: who.userId, tenantId: who.tenantId, role: 'admin' },
      INTERNAL_SECRET,
      { ttlSeconds: 3600 },
    ),
  };
  return {
    service,
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    tenantId: who.tenantId,
    userId: who.userId,
    headers,
  };
}

export function leadsBody(count: number, tag: string): string {
  return JSON.stringify({
    leads: Array.from({ length: count }, (_, i) => ({
      email: `lead-${i}@${tag}.example`,
      first_name: `Lead ${i}`,
    })),
  });
}
