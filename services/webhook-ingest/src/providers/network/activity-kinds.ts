import { NETWORK_ACTIVITY_KINDS } from '@crm/shared/db';

export type NetworkActivityKind = (typeof NETWORK_ACTIVITY_KINDS)[number];

/**
 * The one mapping from the partner's event `type` to the strict activity kinds
 * `network_events.kind` accepts (specified: each event is mapped to a strict kind). Matching is
 * exact (case-sensitive); a type not in this table is counted as `unsupported` and not stored.
 *
 * | Partner type          | Stored kind                   |
 * |-----------------------|-------------------------------|
 * | INVITATION_SENT       | network_connection_sent       |
 * | INVITATION_ACCEPTED   | network_connection_accepted   |
 * | MESSAGE_SENT          | network_message_sent          |
 * | MESSAGE_RECEIVED      | network_message_received      |
 * | PROFILE_VIEWED        | network_profile_viewed        |
 * | POST_REACTION         | network_post_reaction         |
 * | POST_COMMENT          | network_post_comment          |
 */
export const NETWORK_ACTIVITY_KIND_BY_TYPE: Readonly<Record<string, NetworkActivityKind>> =
  Object.freeze({
    INVITATION_SENT: 'network_connection_sent',
    INVITATION_ACCEPTED: 'network_connection_accepted',
    MESSAGE_SENT: 'network_message_sent',
    MESSAGE_RECEIVED: 'network_message_received',
    PROFILE_VIEWED: 'network_profile_viewed',
    POST_REACTION: 'network_post_reaction',
    POST_COMMENT: 'network_post_comment',
  });

/** The stored kind of a partner event type, or undefined when the type is unsupported. */
export function activityKindOf(type: unknown): NetworkActivityKind | undefined {
  if (typeof type !== 'string' || !Object.hasOwn(NETWORK_ACTIVITY_KIND_BY_TYPE, type)) {
    return undefined;
  }
  return NETWORK_ACTIVITY_KIND_BY_TYPE[type];
}
