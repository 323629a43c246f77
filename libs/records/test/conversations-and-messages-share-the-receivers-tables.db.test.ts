import {
  findConversation,
  ingestContacts,
  ingestConversations,
  ingestMessages,
  listConversations,
  listMessages,
  upsertChannelConversation,
} from '../src';
import { testDb } from '@crm/shared/testing';
import { recordsDb } from './support/records-db';

/**
 * Database tier: ingested conversations and messages, in the tables the messaging receiver
 * writes, against real Postgres inside withTenant.
 */
const database = testDb();
const records = recordsDb(database);
afterAll(() => database.close());

const PAGE = { page: 1, pageSize: 20, sortBy: 'created_at', sortOrder: 'asc' } as const;
const MESSAGES_PAGE = { ...PAGE, sortBy: 'sent_at' } as const;
const CURSORS = { secret: 'conversations test cursor secret' };

describe('conversations', () => {
  it('upsert by (channel, external id), linked to the contact their email names; conversation.created once', async () => {
    const tenantId = await records.tenant();
    const {
      data: [contact],
    } = await records.asTenant(tenantId, (trx) =>
      ingestContacts(trx, tenantId, [{ email: 'ann@example.com' }], { source: 'mcp_ingest' }),
    );
    const send = (row: unknown) =>
      records.asTenant(tenantId, (trx) => ingestConversations(trx, tenantId, [row]));
    const first = await send({
      external_id: 'conv-1',
      contact_email: 'Ann@Example.com',
      subject: 'Blue mug',
      status: 'open',
      started_at: '2026-11-01T09:00:00Z',
    });
    expect(first.data).toEqual([
      {
        id: expect.any(String),
        external_id: 'conv-1',
        channel: 'chat',
        contact_id: contact.id,
        created: true,
      },
    ]);
    const again = await send({ external_id: 'conv-1', status: 'closed' });
    expect(again.data).toEqual([{ ...first.data[0], created: false }]);

    const id = first.data[0].id;
    expect(await records.rows('chat_conversations', tenantId)).toHaveLength(1);
    expect(await records.asTenant(tenantId, (trx) => findConversation(trx, tenantId, id))).toEqual(
      expect.objectContaining({
        channel: 'chat',
        external_id: 'conv-1',
        subject: 'Blue mug',
        status: 'closed',
        started_at: new Date('2026-11-01T09:00:00Z'),
        contact_id: contact.id,
        contact_email: 'ann@example.com',
      }),
    );
    const events = (await records.events(tenantId)).filter((e) => e.type.startsWith('conv'));
    expect(events).toEqual([
      {
        type: 'conversation.created',
        record: { module: 'chat_conversations', id },
        data: {
          channel: 'chat',
          external_id: 'conv-1',
          contact_id: contact.id,
          subject: 'Blue mug',
          status: 'open',
          started_at: '2026-11-01T09:00:00.000Z',
        },
      },
    ]);
  });

  it('one view: the messaging receiver’s conversation is the one an ingest on channel messaging updates', async () => {
    const tenantId = await records.tenant();
    const receiverId = await records.asTenant(tenantId, (trx) =>
      upsertChannelConversation(trx, {
        tenantId,
        channel: 'messaging',
        messagingAccountId: null,
        externalId: '15550100',
        contactName: 'Ann Lee',
        lastMessageAt: new Date('2026-11-01T10:00:00Z'),
      }),
    );
    const result = await records.asTenant(tenantId, (trx) =>
      ingestConversations(trx, tenantId, [
        { external_id: '15550100', channel: 'messaging', subject: 'Order 42' },
        { external_id: 'web-1' },
      ]),
    );
    expect(result.data.map((c) => [c.id === receiverId, c.created])).toEqual([
      [true, false],
      [false, true],
    ]);
    const page = await records.asTenant(tenantId, (trx) =>
      listConversations(trx, tenantId, PAGE, {}, CURSORS),
    );
    expect(page.items).toEqual([
      expect.objectContaining({
        id: receiverId,
        channel: 'messaging',
        contact_name: 'Ann Lee',
        subject: 'Order 42',
        status: null,
        last_message_at: new Date('2026-11-01T10:00:00Z'),
      }),
      expect.objectContaining({ channel: 'chat', external_id: 'web-1', subject: null }),
    ]);
  });
});

describe('messages', () => {
  it('stores each once in its conversation with message.received; a re-send stores nothing; an unknown conversation is refused', async () => {
    const tenantId = await records.tenant();
    const {
      data: [conversation],
    } = await records.asTenant(tenantId, (trx) =>
      ingestConversations(trx, tenantId, [{ external_id: 'conv-1' }]),
    );
    const message = {
      conversation_external_id: 'conv-1',
      external_id: 'm-1',
      body: 'Is the blue one in stock?',
      sender: 'ann@example.com',
      sent_at: '2026-11-01T09:05:00Z',
    };
    const send = (rows: unknown[]) =>
      records.asTenant(tenantId, (trx) => ingestMessages(trx, tenantId, rows));
    const first = await send([
      message,
      { conversation_external_id: 'nope', external_id: 'm-2', body: 'Lost' },
    ]);
    expect(first).toEqual({
      imported: 1,
      failed: 1,
      errors: [
        {
          index: 1,
          error:
            'conversation_external_id nope names no conversation: ingest the conversation first',
        },
      ],
      data: [
        {
          id: expect.any(String),
          external_id: 'm-1',
          conversation_id: conversation.id,
          created: true,
        },
      ],
    });
    const again = await send([message]);
    expect(again.data).toEqual([{ ...first.data[0], created: false }]);

    const rows = await records.rows('chat_messages', tenantId);
    expect(rows).toEqual([
      expect.objectContaining({
        conversation_id: conversation.id,
        external_id: 'm-1',
        direction: 'inbound',
        body: 'Is the blue one in stock?',
        sent_at: new Date('2026-11-01T09:05:00Z'),
        payload: expect.objectContaining({ sender: 'ann@example.com' }),
      }),
    ]);
    const received = (await records.events(tenantId)).filter((e) => e.type === 'message.received');
    expect(received).toEqual([
      {
        type: 'message.received',
        record: { module: 'chat_messages', id: first.data[0].id },
        data: {
          conversation_id: conversation.id,
          external_id: 'm-1',
          direction: 'inbound',
          sender: 'ann@example.com',
          sent_at: '2026-11-01T09:05:00.000Z',
        },
      },
    ]);
    await records.asTenant(tenantId, async (trx) => {
      expect(await findConversation(trx, tenantId, conversation.id)).toMatchObject({
        last_message_at: new Date('2026-11-01T09:05:00Z'),
      });
      const page = await listMessages(trx, tenantId, conversation.id, MESSAGES_PAGE, CURSORS);
      expect(page.items.map((m) => m.external_id)).toEqual(['m-1']);
    });
  });

  it('asks for the channel when the conversation id is on several, and refuses an id used in another conversation', async () => {
    const tenantId = await records.tenant();
    await records.asTenant(tenantId, (trx) =>
      ingestConversations(trx, tenantId, [
        { external_id: 'same', channel: 'chat' },
        { external_id: 'same', channel: 'sms' },
      ]),
    );
    const result = await records.asTenant(tenantId, (trx) =>
      ingestMessages(trx, tenantId, [
        { conversation_external_id: 'same', external_id: 'm-1' },
        { conversation_external_id: 'same', channel: 'sms', external_id: 'm-1' },
        { conversation_external_id: 'same', channel: 'chat', external_id: 'm-1' },
      ]),
    );
    expect(result.errors).toEqual([
      {
        index: 0,
        error:
          'conversation_external_id same names a conversation on several channels: send channel, one of chat, sms',
      },
      {
        index: 2,
        error:
          'external_id m-1 is already the id of a message in another conversation: send another external_id',
      },
    ]);
    expect(result.data).toEqual([expect.objectContaining({ external_id: 'm-1', created: true })]);
  });

  it('another tenant sees none of them', async () => {
    const tenantId = await records.tenant();
    const otherId = await records.tenant();
    const {
      data: [conversation],
    } = await records.asTenant(tenantId, (trx) =>
      ingestConversations(trx, tenantId, [{ external_id: 'conv-1' }]),
    );
    await records.asTenant(tenantId, (trx) =>
      ingestMessages(trx, tenantId, [{ conversation_external_id: 'conv-1', external_id: 'm-1' }]),
    );
    await records.asTenant(otherId, async (trx) => {
      expect(await findConversation(trx, tenantId, conversation.id)).toBeUndefined();
      expect(await listConversations(trx, tenantId, PAGE, {}, CURSORS)).toMatchObject({ total: 0 });
      expect(
        await listMessages(trx, tenantId, conversation.id, MESSAGES_PAGE, CURSORS),
      ).toMatchObject({ total: 0 });
      // Its own message with the same ids names no conversation of its own.
      const result = await ingestMessages(trx, otherId, [
        { conversation_external_id: 'conv-1', external_id: 'm-1' },
      ]);
      expect(result.failed).toBe(1);
    });
  });
});
