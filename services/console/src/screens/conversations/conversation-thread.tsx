import { useEffect, useMemo, useRef } from 'react';
import { Link, useParams } from 'react-router';
import type { ChatMessage, Conversation } from '../../api/conversations';
import { Problem } from '../../ui/problem';
import { Empty, Loading, QueryStates } from '../../ui/states';
import { conversationParty } from './conversation-columns';
import { useConversation, useMessages } from './use-conversations';
import { dateTime } from '../../ui/date-time';

/**
 * One conversation's thread (/conversations/:id): its messages oldest first, the latest page
 * first loaded and earlier ones on request, the contact it is with linked to their panel.
 */
export function ConversationThread() {
  const { conversationId = '' } = useParams();
  const heading = useRef<HTMLHeadingElement>(null);
  const conversation = useConversation(conversationId);
  useEffect(() => heading.current?.focus(), [conversationId]);
  const title = conversation.data ? conversationParty(conversation.data) : 'Conversation';
  return (
    <section aria-labelledby="screen-title" className="thread">
      <p>
        <Link to="/conversations">Back to conversations</Link>
      </p>
      <h1 id="screen-title" ref={heading} tabIndex={-1}>
        {conversation.data ? `Conversation with ${title}` : 'Conversation'}
      </h1>
      <QueryStates query={conversation} what="the conversation">
        {(data) => (
          <>
            <ConversationFacts conversation={data} />
            <Messages conversation={data} />
          </>
        )}
      </QueryStates>
    </section>
  );
}

function ConversationFacts({ conversation: c }: { conversation: Conversation }) {
  return (
    <dl className="facts">
      <div>
        <dt>Contact</dt>
        <dd>
          {c.contact_id ? (
            <Link to={`/contacts/${c.contact_id}`}>
              {c.contact_email || c.contact_phone || c.contact_name || 'Contact'}
            </Link>
          ) : (
            'Not matched to a contact'
          )}
        </dd>
      </div>
      <div>
        <dt>Channel</dt>
        <dd>{c.channel}</dd>
      </div>
      <div>
        <dt>Status</dt>
        <dd>{c.status ?? '—'}</dd>
      </div>
      {c.subject && (
        <div>
          <dt>Subject</dt>
          <dd>{c.subject}</dd>
        </div>
      )}
    </dl>
  );
}

function Messages({ conversation }: { conversation: Conversation }) {
  const messages = useMessages(conversation.id);
  const start = useRef<HTMLParagraphElement>(null);
  const pages = messages.data?.pages;
  // Pages come latest first and each reads oldest first: reversed, the thread reads in order.
  // A message that arrived between two pages may be on both; it is shown once.
  const list = useMemo(() => {
    const seen = new Set<string>();
    return (pages ?? [])
      .toReversed()
      .flatMap((page) => page.items)
      .filter((m) => !seen.has(m.id) && Boolean(seen.add(m.id)));
  }, [pages]);
  const total = pages?.[0]?.total ?? 0;
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = messages;
  const reachedStart = Boolean(pages) && !hasNextPage;
  // The earlier-messages button goes away at the start: the keyboard focus moves to the note.
  useEffect(() => {
    if (reachedStart && document.activeElement === document.body) start.current?.focus();
  }, [reachedStart]);

  const { error } = messages;
  if (messages.isPending) return <Loading what="messages" />;
  // A failed first page is the whole list's error; a failed earlier page shows above the rest.
  if (messages.isError && !messages.isFetchNextPageError) {
    return <Problem error={error} onRetry={() => void messages.refetch()} />;
  }
  if (list.length === 0) {
    return (
      <Empty>
        <p>No messages in this conversation yet.</p>
      </Empty>
    );
  }
  return (
    <div aria-busy={messages.isFetching}>
      <p role="status" className="muted">
        {list.length} of {total} messages shown{isFetchingNextPage ? ', loading earlier…' : ''}
      </p>
      {hasNextPage ? (
        <button type="button" disabled={isFetchingNextPage} onClick={() => void fetchNextPage()}>
          Load earlier messages
        </button>
      ) : (
        <p ref={start} tabIndex={-1} className="muted">
          The start of the conversation.
        </p>
      )}
      {messages.isFetchNextPageError && (
        <Problem error={error} onRetry={() => void fetchNextPage()} />
      )}
      <ol className="messages" aria-label="Messages, oldest first">
        {list.map((message) => (
          <MessageItem key={message.id} message={message} conversation={conversation} />
        ))}
      </ol>
    </div>
  );
}

/** Who sent a message: the sender an ingest named, the receiver's `from`, else the side. */
function senderOf(message: ChatMessage, conversation: Conversation): string {
  const named = message.payload?.sender ?? message.payload?.from;
  if (typeof named === 'string' && named) return named;
  if (message.direction === 'outbound') return 'Us';
  return conversation.contact_name || conversation.contact_email || 'The contact';
}

function MessageItem({
  message,
  conversation,
}: {
  message: ChatMessage;
  conversation: Conversation;
}) {
  const at = message.sent_at ?? message.created_at;
  return (
    <li className={`message message-${message.direction}`}>
      <p className="message-meta">
        <strong>{message.direction === 'inbound' ? 'Received' : 'Sent'}</strong>
        {' · '}
        {senderOf(message, conversation)}
        {' · '}
        <time dateTime={at}>{dateTime(at)}</time>
        {message.status ? ` · ${message.status}` : ''}
      </p>
      <p className="message-body">
        {message.body ?? `(no text: ${message.message_type ?? 'unknown'} message)`}
      </p>
    </li>
  );
}
