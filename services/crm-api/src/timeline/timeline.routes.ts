import { withTenant, type Database } from '@crm/shared/db';
import { errors, validate } from '@crm/shared/http';
import { identityOf } from '@crm/shared/identity';
import { Router, type Request, type Response } from 'express';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { readTimeline } from './timeline.repository';
import {
  decodeCursor,
  encodeCursor,
  timelineQuerySchema,
  type TimelineRecordKind,
} from './timeline.schema';

const recordIdSchema = z.uuid();
const NOT_FOUND = { lead: 'Lead not found', contact: 'Contact not found' } as const;

/**
 * GET /api/crm/leads/:id/timeline and GET /api/crm/contacts/:id/timeline: everything the
 * platform holds about the person, newest first, one cursor-paged list `{ items, nextCursor }`
 * (docs/timeline.md).
 */
export function timelineRoutes(db: Kysely<Database>): Router {
  const router = Router();

  const answer = (kind: TimelineRecordKind) => async (req: Request, res: Response) => {
    const { tenantId } = identityOf(req);
    const recordId = String(req.params.id);
    if (!recordIdSchema.safeParse(recordId).success) throw errors.notFound(NOT_FOUND[kind]);
    const query = validate(
      timelineQuerySchema,
      { limit: req.query.limit, cursor: req.query.cursor },
      'timeline parameters',
    );
    const after = query.cursor ? decodeCursor(kind, recordId, query.cursor) : undefined;
    const rows = await withTenant(db, tenantId, (trx) =>
      readTimeline(trx, tenantId, kind, recordId, query.limit, after),
    );
    if (!rows) throw errors.notFound(NOT_FOUND[kind]);
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    res.json({
      items: page.map(({ position: _position, ...item }) => item),
      nextCursor:
        rows.length > query.limit && last
          ? encodeCursor(kind, recordId, { at: last.position, type: last.type, id: last.id })
          : null,
    });
  };

  router.get('/api/crm/leads/:id/timeline', answer('lead'));
  router.get('/api/crm/contacts/:id/timeline', answer('contact'));
  return router;
}
