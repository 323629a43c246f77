import { withTenant, type Database, type Trx } from '@crm/shared/db';
import { AppError, errors, jsonBody, requestLogger } from '@crm/shared/http';
import { identityOf } from '@crm/shared/identity';
import type { Request, Response } from 'express';
import { Router } from 'express';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { findTenantName } from './exports.repository';
import { parseExportRequest, type ExportRequest } from './exports.schema';
import { isClientGone } from './output-stream';
import { rowBatches } from './row-cursor';

/** Rows fetched from the cursor per round trip, and so at most held in memory at once. */
export const EXPORT_BATCH_SIZE = 1000;
const RETRY_AFTER_SECONDS = 5;

export interface ExportRouteOptions {
  db: Kysely<Database>;
  logger: Logger;
  bodyLimitBytes: number;
  /** Exports streaming at once in this process (each holds a database connection). */
  maxConcurrent: number;
}

function tooManyExports(): AppError {
  return new AppError({
    status: 503,
    code: 'SERVICE_UNAVAILABLE',
    error: 'Service unavailable',
    message: `Too many exports are running; try again in ${RETRY_AFTER_SECONDS} seconds`,
    details: { retryAfter: RETRY_AFTER_SECONDS },
    headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
  });
}

/**
 * Streams one export inside the tenant's transaction. Everything that can fail on the
 * request's own account (the tenant, the query, its first batch) happens before the first
 * header, so it still gets a JSON envelope; after that a failure destroys the response, so
 * a client never mistakes a cut-off file for a complete one.
 */
async function streamExport(
  trx: Trx,
  tenantId: string,
  request: ExportRequest,
  req: Request,
  res: Response,
  logger: Logger,
): Promise<void> {
  const tenant = await findTenantName(trx, tenantId);
  if (!tenant) throw errors.notFound('Tenant not found');
  const { resource, format, columns } = request;
  const batches = rowBatches(
    trx,
    resource.query(trx, tenantId, request.filters, columns),
    EXPORT_BATCH_SIZE,
  );
  try {
    const first = await batches.next();
    const generatedAt = new Date();
    const filename = `${resource.name}-${generatedAt.toISOString().slice(0, 10)}.${format.extension}`;
    res.status(200).set({
      'content-type': format.contentType,
      'content-disposition': `attachment; filename="${filename}"`,
      'cache-control': 'no-store',
    });
    const writer = format.open(res, {
      resource,
      columns,
      tenantName: tenant.name,
      generatedAt,
    });
    try {
      if (!first.done) {
        await writer.write(first.value);
        for await (const rows of batches) await writer.write(rows);
      }
      await writer.end();
    } catch (err) {
      // Judged before abort() destroys the response itself.
      const clientGone = isClientGone(err, res);
      writer.abort();
      if (!clientGone) throw err;
      requestLogger(logger, req).info(
        { tenantId, resource: resource.name, format: format.name },
        'export stopped: the client went away',
      );
    }
  } finally {
    await batches.return();
  }
}

/** POST /api/exports: a CSV, XLSX or PDF file of the tenant's leads or deals, streamed. */
export function exportRoutes(options: ExportRouteOptions): Router {
  const router = Router();
  let running = 0;
  router.use('/api/exports', jsonBody(options.bodyLimitBytes));

  router.post('/api/exports', async (req, res) => {
    const { tenantId } = identityOf(req);
    const request = parseExportRequest(req.body);
    if (running >= options.maxConcurrent) throw tooManyExports();
    running += 1;
    try {
      await withTenant(options.db, tenantId, (trx) =>
        streamExport(trx, tenantId, request, req, res, options.logger),
      );
    } finally {
      running -= 1;
    }
  });

  return router;
}
