import { randomUUID } from 'node:crypto';
import {
  LEAD_TEXT_FIELDS,
  normalizeLead,
  upsertLeadFillingBlanks,
  type LeadInput,
} from '@crm/records';
import { withTenant, type Database } from '@crm/shared/db';
import { writeEvent } from '@crm/shared/events';
import { errors, formBody, jsonBody, sendSuccess } from '@crm/shared/http';
import { Router, type Response } from 'express';
import type { Kysely } from 'kysely';
import { findEnabledFormBySlugs } from './cross-tenant-lookups';
import { insertSubmission } from './forms.repository';
import {
  HONEYPOT_FIELD,
  MAX_SUBMITTED_FIELDS,
  submittedEmailSchema,
  type FormField,
} from './forms.schema';

export const SUBMIT_PATH = '/api/public/forms/:tenantSlug/:formSlug/submit';
export const WEB_FORM_SOURCE = 'web_form';
/** Submitted fields stored in the lead's own columns; every other field goes to custom_fields. */
const LEAD_COLUMNS = new Set<string>(['email', ...LEAD_TEXT_FIELDS]);

/** A value a person left empty: missing, null, only spaces or an empty list. */
function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.every(isEmpty);
  return false;
}

/** What a required field must not be: empty, or an unticked box (`false`). */
function isBlank(value: unknown): boolean {
  return value === false || isEmpty(value);
}

function invalid(message: string, field: string) {
  return errors.validation(message, { field });
}

/** The form's own rules: required fields present, email fields valid, select values allowed. */
function checkAgainstDefinition(fields: FormField[], submitted: Record<string, unknown>): void {
  for (const field of fields) {
    const value = submitted[field.name];
    if (isBlank(value)) {
      if (field.required) throw invalid(`${field.name} is required`, field.name);
      continue;
    }
    // `email` itself is checked by normalizeLead with the import's texts.
    if (field.type === 'email' && field.name !== 'email') {
      if (typeof value !== 'string' || !submittedEmailSchema.safeParse(value.trim()).success) {
        throw invalid(`${field.name} must be a valid email address`, field.name);
      }
    }
    if (field.type === 'select' && field.options) {
      const allowed = new Set(field.options);
      const values = Array.isArray(value) ? value : [value];
      if (!values.every((v) => typeof v === 'string' && allowed.has(v))) {
        throw invalid(`${field.name} must be one of: ${field.options.join(', ')}`, field.name);
      }
    }
  }
}

/**
 * The submitted fields as a lead: email, first_name, last_name and phone in their columns
 * (empty ones left out, so they never clear what a lead already has), every other non-empty
 * field in custom_fields. Status and source are not the submitter's to choose.
 */
function toLead(submitted: Record<string, unknown>): LeadInput {
  const row: Record<string, unknown> = { email: submitted.email };
  const custom: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(submitted)) {
    if (key === 'email' || isEmpty(value)) continue;
    if (LEAD_COLUMNS.has(key)) row[key] = value;
    else custom[key] = value;
  }
  row.custom_fields = custom;
  const result = normalizeLead(row);
  if (!result.ok) {
    const field = /^Invalid (\w+):/.exec(result.error)?.[1] ?? 'email';
    throw invalid(result.error, field);
  }
  return result.lead;
}

/** The body as `name -> value`, without the honeypot and keys that would reach a prototype. */
function submittedFields(body: unknown): Record<string, unknown> {
  if (body === undefined) return {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw errors.validation('The form submission must be an object of fields');
  }
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (key === HONEYPOT_FIELD || key === '__proto__') continue;
    fields[key] = value;
  }
  if (Object.keys(fields).length > MAX_SUBMITTED_FIELDS) {
    throw errors.validation(`A submission has at most ${MAX_SUBMITTED_FIELDS} fields`, {
      maxFields: MAX_SUBMITTED_FIELDS,
    });
  }
  return fields;
}

/**
 * The one answer to a submission, stored or not (honeypot): only the submission's own random
 * id, so an anonymous caller learns nothing about the leads the tenant already has.
 */
function answerSubmitted(res: Response, submissionId: string): void {
  sendSuccess(res, { submission_id: submissionId }, { status: 201, message: 'Form submitted' });
}

/**
 * POST /api/public/forms/:tenantSlug/:formSlug/submit (Public, no identity): JSON or
 * `application/x-www-form-urlencoded`. Creates the lead of a new email with source `web_form`,
 * or fills only the empty fields of an existing one (the submitter is anonymous: what the
 * tenant stored is never replaced), records the submission with every value submitted and
 * emits `form.submitted` (upsertLeadFillingBlanks emits `lead.created` / `lead.updated`), all
 * in one tenant transaction.
 */
export function publicSubmitRoutes(db: Kysely<Database>, bodyLimitBytes: number): Router {
  const router = Router();
  router.post(SUBMIT_PATH, jsonBody(bodyLimitBytes), formBody(bodyLimitBytes), async (req, res) => {
    const hasContent =
      req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length']) > 0;
    if (hasContent && !req.is(['application/json', 'application/x-www-form-urlencoded'])) {
      throw errors.unsupportedMediaType(
        'Send the form as application/json or application/x-www-form-urlencoded',
      );
    }
    const { tenantSlug, formSlug } = req.params as Record<'tenantSlug' | 'formSlug', string>;
    const form = await findEnabledFormBySlugs(db, tenantSlug, formSlug);
    // Unknown tenant, unknown form and disabled form answer alike, so slugs cannot be probed.
    if (!form) throw errors.notFound('Form not found');

    const body = req.body as Record<string, unknown> | undefined;
    if (!isBlank(body?.[HONEYPOT_FIELD])) {
      // A bot: the same answer as a stored submission, nothing stored.
      answerSubmitted(res, randomUUID());
      return;
    }
    const submitted = submittedFields(body);
    const lead = toLead(submitted);
    checkAgainstDefinition(form.fields, submitted);

    const submissionId = await withTenant(db, form.tenantId, async (trx) => {
      const stored = await upsertLeadFillingBlanks(trx, form.tenantId, lead, WEB_FORM_SOURCE);
      const id = await insertSubmission(trx, {
        tenantId: form.tenantId,
        formId: form.formId,
        leadId: stored.id,
        payload: submitted,
      });
      await writeEvent(trx, {
        type: 'form.submitted',
        tenant_id: form.tenantId,
        record: { module: 'forms', id: form.formId },
        data: { form_id: form.formId, lead_id: stored.id, submission_id: id },
      });
      return id;
    });
    answerSubmitted(res, submissionId);
  });
  return router;
}
