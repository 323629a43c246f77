/**
 * One refused record of a batch (specified: an import error item is `{ index, error }`): its
 * zero-based position and why.
 */
export interface RecordError {
  index: number;
  /** Names the field and what would have been valid, e.g. `currency must be ...`. */
  error: string;
}

/**
 * What storing a batch of one record type answers, for every record type alike: the lead import's
 * shape (specified: `{ success, imported, failed, errors, data }`). `imported` counts the records
 * stored (a re-sent record counts: it was taken), `failed` the refused ones, listed in `errors`;
 * `data` has one item per stored record, in input order.
 */
export interface IngestResult<T> {
  imported: number;
  failed: number;
  errors: RecordError[];
  data: T[];
}

/** The result of a batch, with `errors` in input order. */
export function ingestResult<T>(data: T[], errors: RecordError[]): IngestResult<T> {
  errors.sort((a, b) => a.index - b.index);
  return { imported: data.length, failed: errors.length, errors, data };
}
