import {
  contactChangeSchema,
  contactDeletedEvent,
  contactEvent,
  contactInputSchema,
  deleteContact,
  findContact,
  findContactByEmail,
  findContactByExternalId,
  insertContact,
  listContacts,
  lockContact,
  updateContact,
  type Contact,
} from '@crm/records';
import { withTenant, type Database, type Trx } from '@crm/shared/db';
import { writeEvent } from '@crm/shared/events';
import { errors, jsonBody, sendSuccess, validate } from '@crm/shared/http';
import { identityOf } from '@crm/shared/identity';
import { parseCursorPageQuery } from '@crm/shared/pagination';
import { Router } from 'express';
import type { Kysely } from 'kysely';
import { CONTACT_SORTABLE, contactFiltersSchema, contactIdSchema } from './contact-routes.schema';

/** The events' source: a contact written by a signed-in user through this API. */
const SOURCE = 'api';

const eventData = (contact: Contact) => ({
  email: contact.email,
  source: SOURCE,
  phone: contact.phone,
  external_id: contact.external_id,
});

/**
 * The 409 of a contact whose email or external id another contact of the tenant has (the
 * table's two unique keys), naming which; `except` is the contact being changed.
 */
async function refuseTakenKeys(
  trx: Trx,
  tenantId: string,
  keys: { email?: string | null; external_id?: string | null },
  except?: string,
): Promise<void> {
  const byEmail = keys.email ? await findContactByEmail(trx, tenantId, keys.email) : undefined;
  if (byEmail && byEmail.id !== except) {
    throw errors.alreadyExists(`A contact with email ${keys.email} already exists`);
  }
  const byExternalId = keys.external_id
    ? await findContactByExternalId(trx, tenantId, keys.external_id)
    : undefined;
  if (byExternalId && byExternalId.id !== except) {
    throw errors.alreadyExists(`A contact with external_id ${keys.external_id} already exists`);
  }
}

/**
 * /api/crm/contacts: the list (paginated by page or cursor, filtered by q), create, read,
 * change, delete. `cursorSecret` signs the list's cursors (the internal token secret).
 */
export function contactRoutes(
  db: Kysely<Database>,
  bodyLimitBytes: number,
  cursorSecret: string,
): Router {
  const router = Router();
  router.use('/api/crm/contacts', jsonBody(bodyLimitBytes));

  router.get('/api/crm/contacts', async (req, res) => {
    const { tenantId } = identityOf(req);
    const page = parseCursorPageQuery(req.query, {
      sortable: CONTACT_SORTABLE,
      defaultSortBy: 'created_at',
    });
    const filters = validate(contactFiltersSchema, { q: req.query.q }, 'filters');
    const result = await withTenant(db, tenantId, (trx) =>
      listContacts(trx, tenantId, page, filters, { secret: cursorSecret }),
    );
    res.json(result);
  });

  router.post('/api/crm/contacts', async (req, res) => {
    const { tenantId } = identityOf(req);
    const input = validate(contactInputSchema, req.body, 'contact');
    const contact = await withTenant(db, tenantId, async (trx) => {
      const created = await insertContact(trx, tenantId, input);
      if (!created) {
        await refuseTakenKeys(trx, tenantId, input);
        // Taken a moment ago and freed again: the client may simply retry.
        throw errors.conflict('A contact with this email or external_id was being written');
      }
      await writeEvent(
        trx,
        contactEvent(tenantId, { id: created.id, created: true }, eventData(created)),
      );
      return created;
    });
    sendSuccess(res, { contact }, { status: 201, message: 'Contact created' });
  });

  router.get('/api/crm/contacts/:id', async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = req.params.id;
    if (!contactIdSchema.safeParse(id).success) throw errors.notFound('Contact not found');
    const contact = await withTenant(db, tenantId, (trx) => findContact(trx, tenantId, id));
    if (!contact) throw errors.notFound('Contact not found');
    sendSuccess(res, { contact });
  });

  router.patch('/api/crm/contacts/:id', async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = req.params.id;
    if (!contactIdSchema.safeParse(id).success) throw errors.notFound('Contact not found');
    const change = validate(contactChangeSchema, req.body, 'contact change');
    const contact = await withTenant(db, tenantId, async (trx) => {
      const before = await lockContact(trx, tenantId, id);
      if (!before) throw errors.notFound('Contact not found');
      const email = change.email !== undefined ? change.email : before.email;
      const phone = change.phone !== undefined ? change.phone : before.phone;
      if (!email && !phone) {
        throw errors.validation('A contact keeps an email or a phone: both cannot be cleared');
      }
      await refuseTakenKeys(trx, tenantId, change, id);
      const updated = await updateContact(trx, tenantId, id, change);
      if (!updated) throw errors.notFound('Contact not found');
      await writeEvent(
        trx,
        contactEvent(tenantId, { id: updated.id, created: false }, eventData(updated)),
      );
      return updated;
    });
    sendSuccess(res, { contact }, { message: 'Contact updated' });
  });

  router.delete('/api/crm/contacts/:id', async (req, res) => {
    const { tenantId } = identityOf(req);
    const id = req.params.id;
    if (!contactIdSchema.safeParse(id).success) throw errors.notFound('Contact not found');
    await withTenant(db, tenantId, async (trx) => {
      if (!(await deleteContact(trx, tenantId, id))) throw errors.notFound('Contact not found');
      await writeEvent(trx, contactDeletedEvent(tenantId, id));
    });
    sendSuccess(res, { id }, { message: 'Contact deleted' });
  });

  return router;
}
