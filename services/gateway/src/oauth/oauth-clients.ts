import { withSystemScope, type Database } from '@crm/shared/db';
import type { Kysely } from 'kysely';
import {
  DOCUMENT_MAX_AGE_SECONDS,
  fetchClientDocument,
  isMetadataDocumentUrl,
  type DocumentFetcher,
} from './client-metadata-document';
import { findClientById, upsertMetadataDocumentClient, type ClientRow } from './oauth.repository';

export interface OAuthClient {
  clientId: string;
  clientName: string;
  redirectUris: string[];
}

function clientOf(row: ClientRow): OAuthClient {
  return { clientId: row.client_id, clientName: row.client_name, redirectUris: row.redirect_uris };
}

/**
 * The client a `client_id` names, or undefined when none: a registered client by its id, or the
 * client of a metadata document URL, from the cache while it is younger than an hour, else
 * fetched (through the SSRF guard) and cached. A document that cannot be fetched or is not
 * acceptable throws `invalid_client`.
 */
export async function resolveClient(
  db: Kysely<Database>,
  fetchDocument: DocumentFetcher,
  clientId: string,
): Promise<OAuthClient | undefined> {
  const cached = await withSystemScope(db, (trx) => findClientById(trx, clientId));
  if (!isMetadataDocumentUrl(clientId)) return cached && clientOf(cached);
  const ageSeconds = cached ? (Date.now() - cached.fetched_at.getTime()) / 1000 : Infinity;
  if (cached && ageSeconds < DOCUMENT_MAX_AGE_SECONDS) return clientOf(cached);
  const document = await fetchClientDocument(fetchDocument, clientId);
  await withSystemScope(db, (trx) =>
    upsertMetadataDocumentClient(trx, {
      clientId,
      clientName: document.clientName,
      redirectUris: document.redirectUris,
      metadata: document.metadata,
    }),
  );
  return { clientId, clientName: document.clientName, redirectUris: document.redirectUris };
}
