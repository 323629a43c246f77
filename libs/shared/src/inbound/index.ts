/*
 * The inbound kit: what every endpoint that authenticates a caller by its exact bytes builds on
 * (webhook-ingest's provider receivers today; migrate's HMAC-signed ingest and mcp-ingest's
 * key check as they come). Pure functions except rawBytes, which only reads the request.
 */
export { rawBytes } from './raw-bytes';
export { verifyBodyHmac, type BodyHmacScheme } from './body-hmac';
export {
  accepted,
  reject,
  verifyWithEither,
  secretNotConfigured,
  secretUnavailable,
  unprocessable,
  isWithinTolerance,
  headerValue,
  parseSignatureHeader,
  type Verification,
} from './verification';
export { bodyDigestId, deliveryIdFrom } from './delivery-id';
export { parseJsonBody, type JsonBodyOptions } from './parse-json';
export {
  MAX_JSON_DEPTH,
  nestsDeeperThan,
  storableText,
  storableValue,
  storableTimestamp,
} from './storable';
export { INTEGER_MAX, fitsNumeric } from './numeric-range';
export { ledgerHeaders, isSecretLikeHeader, REDACTED } from './ledger-headers';
