import { sha256Hex } from '../crypto';

/**
 * The ledger key of a delivery whose provider sends no event or delivery id (or a body we
 * could not read one from): a digest of the exact bytes, so a byte-identical redelivery is
 * recognised and anything else is not.
 */
export function bodyDigestId(rawBody: Buffer): string {
  return `sha256:${sha256Hex(rawBody)}`;
}

/** A provider-sent id, bounded to what the ledger stores (ids longer than 200 are digested). */
export function deliveryIdFrom(value: unknown, rawBody: Buffer): string {
  if ((typeof value === 'string' && value.trim() !== '') || typeof value === 'number') {
    const id = String(value).trim();
    return id.length <= 200 ? id : `sha256:${sha256Hex(id)}`;
  }
  return bodyDigestId(rawBody);
}
