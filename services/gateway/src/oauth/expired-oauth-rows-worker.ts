import { withSystemScope } from '@crm/shared/db';
import type { Worker, WorkerDeps } from '@crm/shared/service';
import { deleteExpiredOAuthRows } from './oauth.repository';

/** How often the gateway deletes expired authorization requests, codes and tokens. */
export const OAUTH_SWEEP_EVERY_MS = 10 * 60_000;
/**
 * A row is deleted once it has been expired this long. Kept a day so a used code or refresh
 * token presented again shortly after it expired is still recognised (and refused as expired).
 */
export const KEEP_EXPIRED_OAUTH_SECONDS = 24 * 3600;

/** Deletes what expired over KEEP_EXPIRED_OAUTH_SECONDS ago; returns how many rows. */
export function deleteExpiredOAuth(deps: Pick<WorkerDeps, 'db'>): Promise<number> {
  return withSystemScope(deps.db, (trx) => deleteExpiredOAuthRows(trx, KEEP_EXPIRED_OAUTH_SECONDS));
}

/**
 * Sweeps the authorization server's short-lived rows (requests waiting for consent, codes,
 * access and refresh tokens) at start and then every OAUTH_SWEEP_EVERY_MS. Grants stay: they
 * are the tenant's record of a connection (revoked or not). Replicas may sweep side by side.
 */
export function expiredOAuthRowsWorker(
  deps: Pick<WorkerDeps, 'db' | 'logger'>,
  everyMs = OAUTH_SWEEP_EVERY_MS,
): Worker {
  let timer: NodeJS.Timeout | undefined;
  let sweeping: Promise<void> | undefined;
  const sweep = () => {
    if (sweeping) return;
    sweeping = deleteExpiredOAuth(deps)
      .then(
        () => undefined,
        // Not fatal: the rows stay until the next sweep (and are refused as expired meanwhile).
        (err: unknown) => deps.logger.warn({ err }, 'deleting expired OAuth rows failed'),
      )
      .finally(() => (sweeping = undefined));
  };
  return {
    name: 'expired-oauth-rows',
    async start() {
      sweep();
      timer = setInterval(sweep, everyMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      await sweeping;
    },
  };
}
