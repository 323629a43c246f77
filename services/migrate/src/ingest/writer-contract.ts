import type { Trx } from '@crm/shared/db';
import type { RecordError } from '@crm/records';

/*
 * What every entity writer takes (a chunk of source records and the transaction to write them
 * in) and gives back (what each became, or its error). Its own file so that the table of
 * writers (entity-writers.ts) and the writers it lists both depend on it, not on each other.
 */

/** One stored record of a chunk: where it came from and what it became. */
export interface StoredRecord {
  /** Position in the request's `records`. */
  index: number;
  external_id: string;
  record_id: string;
  created: boolean;
}

export interface SourceRecord {
  index: number;
  external_id: string;
  /** The record without `external_id`: the fields of the entity's own rules. */
  fields: Record<string, unknown>;
}

export interface ChunkOutcome {
  stored: StoredRecord[];
  errors: RecordError[];
}

export interface WriteContext {
  trx: Trx;
  tenantId: string;
  sourceSystem: string;
}
