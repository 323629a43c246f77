import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import {
  fetchConversation,
  fetchConversationsPage,
  fetchMessagesPage,
  type ConversationQuery,
} from '../../api/conversations';

/** The conversation list, page after page by number; the previous rows stay while a new one loads. */
export function useConversations(query: ConversationQuery) {
  return useInfiniteQuery({
    queryKey: ['conversations', query],
    queryFn: ({ pageParam, signal }) => fetchConversationsPage(query, pageParam, signal),
    initialPageParam: 1,
    placeholderData: keepPreviousData,
    getNextPageParam: (last) => (last.page < last.totalPages ? last.page + 1 : undefined),
  });
}

export function useConversation(id: string) {
  return useQuery({
    queryKey: ['conversation', id],
    queryFn: ({ signal }) => fetchConversation(id, signal),
    select: (body) => body.data.conversation,
  });
}

/**
 * A conversation's messages: page 1 is the latest ones, each next page the ones before them
 * ("Load earlier messages").
 */
export function useMessages(conversationId: string) {
  return useInfiniteQuery({
    queryKey: ['conversation', conversationId, 'messages'],
    queryFn: ({ pageParam, signal }) => fetchMessagesPage(conversationId, pageParam, signal),
    initialPageParam: 1,
    getNextPageParam: (last) => (last.page < last.totalPages ? last.page + 1 : undefined),
  });
}
