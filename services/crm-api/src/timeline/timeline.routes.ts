import { withTenant, type Database } from '@crm/shared/db';
import { errors, validate } from '@crm/shared/http';
import { identityOf } from '@crm/shared/identity';
import { timelinePage, timelineQuerySchema, type TimelineRecordKind } from '@crm/records';
import { Router, type Request, type Response } from 'express';
import type { Kysely } from 'kysely';
import { z } from 'zod';

const recordIdSchema = z.uuid();
const NOT_FOUND = { lead: 'Lead not found', contact: 'Contact not found' } as const;

/**
 * GET /api/crm/leads/:id/timeline and GET /api/crm/contacts/:id/timeline: everything the
 * platform holds about the person, newest first, one cursor-paged list `{ items, nextCursor }`
 * (docs/timeline.md). The reading lives in @crm/records, which the MCP get_record tool shares.
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
    const page = await withTenant(db, tenantId, (trx) =>
      timelinePage(trx, tenantId, kind, recordId, query.limit, query.cursor),
    );
    if (!page) throw errors.notFound(NOT_FOUND[kind]);
    res.json(page);
  };

  router.get('/api/crm/leads/:id/timeline', answer('lead'));
  router.get('/api/crm/contacts/:id/timeline', answer('contact'));
  return router;
}
