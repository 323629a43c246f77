import type { ContactsTable, Trx } from '@crm/shared/db';
import { writeEvent } from '@crm/shared/events';
import {
  paginateByKeyset,
  type CursorBinding,
  type CursorPage,
  type CursorPageQuery,
  type SortKey,
} from '@crm/shared/pagination';
import { sql, type Selectable } from 'kysely';
import { listRows, matchesSearch, searchCandidates } from '../search-rows.repository';
import { contactEvent } from './contacts.events';
import type {
  ContactChange,
  ContactFilters,
  ContactInput,
  ProviderContact,
} from './contacts.schema';

/** Every column a contact is read with. */
export const CONTACT_COLUMNS = [
  'id',
  'external_id',
  'email',
  'phone',
  'first_name',
  'last_name',
  'company',
  'title',
  'custom_fields',
  'created_at',
  'updated_at',
] as const;
export type ContactColumn = (typeof CONTACT_COLUMNS)[number];
export type Contact = Pick<Selectable<ContactsTable>, (typeof CONTACT_COLUMNS)[number]>;

/** A contact stored by an upsert, and whether this call inserted it. */
export interface StoredContact {
  id: string;
  created: boolean;
}

export async function findContact(
  trx: Trx,
  tenantId: string,
  id: string,
): Promise<Contact | undefined> {
  return trx
    .selectFrom('crm_contacts')
    .select(CONTACT_COLUMNS)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The contact with this email (contacts store emails lower-cased: pass it lower-cased). */
export async function findContactByEmail(
  trx: Trx,
  tenantId: string,
  email: string,
): Promise<Contact | undefined> {
  return trx
    .selectFrom('crm_contacts')
    .select(CONTACT_COLUMNS)
    .where('tenant_id', '=', tenantId)
    .where('email', '=', email)
    .executeTakeFirst();
}

export async function findContactByExternalId(
  trx: Trx,
  tenantId: string,
  externalId: string,
): Promise<Contact | undefined> {
  return trx
    .selectFrom('crm_contacts')
    .select(CONTACT_COLUMNS)
    .where('tenant_id', '=', tenantId)
    .where('external_id', '=', externalId)
    .executeTakeFirst();
}

/** The id of the contact with this (lower-cased) email: how a payment finds its payer. */
export async function findContactIdByEmail(
  trx: Trx,
  tenantId: string,
  email: string,
): Promise<string | undefined> {
  const row = await trx
    .selectFrom('crm_contacts')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('email', '=', email)
    .executeTakeFirst();
  return row?.id;
}

/** The id of the one contact with this phone; undefined when none or several have it. */
export async function findContactIdByPhone(
  trx: Trx,
  tenantId: string,
  phone: string,
): Promise<string | undefined> {
  const rows = await trx
    .selectFrom('crm_contacts')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('phone', '=', phone)
    .limit(2)
    .execute();
  return rows.length === 1 ? rows[0].id : undefined;
}

/**
 * What the contact list may be sorted by, each the column its index holds (migration 0019:
 * `(tenant_id, <key>, id)`). email and last_name may be NULL (a contact may have only a phone,
 * or no last name): their NULLs come last ascending and first descending.
 */
export const CONTACT_SORT_KEYS = {
  created_at: { expression: sql`crm_contacts.created_at`, type: 'timestamptz' },
  email: { expression: sql`crm_contacts.email`, type: 'text', nullable: true },
  last_name: { expression: sql`crm_contacts.last_name`, type: 'text', nullable: true },
} satisfies Record<string, SortKey>;
export type ContactSortKey = keyof typeof CONTACT_SORT_KEYS;

/**
 * The list's query before paging: the tenant's contacts, from the search view when `searching`
 * (`q` itself is paginateByKeyset's `search`: names, full name, email, phone and company).
 */
function contactRows(trx: Trx, tenantId: string, searching: boolean) {
  return listRows(trx, 'crm_contacts', searching)
    .select(CONTACT_COLUMNS)
    .where('crm_contacts.tenant_id', '=', tenantId);
}

/**
 * A page of the tenant's contacts, filtered by `q`, by page or by cursor (the shared keyset
 * helper, as the lead list; `binding` signs and checks the cursors).
 */
export async function listContacts(
  trx: Trx,
  tenantId: string,
  page: CursorPageQuery<ContactSortKey>,
  filters: ContactFilters,
  binding: Omit<CursorBinding, 'filters' | 'scope'>,
): Promise<CursorPage<Contact>> {
  return paginateByKeyset(trx, contactRows(trx, tenantId, Boolean(filters.q)), page, {
    search: filters.q ? matchesSearch('crm_contacts', filters.q) : undefined,
    searchIndex: filters.q ? searchCandidates('crm_contacts', filters.q) : undefined,
    sortKeys: CONTACT_SORT_KEYS,
    tiebreak: 'crm_contacts.id',
    // The list's name in the scope: a lead list cursor (signed over the bare tenant id) is not
    // one of this list, nor this list's one of the lead list.
    binding: { ...binding, scope: `crm_contacts ${tenantId}`, filters: { ...filters } },
    filtered: filters.q !== undefined && filters.q !== '',
  });
}

/** A new contact from the REST route; undefined when its email or external id is taken. */
export async function insertContact(
  trx: Trx,
  tenantId: string,
  input: ContactInput,
): Promise<Contact | undefined> {
  return trx
    .insertInto('crm_contacts')
    .values({
      tenant_id: tenantId,
      ...givenColumns(input),
      custom_fields: JSON.stringify(input.custom_fields ?? {}),
    })
    .onConflict((oc) => oc.doNothing())
    .returning(CONTACT_COLUMNS)
    .executeTakeFirst();
}

/** The contact, locked until the transaction ends (a change reads it, then writes it). */
export async function lockContact(
  trx: Trx,
  tenantId: string,
  id: string,
): Promise<Contact | undefined> {
  return trx
    .selectFrom('crm_contacts')
    .select(CONTACT_COLUMNS)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

/**
 * Applies a change: a field given replaces the stored one (null clears it), custom_fields merge
 * key by key, as an ingested contact's do.
 */
export async function updateContact(
  trx: Trx,
  tenantId: string,
  id: string,
  change: ContactChange,
): Promise<Contact | undefined> {
  const customFields = JSON.stringify(change.custom_fields ?? {});
  return trx
    .updateTable('crm_contacts')
    .set({
      ...givenColumns(change),
      custom_fields: sql`custom_fields || ${customFields}::jsonb`,
      updated_at: sql`now()`,
    })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returning(CONTACT_COLUMNS)
    .executeTakeFirst();
}

/** Deletes the contact; false when the tenant has none with this id. */
export async function deleteContact(trx: Trx, tenantId: string, id: string): Promise<boolean> {
  const deleted = await trx
    .deleteFrom('crm_contacts')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returning('id')
    .executeTakeFirst();
  return deleted !== undefined;
}

/**
 * A provider's contact (storefront customers and buyers), upserted by (tenant, lower-cased
 * email). An existing contact only gains the fields it lacks: what the CRM's users typed is
 * never overwritten by a provider's copy. A new contact gets a `contact.created` event with
 * `source`; an existing one none.
 */
export async function upsertContactFillingBlanks(
  trx: Trx,
  tenantId: string,
  contact: ProviderContact,
  source: string,
): Promise<StoredContact> {
  // lower() again in SQL: the table's CHECK (email = lower(email)) is Postgres's idea of
  // lower case, which for a few non-ASCII letters is not JavaScript's.
  const { rows } = await sql<StoredContact>`
    INSERT INTO crm_contacts AS c (tenant_id, email, first_name, last_name, phone)
    VALUES (${tenantId}, lower(${contact.email}), ${contact.firstName}, ${contact.lastName}, ${contact.phone})
    ON CONFLICT (tenant_id, email) WHERE email IS NOT NULL DO UPDATE SET
      first_name = COALESCE(NULLIF(c.first_name, ''), EXCLUDED.first_name, c.first_name),
      last_name = COALESCE(NULLIF(c.last_name, ''), EXCLUDED.last_name, c.last_name),
      phone = COALESCE(NULLIF(c.phone, ''), EXCLUDED.phone, c.phone),
      updated_at = CASE
        WHEN (NULLIF(c.first_name, '') IS NULL AND EXCLUDED.first_name IS NOT NULL)
          OR (NULLIF(c.last_name, '') IS NULL AND EXCLUDED.last_name IS NOT NULL)
          OR (NULLIF(c.phone, '') IS NULL AND EXCLUDED.phone IS NOT NULL)
        THEN now() ELSE c.updated_at END
    RETURNING id, (xmax = 0) AS created`.execute(trx);
  const stored = rows[0];
  if (stored.created) {
    await writeEvent(trx, contactEvent(tenantId, stored, { email: contact.email, source }));
  }
  return stored;
}

/** Why a contact could not be stored, naming what would have been valid. */
export interface ContactRefusal {
  error: string;
}

/** The columns an ingested contact sets; a field it leaves out keeps the stored value. */
const SET_COLUMNS = [
  'external_id',
  'email',
  'phone',
  'first_name',
  'last_name',
  'company',
  'title',
] as const;

function givenColumns(input: ContactInput | ContactChange) {
  const values: Partial<Record<(typeof SET_COLUMNS)[number], string | null>> = {};
  for (const column of SET_COLUMNS) {
    if (input[column] !== undefined) values[column] = input[column];
  }
  return values;
}

/** The stored contact an ingested one is, by external id, else by email; or why it is none. */
async function matchContact(
  trx: Trx,
  tenantId: string,
  input: ContactInput,
): Promise<Contact | ContactRefusal | undefined> {
  const byExternalId = input.external_id
    ? await findContactByExternalId(trx, tenantId, input.external_id)
    : undefined;
  const byEmail = input.email ? await findContactByEmail(trx, tenantId, input.email) : undefined;
  if (byExternalId && byEmail && byExternalId.id !== byEmail.id) {
    return {
      error: `email ${input.email} is already the email of another contact: send that contact's external_id, or another email`,
    };
  }
  const match = byExternalId ?? byEmail;
  if (match && input.external_id && match.external_id && match.external_id !== input.external_id) {
    return {
      error: `email ${input.email} belongs to the contact with external_id ${match.external_id}: send that external_id, or another email`,
    };
  }
  return match;
}

/**
 * An ingested contact (MCP's ingest_contacts, migrate), upserted by external id, else by
 * email: a field given replaces the stored one, a field left out keeps it, custom_fields are
 * merged key by key; a contact found by email gains the external id. Emits `contact.created`
 * or `contact.updated` with `source`. A contact whose email belongs to another one is refused,
 * not stored. A phone alone matches nothing: such a contact is always a new one.
 */
export async function upsertContact(
  trx: Trx,
  tenantId: string,
  input: ContactInput,
  source: string,
): Promise<(StoredContact & { contact: Contact }) | ContactRefusal> {
  // Twice at most: a concurrent writer may insert the same key between our look and our
  // insert (which then inserts nothing), and the second look finds its row.
  for (let attempt = 0; ; attempt++) {
    const match = await matchContact(trx, tenantId, input);
    if (match && 'error' in match) return match;
    const customFields = JSON.stringify(input.custom_fields ?? {});
    let contact: Contact | undefined;
    if (match) {
      contact = await trx
        .updateTable('crm_contacts')
        .set({
          ...givenColumns(input),
          custom_fields: sql`custom_fields || ${customFields}::jsonb`,
          updated_at: sql`now()`,
        })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', match.id)
        .returning(CONTACT_COLUMNS)
        .executeTakeFirst();
    } else {
      contact = await trx
        .insertInto('crm_contacts')
        .values({ tenant_id: tenantId, ...givenColumns(input), custom_fields: customFields })
        // Either unique key (email, external_id) taken meanwhile: look again.
        .onConflict((oc) => oc.doNothing())
        .returning(CONTACT_COLUMNS)
        .executeTakeFirst();
    }
    if (contact) {
      const stored = { id: contact.id, created: !match };
      await writeEvent(
        trx,
        contactEvent(tenantId, stored, {
          email: contact.email,
          source,
          phone: contact.phone,
          external_id: contact.external_id,
        }),
      );
      return { ...stored, contact };
    }
    if (attempt >= 1) {
      throw new Error('The contact changed twice under this upsert; retry the transaction');
    }
  }
}
