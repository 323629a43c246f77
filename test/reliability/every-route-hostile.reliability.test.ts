import fc from 'fast-check';
import type { Response } from 'supertest';
import { allRowCounts } from '@crm/shared/testing';
import {
  expectHandled,
  fuzzOptions,
  hostileHeaders,
  hostileJsonText,
  hostileQuery,
  hostileSegment,
} from '@crm/shared/testing/hostile-input';
import openapi from '../../services/gateway/api-docs/openapi.json';
import { ownDatabase, type OwnDatabase } from './support/database';
import { recordFigure, StatusTally } from './support/figures';
import { NatsServerProcess } from './support/nats-server';
import { BACKENDS, Platform, signedInOwner, type Session } from './support/platform';

/*
 * Hostile input, route by route: every operation of the OpenAPI document (the one list of
 * what the platform serves; a test elsewhere keeps it equal to the routes the apps register),
 * through the gateway at all six services as processes, signed in as a tenant's owner. Each
 * gets hostile path segments, query strings, headers (forged identity headers, junk cookies
 * beside the session's) and, where it takes one, a hostile body. Never a 5xx, a 4xx always in
 * an error body, no process dies, and a refused request writes no row in any table.
 */
const TEST = '5 hostile input (every route)';
const RUNS_PER_OPERATION = 15;

/** POST /api/auth/sign-out would end the session the rest of the run uses; its tests are its own. */
const SKIPPED = new Set(['POST /api/auth/sign-out']);

/**
 * Rows a refused request writes by design: the gateway's rate-limit counters count refused
 * requests too (a client cannot dodge its limit by sending bad ones).
 */
const COUNTED_ANYWAY = ['rate_limits'];

interface Operation {
  method: string;
  path: string;
  params: string[];
  hasBody: boolean;
}

const OPERATIONS: Operation[] = Object.entries(
  openapi.paths as Record<string, Record<string, unknown>>,
).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
    .map(([method, op]) => {
      const parameters = ((op as { parameters?: Array<{ name: string; in: string }> }).parameters ??
        []) as Array<{ name: string; in: string }>;
      return {
        method: method.toUpperCase(),
        path,
        params: parameters.filter((p) => p.in === 'query').map((p) => p.name),
        hasBody: (op as { requestBody?: unknown }).requestBody !== undefined,
      };
    })
    .filter((op) => !SKIPPED.has(`${op.method} ${op.path}`)),
);

describe('hostile requests at every operation of the API, through the gateway', () => {
  let nats: NatsServerProcess;
  let database: OwnDatabase;
  let platform: Platform;
  let session: Session;

  beforeAll(async () => {
    nats = await NatsServerProcess.start();
    database = await ownDatabase('every_route');
    platform = await Platform.start({ DATABASE_URL: database.url, NATS_URL: nats.url }, [
      ...BACKENDS,
    ]);
    session = await signedInOwner(database.db, platform);
  });
  afterAll(async () => {
    await platform?.stop();
    await nats?.close();
    await database?.drop();
  });

  it(`never a 5xx, and a refused request writes nothing (${RUNS_PER_OPERATION} runs per operation)`, async () => {
    const statuses = new StatusTally();
    let requests = 0;
    for (const operation of OPERATIONS) {
      const request = fc.record({
        segments: fc.array(hostileSegment, { minLength: 2, maxLength: 2 }),
        query: hostileQuery(operation.params),
        headers: hostileHeaders(session.cookie),
        body: hostileJsonText,
      });
      await fc.assert(
        fc.asyncProperty(request, async ({ segments, query, headers, body }) => {
          let n = 0;
          const path = operation.path.replace(/\{[^}]+\}/g, () => segments[n++ % 2]);
          const sent = {
            method: operation.method,
            path: `${path}${query}`,
            headers,
            body: operation.hasBody
              ? { text: body, contentType: 'application/json', change: 'whole body' }
              : undefined,
          };
          const before = await allRowCounts(database.db, COUNTED_ANYWAY);
          const res = await fetch(`${platform.url}${sent.path}`, {
            method: sent.method,
            headers: {
              ...headers,
              ...(sent.body ? { 'content-type': 'application/json' } : {}),
            },
            body: sent.body?.text,
            signal: AbortSignal.timeout(30_000),
          });
          const text = await res.text();
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON: expectHandled reports a 4xx without an error body
          }
          requests++;
          statuses.add(res.status);
          expectHandled(sent, { status: res.status, body: parsed } as Response, {
            before,
            after: await allRowCounts(database.db, COUNTED_ANYWAY),
          });
        }),
        fuzzOptions(RUNS_PER_OPERATION),
      );
    }
    recordFigure(TEST, 'operations x runs', `${OPERATIONS.length} x ${RUNS_PER_OPERATION}`);
    recordFigure(TEST, 'requests sent', requests);
    recordFigure(TEST, 'statuses', String(statuses));
    expect(platform.exited()).toEqual([]);
  });
});
