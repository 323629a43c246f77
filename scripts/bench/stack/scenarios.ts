import { createHmac } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type autocannon from 'autocannon';
import type { Client } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { alternate, LOAD, mean, measure, median, type LoadTarget } from './load';
import { waitFor } from './processes';

/** What the scenarios run against: the platform's addresses and a signed-in tenant. */
export interface Stack {
  gatewayUrl: string;
  crmApiUrl: string;
  /** Session cookie (through the gateway) and identity header (straight to crm-api). */
  cookie: string;
  identityHeader: string;
  tenantId: string;
  networkSecret: string;
  networkAccount: string;
  /** A superuser connection to the bench database (COPY, counts). */
  sql: Client;
}

/** autocannon requests, each a freshly signed network delivery of `perBody` events. */
export function networkDeliveries(secret: string, account: string, perBody: number, tag: string) {
  let n = 0;
  const counted = { inserted: 0 };
  const request: autocannon.Request = {
    method: 'POST',
    path: '/api/webhooks/network',
    setupRequest: (req) => {
      const k = n++;
      const at = new Date().toISOString();
      const events = Array.from(
        { length: perBody },
        (_, j) =>
          `{"id":"${tag}-${k}-${j}","type":"INVITATION_SENT","account_id":"${account}","occurred_at":"${at}","actor":{"name":"x"}}`,
      );
      const body = perBody === 1 ? events[0] : `{"events":[${events.join(',')}]}`;
      const t = Math.floor(Date.now() / 1000);
      const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
      return {
        ...req,
        body,
        headers: { 'content-type': 'application/json', 'x-network-signature': `t=${t},v1=${v1}` },
      };
    },
    onResponse: (status, body) => {
      if (status !== 200) return;
      try {
        counted.inserted += (JSON.parse(body) as { inserted?: number }).inserted ?? 0;
      } catch {
        // not JSON: nothing stored to count
      }
    },
  };
  return { requests: [request], counted };
}

/** GET /api/crm/deals through the gateway (session) vs straight to crm-api (identity header). */
export async function dealsThroughGateway(stack: Stack) {
  const gateway: LoadTarget = {
    url: `${stack.gatewayUrl}/api/crm/deals`,
    headers: { cookie: stack.cookie },
  };
  const direct: LoadTarget = {
    url: `${stack.crmApiUrl}/api/crm/deals`,
    headers: { 'x-crm-identity': stack.identityHeader },
  };
  const runs = await alternate(
    () => measure('deals through the gateway', gateway),
    () => measure('deals straight to crm-api', direct),
  );
  return {
    figure: Math.round(mean(runs.a.map((r) => r.requestsPerSecond))),
    baseline: Math.round(mean(runs.b.map((r) => r.requestsPerSecond))),
    runs,
  };
}

/** One signed network event per delivery through the gateway vs the bare proxied verifier. */
export async function singleDeliveries(stack: Stack, bareUrl: string, bareSecret: string) {
  let round = 0;
  const runs = await alternate(
    () =>
      measure('signed deliveries through the gateway', {
        url: stack.gatewayUrl,
        requests: networkDeliveries(stack.networkSecret, stack.networkAccount, 1, `s${round++}`)
          .requests,
      }),
    () =>
      measure('signed deliveries, bare proxy -> verifier', {
        url: bareUrl,
        requests: networkDeliveries(bareSecret, stack.networkAccount, 1, `b${round++}`).requests,
      }),
  );
  return {
    figure: Math.round(mean(runs.a.map((r) => r.requestsPerSecond))),
    baseline: Math.round(mean(runs.b.map((r) => r.requestsPerSecond))),
    runs,
  };
}

/** 500-event signed batches through the gateway, 10 connections: events stored per second. */
export async function batches(stack: Stack, perBody = 500, connections = 10) {
  const perRun: number[] = [];
  for (let round = 0; round < 2; round++) {
    const { requests, counted } = networkDeliveries(
      stack.networkSecret,
      stack.networkAccount,
      perBody,
      `batch${round}`,
    );
    // Events the 200 answers say were stored, in the measured run only.
    await measure(
      `batches of ${perBody} through the gateway`,
      { url: stack.gatewayUrl, requests },
      connections,
      () => (counted.inserted = 0),
    );
    perRun.push(Math.round(counted.inserted / LOAD.durationSeconds));
  }
  return { figure: Math.round(mean(perRun)), perRun };
}

const leadsOf = (tag: string, rows: number) =>
  Array.from({ length: rows }, (_, i) => ({
    email: `lead-${tag}-${i}@bench.example`,
    first_name: `First${i}`,
    last_name: `Last${i}`,
    company: `Company ${i % 97}`,
  }));

/** Resolves once no outbox row waits to be published (at most 60 s). */
function outboxDrained(sql: Client): Promise<void> {
  return waitFor(
    'the outbox',
    async () => {
      const { rows } = await sql.query<{ waiting: boolean }>(
        'SELECT EXISTS (SELECT 1 FROM event_outbox WHERE published_at IS NULL) AS waiting',
      );
      return !rows[0].waiting;
    },
    { notYet: 'did not drain' },
  );
}

/** One import of `rows` new leads through the gateway vs COPY of the same rows, 5 times each. */
export async function importVersusCopy(stack: Stack, rows = 10_000, runs = 5) {
  await stack.sql.query(`DROP TABLE IF EXISTS bench_copy_leads;
    CREATE TABLE bench_copy_leads (id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      tenant_id uuid NOT NULL, email text NOT NULL, first_name text, last_name text, phone text,
      status text NOT NULL DEFAULT 'new', source text NOT NULL DEFAULT 'api_import',
      custom_fields jsonb NOT NULL DEFAULT '{}', created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now());
    CREATE UNIQUE INDEX ON bench_copy_leads (tenant_id, lower(email));`);
  const importOnce = async (tag: string) => {
    const body = JSON.stringify({ leads: leadsOf(tag, rows) });
    const started = performance.now();
    const res = await fetch(`${stack.gatewayUrl}/api/v1/import/leads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: stack.cookie },
      body,
    });
    const answer = (await res.json()) as { imported?: number };
    if (res.status !== 200 || answer.imported !== rows)
      throw new Error(`import answered ${res.status} ${JSON.stringify(answer).slice(0, 200)}`);
    return performance.now() - started;
  };
  const copyOnce = async (tag: string) => {
    const csv = leadsOf(tag, rows).map(
      (l) =>
        `${stack.tenantId},${l.email},${l.first_name},${l.last_name},new,api_import,"{""company"": ""${l.company}""}"\n`,
    );
    const started = performance.now();
    await pipeline(
      Readable.from(csv),
      stack.sql.query(
        copyFrom(
          'COPY bench_copy_leads (tenant_id, email, first_name, last_name, status, source, custom_fields) FROM STDIN WITH (FORMAT csv)',
        ),
      ),
    );
    return performance.now() - started;
  };
  // Each import and each COPY starts at rest: the outbox relays have published the previous
  // import's 10,000 events (about a second of both cores), so neither side is measured while
  // they publish what an earlier run wrote. The publishing is the relay scenario's to measure.
  const settled = () => outboxDrained(stack.sql);
  // One of each first, not counted.
  await importOnce('warm');
  await settled();
  await copyOnce('warm');
  const importMs: number[] = [];
  const copyMs: number[] = [];
  for (let run = 0; run < runs; run++) {
    importMs.push(Number((await importOnce(`r${run}`)).toFixed(1)));
    await settled();
    copyMs.push(Number((await copyOnce(`r${run}`)).toFixed(1)));
    process.stderr.write(
      `  import ${importMs[run].toFixed(0)} ms, COPY ${copyMs[run].toFixed(0)} ms\n`,
    );
  }
  await stack.sql.query('DROP TABLE bench_copy_leads');
  // Rows per second, so that higher is better like every other ratio.
  return {
    figure: Math.round(rows / (median(importMs) / 1000)),
    baseline: Math.round(rows / (median(copyMs) / 1000)),
    importMs,
    copyMs,
  };
}
