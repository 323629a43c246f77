import type { Database } from '@crm/shared/db';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { SecretBox } from '@crm/shared/crypto';

/** What every provider's receiver router is built from (app.ts makes one). */
export interface ReceiverContext {
  db: Kysely<Database>;
  logger: Logger;
  config: Config;
  /** Opens stored connection secrets (storefronts, payments). */
  secrets: SecretBox;
  /** Largest body a receiver reads, in bytes; larger -> 413 before anything else. */
  bodyLimitBytes: number;
  /** Signs the list cursors of the admin views (the internal token secret). */
  cursorSecret: string;
}
