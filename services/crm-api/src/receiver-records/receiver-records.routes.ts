import { withTenant, type Database } from '@crm/shared/db';
import { errors, sendSuccess, validate } from '@crm/shared/http';
import { identityOf } from '@crm/shared/identity';
import { parseCursorPageQuery } from '@crm/shared/pagination';
import { Router, type Request } from 'express';
import type { Kysely } from 'kysely';
import { findReceiverRecord, listReceiverRecords } from './receiver-records.repository';
import {
  RECEIVER_RESOURCES,
  RECEIVER_SORTABLE,
  receiverRecordIdSchema,
  timeRangeSchema,
  type ReceiverResource,
} from './receiver-records.schema';

/** The filters of `resource` picked from the query string (a stray parameter is not a filter). */
function filtersOf(req: Request, resource: ReceiverResource) {
  const picked = Object.fromEntries(
    Object.keys(resource.filters.shape).map((key) => [key, req.query[key]]),
  );
  return validate(resource.filters, picked, 'filters') as Record<string, string | undefined>;
}

/**
 * GET lists (paginated, newest first, filtered by record and time) and details of what the
 * receivers store: orders, payments, calls, email opens, clicks and replies, network events.
 * The receivers write them (webhook-ingest); these routes only read, so viewers may call them.
 * The lists page by page or by cursor; `cursorSecret` signs the cursors.
 */
export function receiverRecordRoutes(db: Kysely<Database>, cursorSecret: string): Router {
  const router = Router();
  for (const resource of RECEIVER_RESOURCES) {
    router.get(resource.path, async (req, res) => {
      const { tenantId } = identityOf(req);
      const page = parseCursorPageQuery(req.query, {
        sortable: RECEIVER_SORTABLE,
        defaultSortBy: 'created_at',
      });
      const filters = filtersOf(req, resource);
      const range = validate(
        timeRangeSchema,
        { from: req.query.from, to: req.query.to },
        'time range',
      );
      const result = await withTenant(db, tenantId, (trx) =>
        listReceiverRecords(trx, tenantId, resource, page, filters, range, {
          secret: cursorSecret,
        }),
      );
      res.json(result);
    });

    router.get(`${resource.path}/:id`, async (req, res) => {
      const { tenantId } = identityOf(req);
      const id = req.params.id;
      const notFound = `${resource.noun} not found`;
      if (!receiverRecordIdSchema.safeParse(id).success) throw errors.notFound(notFound);
      const row = await withTenant(db, tenantId, (trx) =>
        findReceiverRecord(trx, tenantId, resource, id),
      );
      if (!row) throw errors.notFound(notFound);
      sendSuccess(res, { [resource.key]: row });
    });
  }
  return router;
}
