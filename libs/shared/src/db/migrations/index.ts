import type { Migration } from 'kysely';
import * as roles_and_core_tables from './0001_roles_and_core_tables';
import * as event_outbox from './0002_event_outbox';
import * as rate_limits from './0003_rate_limits';
import * as crm_records from './0004_crm_records';
import * as inbound_webhooks from './0005_inbound_webhooks';
import * as outbox_envelope_json from './0006_outbox_envelope_json';
import * as tenant_invitations from './0007_tenant_invitations';
import * as payment_object_ids from './0008_payment_object_ids';
import * as records_library from './0009_records_library';
import * as automation_workflows from './0010_automation_workflows';
import * as mcp_keys from './0011_mcp_keys';
import * as migrate_ingest from './0012_migrate_ingest';
import * as activities from './0013_activities';
import * as bulk_tables_without_tenant_fk from './0014_bulk_tables_without_tenant_fk';
import * as outbox_event_batches from './0015_outbox_event_batches';
import * as outbox_envelopes_lz4 from './0016_outbox_envelopes_compressed_with_lz4';
import * as provider_identifier_proofs from './0017_provider_identifier_proofs';
import * as lead_list_indexes from './0018_lead_list_indexes';
import * as contact_and_activity_list_indexes from './0019_contact_and_activity_list_indexes';
import * as migration_records_by_record from './0020_migration_records_by_record';
import * as timeline_indexes from './0021_timeline_indexes';
import * as receiver_record_list_indexes from './0022_receiver_record_list_indexes';
import * as cursor_list_indexes from './0023_cursor_list_indexes';
import * as record_search from './0024_record_search';
import * as lead_search_texts from './0025_lead_search_texts';
import * as event_outbox_by_tenant from './0026_event_outbox_by_tenant';
import * as inbound_event_headers from './0027_inbound_event_headers';
import * as workflow_run_replays from './0028_workflow_run_replays';
import * as mcp_oauth from './0029_mcp_oauth';
import * as retention_indexes from './0030_retention_indexes';
import * as inbound_event_payloads from './0031_inbound_event_payloads';
import * as contact_search_text from './0032_contact_search_text';
import * as oauth_token_scopes_and_client_sweep from './0033_oauth_token_scopes_and_client_sweep';

/**
 * Every migration, in order. Names sort lexically; a new one takes the next number. Kept in
 * code rather than read from a folder so the same list runs from src (tsx, jest) and dist.
 */
export const migrations: Record<string, Migration> = {
  '0001_roles_and_core_tables': roles_and_core_tables,
  '0002_event_outbox': event_outbox,
  '0003_rate_limits': rate_limits,
  '0004_crm_records': crm_records,
  '0005_inbound_webhooks': inbound_webhooks,
  '0006_outbox_envelope_json': outbox_envelope_json,
  '0007_tenant_invitations': tenant_invitations,
  '0008_payment_object_ids': payment_object_ids,
  '0009_records_library': records_library,
  '0010_automation_workflows': automation_workflows,
  '0011_mcp_keys': mcp_keys,
  '0012_migrate_ingest': migrate_ingest,
  '0013_activities': activities,
  '0014_bulk_tables_without_tenant_fk': bulk_tables_without_tenant_fk,
  '0015_outbox_event_batches': outbox_event_batches,
  '0016_outbox_envelopes_compressed_with_lz4': outbox_envelopes_lz4,
  '0017_provider_identifier_proofs': provider_identifier_proofs,
  '0018_lead_list_indexes': lead_list_indexes,
  '0019_contact_and_activity_list_indexes': contact_and_activity_list_indexes,
  '0020_migration_records_by_record': migration_records_by_record,
  '0021_timeline_indexes': timeline_indexes,
  '0022_receiver_record_list_indexes': receiver_record_list_indexes,
  '0023_cursor_list_indexes': cursor_list_indexes,
  '0024_record_search': record_search,
  '0025_lead_search_texts': lead_search_texts,
  '0026_event_outbox_by_tenant': event_outbox_by_tenant,
  '0027_inbound_event_headers': inbound_event_headers,
  '0028_workflow_run_replays': workflow_run_replays,
  '0029_mcp_oauth': mcp_oauth,
  '0030_retention_indexes': retention_indexes,
  '0031_inbound_event_payloads': inbound_event_payloads,
  '0032_contact_search_text': contact_search_text,
  '0033_oauth_token_scopes_and_client_sweep': oauth_token_scopes_and_client_sweep,
};

export { enableTenantRls } from './tenant-rls';
export { OUTBOX_CHANNEL } from './0002_event_outbox';
export { LEAD_STATUSES, DEAL_STAGES } from './0004_crm_records';
export {
  INBOUND_OUTCOMES,
  INBOUND_VERIFICATIONS,
  STOREFRONT_PLATFORMS,
  PAYMENT_PROVIDERS,
  NETWORK_ACTIVITY_KINDS,
} from './0005_inbound_webhooks';
export { HELD_OUTCOME } from './0017_provider_identifier_proofs';
export { CONVERSATION_STATUSES } from './0009_records_library';
export { WORKFLOW_RUN_STATUSES, WORKFLOW_STEP_STATUSES } from './0010_automation_workflows';
export { MIGRATION_ENTITIES } from './0012_migrate_ingest';
export { ACTIVITY_TYPES } from './0013_activities';
