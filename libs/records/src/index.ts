/**
 * @crm/records: the platform's records, written once for every service (DESIGN.md, Shape).
 * Per record type: its zod schema, its repository (kysely functions taking a Trx: all of its
 * SQL) and its events. Depends on @crm/shared, never on a service.
 */
export {
  normalizeLead,
  normalizeSource,
  SOURCE_ALIASES,
  DEFAULT_LEAD_SOURCE,
  DEFAULT_LEAD_STATUS,
  type LeadInput,
  type LeadStatus,
  type NormalizeResult,
} from './leads/normalize-lead';
export { upsertLeads, type StoredLead } from './leads/leads.repository';
export { leadFilterFields, whereLeadFilters, type LeadFilters } from './leads/lead-filters';
