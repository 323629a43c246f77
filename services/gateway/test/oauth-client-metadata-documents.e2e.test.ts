import { lookup } from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { withSystemScope } from '@crm/shared/db';
import {
  addMember,
  createAccount,
  createTenant,
  signIn,
  testDb,
  testGateway,
  type TestGateway,
} from '@crm/test-kit';
import request from 'supertest';
import {
  guardedDocumentFetcher,
  type DocumentFetcher,
} from '../src/oauth/client-metadata-document';
import { approve, authorize, exchange, pkcePair, REDIRECT_URI, requestIdOf } from './oauth-flow';

/*
 * Client ID Metadata Documents: a client_id that is an https URL is fetched, checked and cached
 * in oauth_clients. The SSRF guard refuses this machine's addresses, so the documents here are
 * served on 127.0.0.1 to a gateway whose fetcher maps `https://docs.agent.test/...` there (the
 * real fetcher, with plain DNS as its lookup); a second gateway keeps the production fetcher,
 * which must refuse loopback and private addresses without connecting.
 */
const database = testDb();
const documents = new Map<string, { status?: number; body: string; hang?: boolean }>();
const hits: string[] = [];
let server: Server;
let serverUrl: string;
let gateway: TestGateway;
let guarded: TestGateway;
let cookie: string;
let tenantId: string;

const DOCS = 'https://docs.agent.test';

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? '');
    const doc = documents.get(req.url ?? '');
    if (doc?.hang) return; // never answers
    if (!doc) return void res.writeHead(404).end();
    res.writeHead(doc.status ?? 200, { 'content-type': 'application/json' }).end(doc.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const local = guardedDocumentFetcher({ lookup });
  const toLocal: DocumentFetcher = (url) =>
    local(new URL(`${url.pathname}${url.search}`, serverUrl));
  gateway = testGateway({}, {}, { fetchClientDocument: toLocal });
  guarded = testGateway();
  const user = await createAccount(database, 'cimd-owner');
  tenantId = (await createTenant(database, 'CIMD Co')).id;
  await addMember(database, tenantId, user.id, 'owner');
  cookie = await signIn(gateway.app, user.email);
});

afterAll(async () => {
  await gateway.close();
  await guarded.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await database.close();
});

function serve(path: string, document: object | string, status?: number) {
  documents.set(path, {
    status,
    body: typeof document === 'string' ? document : JSON.stringify(document),
  });
  return `${DOCS}${path}`;
}

const clientRow = (clientId: string) =>
  withSystemScope(database.db, (trx) =>
    trx
      .selectFrom('oauth_clients')
      .selectAll()
      .where('client_id', '=', clientId)
      .executeTakeFirst(),
  );

const authorizeAt = (app: TestGateway['app'], clientId: string, redirectUri = REDIRECT_URI) =>
  authorize(app, {
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: pkcePair().challenge,
  });

it('fetches the document, caches the client and runs the whole flow with it', async () => {
  const clientId = `${DOCS}/clients/editor.json`;
  serve('/clients/editor.json', {
    client_id: clientId,
    client_name: 'Editor Agent',
    redirect_uris: [REDIRECT_URI],
    token_endpoint_auth_method: 'none',
  });
  const { verifier, challenge } = pkcePair();
  const res = await authorize(gateway.app, { client_id: clientId, code_challenge: challenge });
  expect(res.status).toBe(302);
  expect(await clientRow(clientId)).toMatchObject({
    client_name: 'Editor Agent',
    redirect_uris: [REDIRECT_URI],
    source: 'metadata_document',
  });
  const requestId = requestIdOf(res.headers.location);
  const consent = await request(gateway.app)
    .get(`/api/auth/oauth/requests/${requestId}`)
    .set('Cookie', cookie);
  expect(consent.body.data.client).toEqual({
    client_id: clientId,
    name: 'Editor Agent',
    redirect_host: '127.0.0.1:33418',
    // The document's host vouches for the name, and the consent page says so.
    document_host: new URL(DOCS).host,
  });
  const code = await approve(gateway.app, cookie, requestId, tenantId);
  const tokens = await exchange(gateway.app, clientId, code, verifier);
  expect(tokens.status).toBe(200);
});

it('serves the cached copy for an hour, then fetches the document again', async () => {
  const clientId = `${DOCS}/clients/cached.json`;
  serve('/clients/cached.json', {
    client_id: clientId,
    client_name: 'First name',
    redirect_uris: [REDIRECT_URI],
  });
  expect((await authorizeAt(gateway.app, clientId)).status).toBe(302);
  serve('/clients/cached.json', {
    client_id: clientId,
    client_name: 'Second name',
    redirect_uris: [REDIRECT_URI],
  });
  expect((await authorizeAt(gateway.app, clientId)).status).toBe(302);
  expect(hits.filter((h) => h === '/clients/cached.json')).toHaveLength(1);
  expect((await clientRow(clientId))?.client_name).toBe('First name');
  await withSystemScope(database.db, (trx) =>
    trx
      .updateTable('oauth_clients')
      .set({ fetched_at: new Date(Date.now() - 2 * 3600 * 1000) })
      .where('client_id', '=', clientId)
      .execute(),
  );
  expect((await authorizeAt(gateway.app, clientId)).status).toBe(302);
  expect(hits.filter((h) => h === '/clients/cached.json')).toHaveLength(2);
  expect((await clientRow(clientId))?.client_name).toBe('Second name');
});

it.each([
  [
    'names another client_id',
    { client_id: `${DOCS}/clients/someone-else.json` },
    /another client_id/,
  ],
  [
    'lists an http redirect to another host',
    { redirect_uris: ['http://agent.test/cb'] },
    /loopback/,
  ],
  ['lists no redirect URIs', { redirect_uris: [] }, /redirect_uris/],
  ['is a confidential client', { token_endpoint_auth_method: 'private_key_jwt' }, /public client/],
])(
  'refuses a document that %s: 400 invalid_client, never a redirect, nothing cached',
  async (_what, override, message) => {
    const path = `/clients/bad-${Math.random().toString(36).slice(2)}.json`;
    const clientId = `${DOCS}${path}`;
    serve(path, { client_id: clientId, redirect_uris: [REDIRECT_URI], ...override });
    const res = await authorizeAt(gateway.app, clientId);
    expect(res.status).toBe(400);
    expect(res.headers.location).toBeUndefined();
    expect(res.body.error).toBe('invalid_client');
    expect(res.body.error_description).toMatch(message);
    expect(await clientRow(clientId)).toBeUndefined();
  },
);

it.each([
  ['answers 404', () => `${DOCS}/clients/missing.json`, /answered 404/],
  ['is not JSON', () => serve('/clients/html.json', '<html>'), /not JSON/],
  [
    'is larger than 64 KiB',
    () => serve('/clients/huge.json', 'x'.repeat(70 * 1024)),
    /larger than/,
  ],
])('refuses a document that %s', async (_what, setUp, message) => {
  const clientId = setUp();
  const res = await authorizeAt(gateway.app, clientId);
  expect(res.status).toBe(400);
  expect(res.body.error).toBe('invalid_client');
  expect(res.body.error_description).toMatch(message);
});

it('refuses a redirect_uri the document does not list, without redirecting', async () => {
  const clientId = `${DOCS}/clients/strict.json`;
  serve('/clients/strict.json', { client_id: clientId, redirect_uris: [REDIRECT_URI] });
  const res = await authorizeAt(gateway.app, clientId, 'http://127.0.0.1:1/other');
  expect(res.status).toBe(400);
  expect(res.headers.location).toBeUndefined();
  expect(res.body.error).toBe('invalid_request');
});

it('treats an https client_id without a path (or with dot segments) as an unknown client, fetching nothing', async () => {
  const before = hits.length;
  for (const clientId of [`${DOCS}`, `${DOCS}/`, `${DOCS}/a/../b.json`]) {
    const res = await authorizeAt(gateway.app, clientId);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_client', error_description: 'Unknown client_id' });
  }
  expect(hits.length).toBe(before);
});

it('gives up on a document that does not answer within the timeout', async () => {
  documents.set('/clients/slow.json', { body: '', hang: true });
  const fetcher = guardedDocumentFetcher({ lookup, timeoutMs: 200 });
  await expect(fetcher(new URL('/clients/slow.json', serverUrl))).rejects.toThrow(
    'no answer within 200 ms',
  );
});

describe('the production fetcher (the SSRF guard)', () => {
  it.each([
    ['a loopback literal', 'https://127.0.0.1/client.json', /loopback/],
    ['an IPv6 loopback literal', 'https://[::1]/client.json', /loopback/],
    ['a private address', 'https://10.1.2.3/client.json', /private/],
    ['a link-local (cloud metadata) address', 'https://169.254.169.254/client.json', /linkLocal/],
    ['a name resolving to loopback', 'https://localhost/client.json', /localhost resolves to/],
  ])('refuses %s: 400 invalid_client, nothing cached', async (_what, clientId, message) => {
    const res = await authorizeAt(guarded.app, clientId);
    expect(res.status).toBe(400);
    expect(res.headers.location).toBeUndefined();
    expect(res.body.error).toBe('invalid_client');
    expect(res.body.error_description).toMatch(/not a public address/);
    expect(res.body.error_description).toMatch(message);
    expect(await clientRow(clientId)).toBeUndefined();
  });

  it('never connects to a listening server on this machine reached by name', async () => {
    serve('/clients/local.json', { client_id: 'x', redirect_uris: [REDIRECT_URI] });
    const before = hits.length;
    const port = new URL(serverUrl).port;
    await expect(
      guardedDocumentFetcher()(new URL(`http://localhost:${port}/clients/local.json`)),
    ).rejects.toThrow(/not a public address \(loopback\)/);
    expect(hits.length).toBe(before);
  });
});
