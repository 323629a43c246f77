import { LEAD_STATUSES } from '@crm/shared/db';
import { z } from 'zod';
import {
  LEAD_ERRORS,
  LEAD_ITEM_KEYS,
  LEAD_TEXT_FIELDS,
  MAX_LEAD_EMAIL,
  MAX_LEAD_TEXT,
} from './leads.schema';

/** A lead ready to store: email lower-cased, source normalised, unknown keys in custom_fields. */
export interface LeadInput {
  email: string;
  /** `undefined` = not given (an update keeps the stored value); `null` = clear it. */
  first_name?: string | null;
  last_name?: string | null;
  phone?: string | null;
  status?: string;
  source?: string;
  custom_fields: Record<string, unknown>;
}

export type LeadStatus = (typeof LEAD_STATUSES)[number];
export const DEFAULT_LEAD_STATUS: LeadStatus = 'new';
export const DEFAULT_LEAD_SOURCE = 'api_import';

/**
 * Common spellings folded into one source name (after lower-casing and turning spaces and
 * dashes into underscores): `Web Form`, `website`, `form` -> `web_form`, and so on.
 */
export const SOURCE_ALIASES: Record<string, string> = {
  web: 'web_form',
  website: 'web_form',
  form: 'web_form',
  webform: 'web_form',
  api: 'api_import',
  import: 'api_import',
  csv: 'csv_import',
  linkedin: 'network',
  email_campaign: 'email',
  e_mail: 'email',
  referal: 'referral',
  ads: 'paid_ads',
  ad: 'paid_ads',
  ppc: 'paid_ads',
  mcp: 'mcp_ingest',
};

/** ` Web-Form ` -> `web_form`; empty -> undefined (the caller's default applies). */
export function normalizeSource(raw: string): string | undefined {
  // An import repeats a handful of spellings thousands of times: remember recent short ones.
  if (sourceCache.has(raw)) return sourceCache.get(raw);
  const source = foldSource(raw);
  if (raw.length <= 100) {
    if (sourceCache.size >= SOURCE_CACHE_SIZE) sourceCache.clear();
    sourceCache.set(raw, source);
  }
  return source;
}

const SOURCE_CACHE_SIZE = 1000;
const sourceCache = new Map<string, string | undefined>();

function foldSource(raw: string): string | undefined {
  const folded = raw
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_')
    .replace(/[^a-z0-9_]/g, '')
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '')
    .slice(0, 100);
  if (!folded) return undefined;
  // Own keys only: `constructor` or `__proto__` is a source like any other, not Object's.
  return Object.hasOwn(SOURCE_ALIASES, folded) ? SOURCE_ALIASES[folded] : folded;
}

const emailSchema = z.email();
const KNOWN_KEYS = new Set<string>(LEAD_ITEM_KEYS);
const STATUSES = new Set<string>(LEAD_STATUSES);

export type NormalizeResult = { ok: true; lead: LeadInput } | { ok: false; error: string };

function optionalText(
  row: Record<string, unknown>,
  key: string,
): { value?: string | null; error?: string } {
  const value = row[key];
  if (value === undefined) return {};
  if (value === null) return { value: null };
  if (typeof value !== 'string' && typeof value !== 'number')
    return { error: LEAD_ERRORS.notAString(key) };
  const text = String(value).trim();
  if (text.length > MAX_LEAD_TEXT) return { error: LEAD_ERRORS.tooLong(key) };
  return { value: text === '' ? null : text };
}

/**
 * One element of `leads` (a lead import item) to a LeadInput, or the error text of
 * its `errors` entry (LEAD_ERRORS). The rules are leadImportItemSchema's, written out by hand
 * for speed: the first problem in the schema's key order is the one reported.
 */
export function normalizeLead(row: unknown): NormalizeResult {
  if (typeof row !== 'object' || row === null || Array.isArray(row))
    return { ok: false, error: LEAD_ERRORS.notAnObject };
  const fields = row as Record<string, unknown>;
  const rawEmail = fields.email;
  if (
    rawEmail === undefined ||
    rawEmail === null ||
    (typeof rawEmail === 'string' && rawEmail.trim() === '')
  ) {
    return { ok: false, error: LEAD_ERRORS.emailRequired };
  }
  if (typeof rawEmail !== 'string') return { ok: false, error: LEAD_ERRORS.invalidEmail };
  const email = rawEmail.trim().toLowerCase();
  if (email.length > MAX_LEAD_EMAIL || !emailSchema.safeParse(email).success)
    return { ok: false, error: LEAD_ERRORS.invalidEmail };

  const lead: LeadInput = { email, custom_fields: {} };
  for (const key of LEAD_TEXT_FIELDS) {
    const { value, error } = optionalText(fields, key);
    if (error) return { ok: false, error };
    if (value !== undefined) lead[key] = value;
  }

  if (fields.status !== undefined && fields.status !== null && fields.status !== '') {
    if (typeof fields.status !== 'string' || !STATUSES.has(fields.status.trim().toLowerCase())) {
      return { ok: false, error: LEAD_ERRORS.invalidStatus(fields.status) };
    }
    lead.status = fields.status.trim().toLowerCase();
  }

  const rawSource = fields.lead_source ?? fields.source;
  if (rawSource !== undefined && rawSource !== null) {
    if (typeof rawSource !== 'string') return { ok: false, error: LEAD_ERRORS.sourceNotAString };
    const source = normalizeSource(rawSource);
    if (source) lead.source = source;
  }

  if (fields.custom_fields !== undefined && fields.custom_fields !== null) {
    if (typeof fields.custom_fields !== 'object' || Array.isArray(fields.custom_fields)) {
      return { ok: false, error: LEAD_ERRORS.customFieldsNotAnObject };
    }
    Object.assign(lead.custom_fields, fields.custom_fields);
  }
  // Specified: unknown keys, such as `company`, go into custom_fields.
  for (const key of Object.keys(fields)) {
    if (!KNOWN_KEYS.has(key)) lead.custom_fields[key] = fields[key];
  }
  return { ok: true, lead };
}
