import { findConversation, listConversations, listMessages } from '@crm/records';
import { withTenant, type Database } from '@crm/shared/db';
import { errors, sendSuccess, validate } from '@crm/shared/http';
import { identityOf } from '@crm/shared/identity';
import { parseCursorPageQuery } from '@crm/shared/pagination';
import { Router } from 'express';
import type { Kysely } from 'kysely';
import {
  CONVERSATION_SORTABLE,
  MESSAGE_SORTABLE,
  conversationFiltersSchema,
  conversationIdSchema,
} from './conversation-routes.schema';

/**
 * GET /api/crm/conversations (paginated, by channel, status, contact), one conversation, and
 * its messages. The messaging receiver and MCP's ingest write them (@crm/records); these routes
 * only read. Both lists page by page or by cursor; `cursorSecret` signs the cursors (the
 * internal token secret).
 */
export function conversationRoutes(db: Kysely<Database>, cursorSecret: string): Router {
  const router = Router();

  router.get('/api/crm/conversations', async (req, res) => {
    const { tenantId } = identityOf(req);
    const page = parseCursorPageQuery(req.query, {
      sortable: CONVERSATION_SORTABLE,
      defaultSortBy: 'created_at',
    });
    const filters = validate(
      conversationFiltersSchema,
      { channel: req.query.channel, status: req.query.status, contact_id: req.query.contact_id },
      'filters',
    );
    const result = await withTenant(db, tenantId, (trx) =>
      listConversations(trx, tenantId, page, filters, { secret: cursorSecret }),
    );
    res.json(result);
  });

  router.get('/api/crm/conversations/:id', async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = req.params.id;
    if (!conversationIdSchema.safeParse(id).success)
      throw errors.notFound('Conversation not found');
    const conversation = await withTenant(db, tenantId, (trx) =>
      findConversation(trx, tenantId, id),
    );
    if (!conversation) throw errors.notFound('Conversation not found');
    sendSuccess(res, { conversation });
  });

  router.get('/api/crm/conversations/:id/messages', async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = req.params.id;
    if (!conversationIdSchema.safeParse(id).success)
      throw errors.notFound('Conversation not found');
    const page = parseCursorPageQuery(req.query, {
      sortable: MESSAGE_SORTABLE,
      defaultSortBy: 'sent_at',
    });
    const result = await withTenant(db, tenantId, async (trx) => {
      if (!(await findConversation(trx, tenantId, id))) {
        throw errors.notFound('Conversation not found');
      }
      return listMessages(trx, tenantId, id, page, { secret: cursorSecret });
    });
    // Page 1 of the default (newest first) is the latest messages; a page reads like a chat.
    // nextCursor was taken from the page's last row in list order (its oldest), so it leads on
    // to the older messages.
    if (page.sortOrder === 'desc') result.items.reverse();
    res.json(result);
  });

  return router;
}
