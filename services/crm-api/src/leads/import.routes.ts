import { ingestLeads } from '@crm/records';
import { withTenant, type Database } from '@crm/shared/db';
import { errors, jsonBody } from '@crm/shared/http';
import { identityOf } from '@crm/shared/identity';
import { Router } from 'express';
import type { Kysely } from 'kysely';
import { insertCompletedLeadImport } from './import-jobs.repository';

export interface ImportOptions {
  db: Kysely<Database>;
  maxRows: number;
  bodyLimitBytes: number;
}

/**
 * POST /api/v1/import/leads, as specified: 200 `{ success, imported, failed,
 * errors, data }` even when rows fail; 400 `Invalid request: leads array required` when
 * `leads` is missing, empty or not an array.
 */
export function importRoutes(options: ImportOptions): Router {
  const router = Router();
  router.post('/api/v1/import/leads', jsonBody(options.bodyLimitBytes), async (req, res) => {
    const { tenantId, userId } = identityOf(req);
    const startedAt = new Date();
    const leads = (req.body as { leads?: unknown } | undefined)?.leads;
    if (!Array.isArray(leads) || leads.length === 0) {
      throw errors.invalidRequest(
        'Invalid request: leads array required',
        'Send { "leads": [ ... ] } with at least one lead',
      );
    }
    if (leads.length > options.maxRows) {
      throw errors.validation(`Too many leads: at most ${options.maxRows} per request`, {
        maxRows: options.maxRows,
        received: leads.length,
      });
    }
    const result = await withTenant(options.db, tenantId, async (trx) => {
      const ingested = await ingestLeads(trx, tenantId, leads);
      await insertCompletedLeadImport(trx, {
        tenantId,
        userId,
        total: leads.length,
        imported: ingested.imported,
        failed: ingested.failed,
        startedAt,
        finishedAt: new Date(),
      });
      return ingested;
    });
    res.status(200).json({
      // The request was processed; per-row outcomes are in imported/failed/errors (specified).
      success: true,
      imported: result.imported,
      failed: result.failed,
      errors: result.errors,
      data: result.data,
    });
  });
  return router;
}
