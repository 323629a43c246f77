import { withTenant, withTenantClient, type Database, type Trx } from '@crm/shared/db';
import { AppError, errors, jsonBody, requestLogger } from '@crm/shared/http';
import { identityOf } from '@crm/shared/identity';
import type { Request, Response } from 'express';
import { Router } from 'express';
import type { Kysely } from 'kysely';
import type { Pool, PoolClient } from 'pg';
import type { Logger } from 'pino';
import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CsvFromCopy } from './csv-writer';
import type { ExportFormat } from './export-formats';
import {
  allowLongStatements,
  copyRows,
  findTenantName,
  findTenantNameOnClient,
  rowBatches,
} from './exports.repository';
import { parseExportRequest, type ExportRequest } from './exports.schema';
import { ClientGoneError, isClientGone } from './output-stream';

/** Rows fetched from the cursor per round trip, and so at most held in memory at once. */
export const EXPORT_BATCH_SIZE = 1000;
const RETRY_AFTER_SECONDS = 5;
/**
 * What a CSV export holds at most on each side of CsvFromCopy (the COPY's bytes read ahead, the
 * file's bytes not yet taken by the response): small and bounded, whatever the file's size.
 */
const COPY_BUFFER_BYTES = 256 * 1024;

export interface ExportRouteOptions {
  db: Kysely<Database>;
  /** The pool under `db`: a COPY needs a client of its own (withTenantClient). */
  pool: Pool;
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
  request: ExportRequest & { format: Extract<ExportFormat, { feed: 'rows' }> },
  req: Request,
  res: Response,
  logger: Logger,
): Promise<void> {
  const tenant = await findTenantName(trx, tenantId);
  if (!tenant) throw errors.notFound('Tenant not found');
  const { resource, format, columns } = request;
  const batches = rowBatches(
    trx,
    resource.rowsQuery(trx, tenantId, request.filters, columns, 'values'),
    EXPORT_BATCH_SIZE,
  );
  try {
    const first = await batches.next();
    const generatedAt = startDownload(res, request);
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
      clientWentAway(logger, req, tenantId, request);
    }
  } finally {
    await batches.return();
  }
}

/** The response's status and headers, sent with the first byte; the file's time. */
function startDownload(res: Response, { resource, format }: ExportRequest): Date {
  const generatedAt = new Date();
  const filename = `${resource.name}-${generatedAt.toISOString().slice(0, 10)}.${format.extension}`;
  res.status(200).set({
    'content-type': format.contentType,
    'content-disposition': `attachment; filename="${filename}"`,
    'cache-control': 'no-store',
  });
  return generatedAt;
}

function clientWentAway(logger: Logger, req: Request, tenantId: string, request: ExportRequest) {
  requestLogger(logger, req).info(
    { tenantId, resource: request.resource.name, format: request.format.name },
    'export stopped: the client went away',
  );
}

/**
 * The CSV: Postgres's COPY of the query, in the tenant's transaction, its bytes turned into the
 * file as they arrive (CsvFromCopy) and piped to the response with backpressure: a client that
 * reads slowly slows the COPY (pg-copy-streams pauses the connection) instead of filling memory.
 * As streamExport, what fails on the request's account (the tenant, the query) fails before the
 * first header; after it, a failure destroys the response.
 */
async function streamCsv(
  client: PoolClient,
  db: Kysely<Database>,
  tenantId: string,
  request: ExportRequest,
  res: Response,
): Promise<void> {
  const tenant = await findTenantNameOnClient(client, db, tenantId);
  if (!tenant) throw errors.notFound('Tenant not found');
  // One statement for the whole download: the pool's statement timeout would cut it off.
  await allowLongStatements(client);
  const { resource, columns } = request;
  const copy = copyRows(
    client,
    resource.rowsQuery(db, tenantId, request.filters, columns, 'csv').compile(),
    COPY_BUFFER_BYTES,
  );
  // The iterator below sees the COPY's failures. This listener is for the one after it: a
  // download cut off closes the connection, and pg then fails the COPY it still had running.
  copy.on('error', () => undefined);
  const chunks = copy[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const first = await chunks.next();
  startDownload(res, request);
  const csv = new CsvFromCopy(columns);
  async function* file() {
    try {
      yield csv.head();
      for (let next = first; !next.done; next = await chunks.next()) {
        const bytes = csv.push(next.value);
        if (bytes) yield bytes;
      }
      yield csv.end();
    } finally {
      await chunks.return?.();
    }
  }
  try {
    // The buffer lets the next piece be made while the last is still going out.
    await pipeline(file(), new PassThrough({ highWaterMark: COPY_BUFFER_BYTES }), res);
  } catch (err) {
    const clientGone = isClientGone(err, res);
    res.destroy();
    throw clientGone ? new ClientGoneError() : err;
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
      const { format } = request;
      if (format.feed === 'rows') {
        await withTenant(options.db, tenantId, (trx) =>
          streamExport(trx, tenantId, { ...request, format }, req, res, options.logger),
        );
      } else {
        // A COPY cut off half way leaves its connection mid-protocol: withTenantClient closes
        // it rather than committing, which is why the client's leaving is thrown through it.
        await withTenantClient(options.pool, tenantId, (client) =>
          streamCsv(client, options.db, tenantId, request, res),
        ).catch((err: unknown) => {
          if (!(err instanceof ClientGoneError)) throw err;
          clientWentAway(options.logger, req, tenantId, request);
        });
      }
    } finally {
      running -= 1;
    }
  });

  return router;
}
