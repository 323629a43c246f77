export { createDb, type Db, type CreateDbOptions } from './create-db';
export { PREPARED } from './prepared-statement';
export { withTenant, withTenantClient, withSystemScope, asTenant, type Trx } from './tenant-scope';
export {
  migrateToLatest,
  assertRowLevelSecurity,
  findRowLevelSecurityGaps,
  type RlsGap,
} from './migrate';
export {
  enableTenantRls,
  OUTBOX_CHANNEL,
  LEAD_STATUSES,
  DEAL_STAGES,
  INBOUND_OUTCOMES,
  HELD_OUTCOME,
  INBOUND_VERIFICATIONS,
  STOREFRONT_PLATFORMS,
  PAYMENT_PROVIDERS,
  NETWORK_ACTIVITY_KINDS,
  CONVERSATION_STATUSES,
  MIGRATION_ENTITIES,
  ACTIVITY_TYPES,
  WORKFLOW_RUN_STATUSES,
  WORKFLOW_STEP_STATUSES,
} from './migrations';
export { TENANT_ROLE, SYSTEM_ROLE, TENANT_SETTING } from './roles';
export {
  PAYLOAD_TABLE,
  PAYLOAD_PARTITION_SCHEMA,
  PAYLOAD_WEEKS_AHEAD,
  payloadWeek,
  payloadWeeksAt,
  payloadWeekNamed,
  type PayloadWeek,
} from './ledger-payload-partitions';
export * from './schema';
export { withDatabase, ensureDatabase, dropDatabase } from './database-url';
