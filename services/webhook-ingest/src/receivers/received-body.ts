import type { Outcome, Recorded } from '../ledger/record-delivery';

/**
 * The 2xx body most receivers answer a recorded delivery with (docs/webhooks.md):
 * `{ received: true }`; a redelivery adds `duplicate: true`; a delivery recorded as not
 * storable (a value outside its column's range) says `stored: false` and why, so whoever looks
 * at the provider's delivery log sees it, while the provider stops retrying.
 */
export function receivedBody(recorded: Recorded<Outcome>): Record<string, unknown> {
  if (recorded.duplicate) return { received: true, duplicate: true };
  if ('notStored' in recorded) {
    return { received: true, stored: false, reason: recorded.notStored };
  }
  return { received: true };
}

/** What became of a delivery, for the receiver's log line. */
export function outcomeOf(recorded: Recorded<Outcome>): string {
  if (recorded.duplicate) return 'duplicate';
  return 'notStored' in recorded ? 'failed' : recorded.result.outcome;
}
