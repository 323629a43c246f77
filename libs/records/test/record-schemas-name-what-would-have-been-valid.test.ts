import {
  contactInputSchema,
  conversationInputSchema,
  messageInputSchema,
  productInputSchema,
  statusAdvances,
} from '../src';
import { parseRecords } from '../src/fields';

/**
 * Unit tier (no database): the schemas of the record types MCP and migrate send, whose first
 * issue is a refused record's `error`: each names the field and what it takes.
 */
function errorOf(schema: Parameters<typeof parseRecords>[0], row: unknown): string | undefined {
  return parseRecords(schema, [row]).errors[0]?.error;
}

describe('contactInputSchema', () => {
  it('takes email and/or phone, trims, lower-cases the email, empty clears', () => {
    expect(
      contactInputSchema.parse({
        external_id: ' c-1 ',
        email: ' Ann@Example.COM ',
        first_name: 'Ann',
        company: '',
        custom_fields: { tier: 'gold' },
      }),
    ).toEqual({
      external_id: 'c-1',
      email: 'ann@example.com',
      first_name: 'Ann',
      company: null,
      custom_fields: { tier: 'gold' },
    });
    expect(contactInputSchema.parse({ phone: '+15550100' })).toEqual({ phone: '+15550100' });
  });

  it.each([
    [
      { first_name: 'Ann' },
      'email or phone is required (a contact is matched by external_id, else by email)',
    ],
    [{ email: 'ann' }, 'email must be an email address such as ann@example.com'],
    [{ email: 'a@b.co', title: 7 }, 'title must be a string of at most 200 characters'],
    [{ email: 'a@b.co', custom_fields: [] }, 'custom_fields must be an object of key/values'],
    [
      { email: 'a@b.co', custom_fields: { note: 'a\u0000b' } },
      'custom_fields.note: must not contain U+0000 (NUL)',
    ],
    [{ email: 'a@b.co', first_name: 'a\u0000b' }, 'first_name must not contain U+0000 (NUL)'],
    [
      { email: 'a@b.co', fullname: 'Ann Lee' },
      'Unknown field fullname: a contact has external_id, email, phone, first_name, last_name, company, title, custom_fields',
    ],
    [
      'Ann',
      'A contact must be an object with external_id, email, phone, first_name, last_name, company, title, custom_fields',
    ],
  ])('%j -> %s', (row, error) => {
    expect(errorOf(contactInputSchema, row)).toBe(error);
  });
});

describe('productInputSchema', () => {
  it('keeps a decimal string exactly, a number as its shortest decimal, upper-cases the currency', () => {
    expect(
      productInputSchema.parse({ sku: ' SKU-1 ', price: '19.90', currency: 'eur', active: false }),
    ).toEqual({ sku: 'SKU-1', price: '19.90', currency: 'EUR', active: false });
    expect(productInputSchema.parse({ sku: 'S', price: 19.9 })).toMatchObject({ price: '19.9' });
    expect(productInputSchema.parse({ sku: 'S', price: 0 })).toMatchObject({ price: '0' });
    expect(productInputSchema.parse({ sku: 'S', price: null })).toMatchObject({ price: null });
  });

  const PRICE =
    'price must be a decimal >= 0 such as 19.99 (at most 15 digits before the point and 6 after)';
  it.each([
    [{ name: 'No sku' }, 'sku is required'],
    [{ sku: '  ' }, 'sku is required'],
    [{ sku: 'x'.repeat(101) }, 'sku must be a string of 1 to 100 characters'],
    [{ sku: 'S', price: -1 }, PRICE],
    [{ sku: 'S', price: '1.2345678' }, PRICE],
    [{ sku: 'S', price: 1e21 }, PRICE],
    [{ sku: 'S', price: 'ten' }, PRICE],
    [{ sku: 'S', currency: 'EURO' }, 'currency must be an ISO 4217 code such as USD, EUR or GBP'],
    [{ sku: 'S', currency: 'XYZ' }, 'currency must be an ISO 4217 code such as USD, EUR or GBP'],
    [{ sku: 'S', active: 'yes' }, 'active must be true or false'],
  ])('%j -> %s', (row, error) => {
    expect(errorOf(productInputSchema, row)).toBe(error);
  });
});

describe('conversationInputSchema', () => {
  it('takes an external id, and the rest when given', () => {
    expect(
      conversationInputSchema.parse({
        external_id: 'conv-1',
        channel: 'web_chat',
        contact_email: 'Ann@Example.com',
        status: 'open',
        started_at: '2026-11-01T09:30:00+01:00',
      }),
    ).toEqual({
      external_id: 'conv-1',
      channel: 'web_chat',
      contact_email: 'ann@example.com',
      status: 'open',
      started_at: new Date('2026-11-01T08:30:00Z'),
    });
  });

  it.each([
    [{ subject: 'Hi' }, 'external_id is required'],
    [{ external_id: 'c', status: 'archived' }, 'status must be one of: open, pending, closed'],
    [
      { external_id: 'c', channel: 'Web Chat' },
      'channel must be a lower-case name of 1 to 50 letters, digits or _ such as chat, messaging or sms',
    ],
    [
      { external_id: 'c', started_at: 'yesterday' },
      'started_at must be a date-time (ISO 8601 with Z or an offset, e.g. 2024-05-01T12:00:00Z)',
    ],
    [
      { external_id: 'c', started_at: '0000-01-01T00:00:00Z' },
      'started_at must be between 0001-01-01 and 9999-12-31',
    ],
  ])('%j -> %s', (row, error) => {
    expect(errorOf(conversationInputSchema, row)).toBe(error);
  });
});

describe('messageInputSchema', () => {
  it('defaults the direction to inbound', () => {
    expect(
      messageInputSchema.parse({ conversation_external_id: 'c', external_id: 'm', body: 'Hi' }),
    ).toEqual({
      conversation_external_id: 'c',
      external_id: 'm',
      direction: 'inbound',
      body: 'Hi',
    });
  });

  it.each([
    [{ external_id: 'm' }, 'conversation_external_id is required'],
    [{ conversation_external_id: 'c' }, 'external_id is required'],
    [
      { conversation_external_id: 'c', external_id: 'm', direction: 'sideways' },
      'direction must be one of: inbound, outbound',
    ],
    [
      { conversation_external_id: 'c', external_id: 'm', sender: 5 },
      'sender must be a string of at most 200 characters',
    ],
  ])('%j -> %s', (row, error) => {
    expect(errorOf(messageInputSchema, row)).toBe(error);
  });
});

describe('parseRecords', () => {
  it('keeps each valid record with its index and reports the others by theirs', () => {
    const { valid, errors } = parseRecords(productInputSchema, [{ sku: 'A' }, {}, { sku: 'B' }]);
    expect(valid).toEqual([
      { index: 0, value: { sku: 'A' } },
      { index: 2, value: { sku: 'B' } },
    ]);
    expect(errors).toEqual([{ index: 1, error: 'sku is required' }]);
  });
});

describe('statusAdvances (a message status never steps back)', () => {
  it.each([
    [null, 'sent', true],
    ['sent', 'delivered', true],
    ['read', 'delivered', false],
    ['delivered', 'delivered', false],
    ['read', 'failed', true],
  ])('%s -> %s: %s', (current, next, advances) => {
    expect(statusAdvances(current, next)).toBe(advances);
  });
});
