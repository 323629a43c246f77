import { createHmac, randomUUID } from 'node:crypto';
import { Webhook } from 'svix';
import { signSvcRequest } from '@crm/shared/crypto';
import { withSystemScope, type Db } from '@crm/shared/db';
import { addMember, createAccount, createTenant, freePortForTests, PASSWORD } from '@crm/test-kit';
import { INTERNAL_SECRET } from './crm-api';
import { ServiceProcess } from './service-process';

/*
 * The platform as deployed, for the reliability tests: a gateway process in front of service
 * processes, each on a spare port. Every backend has its port from the start, started or not,
 * so the gateway's route to a service that is down (or killed) points at a closed port and is
 * answered 503 by the gateway, as in production.
 */
export const BACKENDS = [
  'crm-api',
  'webhook-ingest',
  'automation',
  'mcp-ingest',
  'migrate',
] as const;
export type Backend = (typeof BACKENDS)[number];

export const NETWORK_SECRET = 'reliability-network-webhook-secret';
export const MIGRATE_SECRET = 'reliability-migrate-signing-secret';
/** Every other receiver's secret, configured as in production (one without it answers 503). */
export const PROVIDER_SECRETS = {
  BILLING_WEBHOOK_SECRET: 'reliability-billing-secret',
  EMAIL_WEBHOOK_SECRET: 'whsec_cmVsaWFiaWxpdHktZW1haWwtc2VjcmV0',
  MESSAGING_APP_SECRET: 'reliability-messaging-secret',
  TELEPHONY_AUTH_TOKEN: 'reliability-telephony-token',
};

const envName = (service: string) => service.toUpperCase().replace(/-/g, '_');

export interface PlatformEnv {
  DATABASE_URL: string;
  NATS_URL: string;
}

export class Platform {
  private constructor(
    private readonly env: PlatformEnv,
    readonly gateway: ServiceProcess,
    readonly ports: Record<string, number>,
    readonly services: Map<Backend, ServiceProcess>,
  ) {}

  /** The gateway's base URL: every request of the tests goes through it. */
  get url(): string {
    return `http://127.0.0.1:${this.ports.gateway}`;
  }

  /** Starts `backends` (in parallel) and then the gateway in front of all five routes. */
  static async start(env: PlatformEnv, backends: Backend[]): Promise<Platform> {
    const ports: Record<string, number> = { gateway: await freePortForTests() };
    for (const name of BACKENDS) ports[name] = await freePortForTests();
    const services = new Map<Backend, ServiceProcess>();
    const started = await Promise.allSettled(
      backends.map(async (name) => {
        services.set(name, await startBackend(name, env, ports[name]));
      }),
    );
    const gatewayEnv: Record<string, string> = {
      ...env,
      INTERNAL_TOKEN_SECRET: INTERNAL_SECRET,
      HOST: '127.0.0.1',
      GATEWAY_PORT: String(ports.gateway),
      // The tests measure failure handling, not the per-tenant and per-IP limits.
      RATE_LIMIT_SIGN_IN_PER_MINUTE: '1000000',
      RATE_LIMIT_PUBLIC_PER_MINUTE: '1000000',
      RATE_LIMIT_DEFAULT_PER_MINUTE: '1000000',
      RATE_LIMIT_PLANS: 'free=1000000',
    };
    for (const name of BACKENDS) {
      gatewayEnv[`${envName(name)}_URL`] = `http://127.0.0.1:${ports[name]}`;
    }
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) {
      await Promise.all([...services.values()].map((s) => s.stop()));
      throw (failed as PromiseRejectedResult).reason;
    }
    const gateway = await ServiceProcess.start('gateway', gatewayEnv).catch(
      async (err: unknown) => {
        await Promise.all([...services.values()].map((s) => s.stop()));
        throw err;
      },
    );
    return new Platform(env, gateway, ports, services);
  }

  service(name: Backend): ServiceProcess {
    const service = this.services.get(name);
    if (!service) throw new Error(`${name} is not running`);
    return service;
  }

  /** Starts `name` again on its port (after a kill), as an orchestrator would. */
  async restart(name: Backend): Promise<ServiceProcess> {
    await this.services.get(name)?.stop();
    const service = await startBackend(name, this.env, this.ports[name]);
    this.services.set(name, service);
    return service;
  }

  /** Every process, with its own clean stop. */
  processes(): ServiceProcess[] {
    return [this.gateway, ...this.services.values()];
  }

  /** The names of the processes that have exited (crashed, say): [] while all run. */
  exited(): string[] {
    return this.processes()
      .filter((p) => !p.running())
      .map((p) => p.name);
  }

  async stop(): Promise<void> {
    await this.gateway.stop();
    await Promise.all([...this.services.values()].map((s) => s.stop()));
  }
}

function startBackend(name: Backend, env: PlatformEnv, port: number): Promise<ServiceProcess> {
  return ServiceProcess.start(name, {
    ...env,
    INTERNAL_TOKEN_SECRET: INTERNAL_SECRET,
    HOST: '127.0.0.1',
    [`${envName(name)}_PORT`]: String(port),
    NETWORK_WEBHOOK_SECRET: NETWORK_SECRET,
    ...PROVIDER_SECRETS,
    SVC_MIGRATE_SIGNING_SECRET: MIGRATE_SECRET,
  });
}

export interface Session {
  tenantId: string;
  tenantSlug: string;
  userId: string;
  /** The Cookie header a signed-in browser sends. */
  cookie: string;
  headers: Record<string, string>;
}

/** A new tenant whose owner signs in through the gateway (POST /api/auth/sign-in). */
export async function signedInOwner(db: Db, platform: Platform): Promise<Session> {
  const tenant = await createTenant(db);
  const user = await createAccount(db, 'owner');
  await addMember(db, tenant.id, user.id, 'owner');
  const res = await fetch(`${platform.url}/api/auth/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: user.email, password: PASSWORD }),
  });
  if (res.status !== 200) throw new Error(`sign-in: ${res.status} ${await res.text()}`);
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  return {
    tenantId: tenant.id,
    tenantSlug: tenant.slug,
    userId: user.id,
    cookie,
    headers: { cookie, 'content-type': 'application/json' },
  };
}

/** A network account of the tenant, so signed network deliveries for it are stored. */
export async function connectNetworkAccount(db: Db, tenantId: string): Promise<string> {
  const externalAccountId = `acc-${randomUUID()}`;
  await withSystemScope(db.db, (trx) =>
    trx
      .insertInto('network_accounts')
      // A proven claim: its deliveries are routed.
      .values({
        tenant_id: tenantId,
        external_account_id: externalAccountId,
        proven_at: new Date(),
      })
      .execute(),
  );
  return externalAccountId;
}

/** One network event as the provider signs it (`t=<s>,v1=<hmac of "t.body">`). */
export function signedNetworkDelivery(
  externalAccountId: string,
  eventId = `evt-${randomUUID()}`,
): { body: string; headers: Record<string, string>; eventId: string } {
  const body = JSON.stringify({
    id: eventId,
    type: 'INVITATION_SENT',
    account_id: externalAccountId,
    occurred_at: new Date().toISOString(),
    actor: { name: 'Reliability', profile_url: 'https://network.example/in/reliability' },
  });
  return { body, headers: signNetwork(body), eventId };
}

export function signNetwork(body: string): Record<string, string> {
  const t = Math.floor(Date.now() / 1000);
  const v1 = createHmac('sha256', NETWORK_SECRET).update(`${t}.${body}`).digest('hex');
  return { 'content-type': 'application/json', 'x-network-signature': `t=${t},v1=${v1}` };
}

/**
 * Headers of an email provider delivery of `text` in its scheme (Standard Webhooks, as svix signs
 * them, under the email-webhook-* names); `id` is the signed webhook id the ledger keys it by.
 */
export function signEmail(text: string, id = `msg_${randomUUID()}`): Record<string, string> {
  const at = new Date();
  return {
    'email-webhook-id': id,
    'email-webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'email-webhook-signature': new Webhook(PROVIDER_SECRETS.EMAIL_WEBHOOK_SECRET).sign(
      id,
      at,
      text,
    ),
  };
}

export const MIGRATE_PATH = '/api/migrate/ingest';

/** Headers of a migrate ingest call signed with the platform's secret and a fresh nonce. */
export function signMigrate(body: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    ...signSvcRequest(MIGRATE_SECRET, { method: 'POST', path: MIGRATE_PATH, body }),
  };
}
