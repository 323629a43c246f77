import { randomUUID } from 'node:crypto';
import { request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inflateSync } from 'node:zlib';
import { loadConfig } from '@crm/shared/config';
import { createDb, type Db } from '@crm/shared/db';
import { closeServer, listen } from '@crm/shared/service';
import type { Role } from '@crm/shared/identity';
import {
  addMember,
  type CapturedLogger,
  captureLogger,
  createAccount,
  createTenant,
  signIn,
  testAppDeps,
  testDb,
  testGateway,
  type TestGateway,
  upstreamsAt,
} from '@crm/test-kit';
import { sql } from 'kysely';
import request from 'supertest';
import { service as crmApi } from '../../src/main';

/** A real crm-api listening behind a real gateway, both on the test database. */
export interface ExportStack {
  database: Db;
  crmLogs: CapturedLogger;
  /**
   * crm-api's connections inside an export's transaction: a COPY (the CSV) running or waiting
   * on the client, or a cursor (XLSX, PDF) running or between FETCHes.
   */
  crmBackendsFetching(): Promise<number[]>;
  gatewayUrl(): string;
  /** A tenant with a signed-in user of `role`; `cookie` is their session. */
  tenant(
    name: string,
    role?: Role,
  ): Promise<{ id: string; userId: string; email: string; cookie: string }>;
  /** Another signed-in member of an existing tenant. */
  member(tenantId: string, role: Role): Promise<{ userId: string; email: string; cookie: string }>;
}

/** Registers beforeAll/afterAll for the stack; `crmEnv` overrides crm-api's configuration. */
export function useExportStack(crmEnv: Record<string, string> = {}): ExportStack {
  const database = testDb();
  const crmLogs = captureLogger('info');
  // crm-api's own pool under its own application_name, so a test can find its connections.
  const applicationName = `crm-exports-${randomUUID().slice(0, 8)}`;
  const crmDb = createDb({
    connectionString: process.env.DATABASE_URL ?? '',
    maxConnections: 5,
    applicationName,
  });
  const crmDeps = testAppDeps({
    logger: crmLogs.logger,
    db: crmDb.db,
    pool: crmDb.pool,
    pingDatabase: crmDb.ping,
  });
  let crmServer: Server;
  let gateway: TestGateway;
  let gatewayServer: Server;

  beforeAll(async () => {
    crmServer = await listen(
      crmApi.createApp(crmDeps, loadConfig('crm-api', crmApi.configSchema, crmEnv)),
      0,
      '127.0.0.1',
    );
    const crmUrl = `http://127.0.0.1:${(crmServer.address() as AddressInfo).port}`;
    gateway = testGateway(upstreamsAt(crmUrl));
    gatewayServer = await listen(gateway.app, 0, '127.0.0.1');
  });

  afterAll(async () => {
    await closeServer(gatewayServer, 1000);
    await closeServer(crmServer, 1000);
    await gateway.close();
    await crmDeps.closeAll();
    await crmDb.close();
    await database.close();
  });

  const stack: ExportStack = {
    database,
    crmLogs,
    async crmBackendsFetching() {
      const { rows } = await sql<{ pid: number }>`
        SELECT pid FROM pg_stat_activity
        WHERE application_name = ${applicationName}
          AND state IN ('active', 'idle in transaction')
          AND (query LIKE 'FETCH FORWARD % FROM crm_export' OR query LIKE 'COPY (%')`.execute(
        database.db,
      );
      return rows.map((r) => r.pid);
    },
    gatewayUrl: () => `http://127.0.0.1:${(gatewayServer.address() as AddressInfo).port}`,
    async tenant(name, role = 'owner') {
      const tenant = await createTenant(database, name);
      return { id: tenant.id, ...(await stack.member(tenant.id, role)) };
    },
    async member(tenantId, role) {
      const user = await createAccount(database, role);
      await addMember(database, tenantId, user.id, role);
      return { userId: user.id, email: user.email, cookie: await signIn(gateway.app, user.email) };
    },
  };
  return stack;
}

/** supertest: keep any response body as the exact bytes. */
export function binaryBody(
  res: request.Response,
  done: (err: Error | null, body: Buffer) => void,
): void {
  // superagent hands a custom parser node's response stream, typed as its own Response.
  const stream = res as unknown as IncomingMessage;
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.on('end', () => done(null, Buffer.concat(chunks)));
}

/** POST /api/exports through the gateway; `body` is the file's bytes (or the JSON envelope). */
export async function exportFile(stack: ExportStack, cookie: string, body: unknown) {
  const res = await request(stack.gatewayUrl())
    .post('/api/exports')
    .set('Cookie', cookie)
    .send(body as object)
    .buffer(true)
    .parse(binaryBody);
  const bytes = res.body as Buffer;
  const json = (res.headers['content-type'] ?? '').startsWith('application/json')
    ? (JSON.parse(bytes.toString('utf8')) as Record<string, unknown>)
    : undefined;
  return { status: res.status, headers: res.headers, bytes, json };
}

export interface StreamedResponse {
  res: IncomingMessage;
  /** 'complete' when the body ended normally, 'aborted' when the transfer broke off. */
  outcome: Promise<'complete' | 'aborted'>;
  destroy(): void;
}

/**
 * Starts an export with node's http client and resolves at the response headers, with the
 * body paused (nothing read), so the server's backpressure holds the export open.
 */
export function startPausedExport(
  stack: ExportStack,
  cookie: string,
  body: unknown,
): Promise<StreamedResponse> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${stack.gatewayUrl()}/api/exports`,
      {
        method: 'POST',
        headers: {
          cookie,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        res.pause();
        const outcome = new Promise<'complete' | 'aborted'>((settle) => {
          res.on('end', () => settle(res.complete ? 'complete' : 'aborted'));
          res.on('aborted', () => settle('aborted'));
          res.on('error', () => settle('aborted'));
          res.on('close', () => settle(res.complete ? 'complete' : 'aborted'));
        });
        resolve({ res, outcome, destroy: () => req.destroy() });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * The text a PDF shows: each content stream inflated (pdfkit compresses them), then the
 * strings of its TJ/Tj operators, one entry per text run.
 */
export function pdfText(pdf: Buffer): string[] {
  const raw = pdf.toString('latin1');
  const runs: string[] = [];
  const streamStart = /stream\r?\n/g;
  let match: RegExpExecArray | null;
  while ((match = streamStart.exec(raw))) {
    const start = match.index + match[0].length;
    const end = raw.indexOf('endstream', start);
    let content: string;
    try {
      content = inflateSync(pdf.subarray(start, end)).toString('latin1');
    } catch {
      continue; // not a deflated stream (e.g. an uncompressed one we have no text in)
    }
    for (const [, array] of content.matchAll(/\[(.*?)\]\s*TJ/g)) {
      runs.push(
        [...array.matchAll(/<([0-9a-fA-F]*)>/g)]
          .map(([, hex]) => Buffer.from(hex, 'hex').toString('latin1'))
          .join(''),
      );
    }
    for (const [, hex] of content.matchAll(/<([0-9a-fA-F]*)>\s*Tj/g)) {
      runs.push(Buffer.from(hex, 'hex').toString('latin1'));
    }
  }
  return runs;
}
