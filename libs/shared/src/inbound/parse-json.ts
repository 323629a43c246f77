import { MAX_JSON_DEPTH, nestsDeeperThan, storableValue } from './storable';
import { unprocessable } from './verification';

export interface JsonBodyOptions {
  /**
   * The error for bytes that are not JSON, given the message (`The request body is not valid
   * JSON`); by default the receivers' 400. migrate answers its own `INVALID_JSON` with it.
   */
  invalidJson?: (message: string) => Error;
  /**
   * For a caller that refuses what the receivers make storable: called with the value as
   * parsed, it throws to refuse it (migrate: assertNoHostileInput, a 400 naming the path), and
   * the value is returned as parsed. Without it, the value is bounded and made storable.
   */
  refuseUnstorable?: (parsed: unknown) => void;
}

/**
 * Parses a verified raw body as JSON, made storable (see storable.ts): every string and key
 * with U+0000 and lone surrogates replaced by U+FFFD, so whatever a receiver stores from it
 * (text columns, or jsonb via JSON.stringify) cannot fail the INSERT. Called only after
 * verification succeeded, so a body refused here is the sender's processing failure (400),
 * never an unverified write:
 *  - not JSON: 400 `The request body is not valid JSON` (or options.invalidJson's error);
 *  - nested deeper than MAX_JSON_DEPTH: 400, before anything recursive touches it.
 * With options.refuseUnstorable, that check replaces the last two steps.
 */
export function parseJsonBody(rawBody: Buffer, options: JsonBodyOptions = {}): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawBody.toString('utf8'));
  } catch {
    const message = 'The request body is not valid JSON';
    throw options.invalidJson ? options.invalidJson(message) : unprocessable(message);
  }
  if (options.refuseUnstorable) {
    options.refuseUnstorable(parsed);
    return parsed;
  }
  if (nestsDeeperThan(parsed, MAX_JSON_DEPTH)) {
    throw unprocessable(`The request body nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
  return storableValue(parsed);
}
