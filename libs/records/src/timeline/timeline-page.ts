import type { Trx } from '@crm/shared/db';
import { readTimeline, type TimelineRow } from './timeline.repository';
import {
  decodeCursor,
  encodeCursor,
  type TimelineRecordKind,
  type TimelineType,
} from './timeline.schema';

/** A timeline item as the API and the MCP tools show it (its position is in the cursor). */
export type TimelineItem = Omit<TimelineRow, 'position'>;

export interface TimelinePage {
  items: TimelineItem[];
  /** Pass as `cursor` for the next page; null on the last one. */
  nextCursor: string | null;
}

/**
 * One page of a lead's or contact's timeline, newest first, after `cursor` (a nextCursor of
 * this record's timeline; anything else is a VALIDATION_ERROR naming what to pass): what
 * GET /api/crm/{leads,contacts}/:id/timeline and the MCP get_record tool answer. `types`
 * narrows the items to those types (every one when undefined; MCP leaves out those the caller's
 * scopes do not read). Undefined when the record is not the tenant's.
 */
export async function timelinePage(
  trx: Trx,
  tenantId: string,
  kind: TimelineRecordKind,
  recordId: string,
  limit: number,
  cursor: string | undefined,
  types?: readonly TimelineType[],
): Promise<TimelinePage | undefined> {
  const after = cursor ? decodeCursor(kind, recordId, cursor) : undefined;
  const rows = await readTimeline(trx, tenantId, kind, recordId, limit, after, types);
  if (!rows) return undefined;
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page.map(({ position: _position, ...item }) => item),
    nextCursor:
      rows.length > limit && last
        ? encodeCursor(kind, recordId, { at: last.position, type: last.type, id: last.id })
        : null,
  };
}
