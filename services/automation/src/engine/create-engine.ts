import { configuredSecretBox, WORKFLOW_SIGNING_SECRETS, type SecretBox } from '@crm/shared/crypto';
import type { Database } from '@crm/shared/db';
import type { IdentitySecrets } from '@crm/shared/identity';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config';
import { Engine } from './engine';
import { TenantLimiter } from './limiter';
import { createOutboundClient, type OutboundClient } from './outbound';

/** Most runs recorded but not finished per process before the consumer waits. */
export const MAX_PENDING_RUNS = 10_000;

/** Workflow secrets' box: AUTOMATION_SECRETS_KEY (or the internal token secret) and its previous value. */
export function secretBoxFor(config: Config, secrets: IdentitySecrets): SecretBox {
  return configuredSecretBox(WORKFLOW_SIGNING_SECRETS, config, secrets);
}

/** The engine and the HTTP client it sends with (close the client when done). */
export function createEngine(
  deps: { db: Kysely<Database>; logger: Logger; version: string } & IdentitySecrets,
  config: Config,
  options: { keepAlive?: boolean } = {},
): { engine: Engine; outbound: OutboundClient } {
  const outbound = createOutboundClient({
    timeoutMs: config.OUTBOUND_TIMEOUT_MS,
    allowPrivateNetworks: config.OUTBOUND_ALLOW_PRIVATE_NETWORKS,
    userAgent: `crm-platform-automation/${deps.version}`,
    keepAlive: options.keepAlive,
  });
  const engine = new Engine({
    db: deps.db,
    logger: deps.logger,
    secrets: secretBoxFor(config, deps),
    outbound,
    limiter: new TenantLimiter(
      config.AUTOMATION_MAX_CONCURRENT,
      config.AUTOMATION_MAX_CONCURRENT_PER_TENANT,
    ),
    maxPending: MAX_PENDING_RUNS,
  });
  return { engine, outbound };
}
