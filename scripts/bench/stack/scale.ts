/**
 * Records at scale (`ONLY=scale npm run bench:stack`): the lists, a record, its timeline and the
 * CSV export of a tenant with SCALE_ROWS leads and as many contacts (1,000,000 by default),
 * beside the same requests for a tenant of 1,000 of each, in the same run, through the gateway.
 *
 * It works on a database of its own (created, migrated, seeded by COPY, analysed, dropped at the
 * end) and starts crm-api and the gateway on it: tenant A holds SCALE_ROWS leads and contacts,
 * tenant B 200,000 of each (rows of another tenant in the same indexes), tenant C 1,000 of each
 * (the baseline). Each figure is a latency distribution of sequential requests from one client
 * (p50, p99), so it is what one user waits, not the stack's capacity.
 *
 * Knobs (environment): SCALE_ROWS (tenant A's size), SCALE_OTHER_ROWS (tenant B's, 200,000),
 * SCALE_SAMPLES; SCALE_EXPORT_ONLY=1 measures the CSV export alone (no list, record or timeline
 * figures); SCALE_EXPORT_ROUNDS (1) repeats the export figures, alternating builds;
 * SCALE_BEFORE_ROOT=<dir> is another checkout, built (`npx tsc -b libs/shared libs/records
 * services/crm-api services/gateway` there), whose crm-api and gateway are started beside this
 * one's on the same database, so the export is measured before and after a change in one run.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { Client } from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { FILL_LEAD_SEARCH_TEXTS } from '../../../libs/records/src/leads/lead-search-texts.repository';
import { signIdentity } from '../../../libs/shared/src/identity';
import { freePort } from '../../dev/embedded-postgres';
import {
  createDb,
  dropDatabase,
  ensureDatabase,
  migrateToLatest,
  withDatabase,
} from '../../../libs/shared/src/db';
import { consoleAtScale } from './console';
import { latency, type Latency } from './latency';
import { startService, stopProcess } from './processes';
import type { Row } from './report';

export const SCALE_ROWS = Number(process.env.SCALE_ROWS ?? 1_000_000);
const OTHER_TENANT_ROWS = Number(process.env.SCALE_OTHER_ROWS ?? 200_000);
const EXPORT_ONLY = process.env.SCALE_EXPORT_ONLY === '1';
const EXPORT_ROUNDS = Number(process.env.SCALE_EXPORT_ROUNDS ?? 1);
const BEFORE_ROOT = process.env.SCALE_BEFORE_ROOT;
const BASELINE_ROWS = 1_000;
/** Sequential requests per figure, after WARM_UP_REQUESTS not counted. */
const SAMPLES = Number(process.env.SCALE_SAMPLES ?? 200);
const WARM_UP_REQUESTS = 10;
/** A figure whose requests are slow stops sampling after this long (at least 10 samples). */
const SAMPLE_BUDGET_MS = 20_000;

const FIRST = [
  'Ada',
  'Grace',
  'Alan',
  'Linus',
  'Margaret',
  'Edsger',
  'Barbara',
  'Donald',
  'Frances',
  'Ken',
  'Radia',
  'John',
  'Sophie',
  'Tim',
  'Hedy',
  'Dennis',
  'Katherine',
  'Guido',
  'Lucia',
  'Mateo',
  'Amara',
  'Wei',
  'Priya',
  'Olu',
  'Ingrid',
  'Yuki',
  'Omar',
  'Elena',
  'Jonas',
  'Nadia',
];
const LAST = [
  'Lovelace',
  'Hopper',
  'Turing',
  'Torvalds',
  'Hamilton',
  'Dijkstra',
  'Liskov',
  'Knuth',
  'Allen',
  'Thompson',
  'Perlman',
  'McCarthy',
  'Wilson',
  'Berners',
  'Lamarr',
  'Ritchie',
  'Johnson',
  'Rossi',
  'Garcia',
  'Okafor',
  'Chen',
  'Sharma',
  'Adeyemi',
  'Larsen',
  'Tanaka',
  'Haddad',
  'Petrova',
  'Schmidt',
  'Novak',
  'Silva',
];
const DOMAINS = [
  'acme.example',
  'globex.example',
  'initech.example',
  'umbrella.example',
  'hooli.example',
  'stark.example',
  'wayne.example',
  'wonka.example',
  'tyrell.example',
  'cyberdyne.example',
  'mail.example',
  'inbox.example',
];
const COMPANIES = DOMAINS.map((d) => d.split('.')[0].replace(/^./, (c) => c.toUpperCase()));
const TITLES = ['CEO', 'CTO', 'Head of Sales', 'Buyer', 'Engineer', 'Office manager', 'Founder'];
/** Weighted like a real funnel: most leads new or contacted, few converted. */
const STATUSES = [
  ...Array<string>(30).fill('new'),
  ...Array<string>(25).fill('contacted'),
  ...Array<string>(15).fill('qualified'),
  ...Array<string>(15).fill('unqualified'),
  ...Array<string>(5).fill('converted'),
  ...Array<string>(10).fill('lost'),
];
const SOURCES = ['web_form', 'api_import', 'referral', 'linkedin', 'event', 'cold_call', 'chat'];
const THREE_YEARS_MS = 3 * 365 * 24 * 3600 * 1000;

/** A small deterministic generator (mulberry32), so every run seeds the same rows. */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One person: distinct email (its index in the tenant), name, phone and times. */
function person(next: () => number, i: number, now: number) {
  const pick = <T>(values: readonly T[]) => values[Math.floor(next() * values.length)];
  const first = pick(FIRST);
  const last = pick(LAST);
  const domain = pick(DOMAINS);
  const email = `${first}.${last}.${i.toString(36)}@${domain}`.toLowerCase();
  const created = now - Math.floor(next() * THREE_YEARS_MS);
  const updated = Math.min(now, created + Math.floor(next() * 30 * 24 * 3600 * 1000));
  const phone = next() < 0.6 ? `+1 555 ${String(Math.floor(next() * 1e7)).padStart(7, '0')}` : '';
  return {
    first,
    last,
    email,
    domain,
    phone,
    created: new Date(created).toISOString(),
    updated: new Date(updated).toISOString(),
  };
}

/** CSV lines of `rows` leads or contacts, 10,000 to a chunk. */
async function* csvRows(kind: 'leads' | 'contacts', tenantId: string, rows: number, seed: number) {
  const next = random(seed);
  const now = Date.now();
  for (let start = 0; start < rows; start += 10_000) {
    let chunk = '';
    for (let i = start; i < Math.min(rows, start + 10_000); i++) {
      const p = person(next, i, now);
      if (kind === 'leads') {
        const status = STATUSES[Math.floor(next() * STATUSES.length)];
        const source = SOURCES[Math.floor(next() * SOURCES.length)];
        const custom =
          next() < 0.3 ? `"{""company"": ""${COMPANIES[i % COMPANIES.length]}""}"` : '{}';
        chunk += `${tenantId},${p.email},${p.first},${p.last},${p.phone},${status},${source},${custom},${p.created},${p.updated}\n`;
      } else {
        const company = COMPANIES[DOMAINS.indexOf(p.domain)];
        const title = TITLES[Math.floor(next() * TITLES.length)];
        chunk += `${tenantId},${p.email},${p.first},${p.last},${p.phone},${company},${title},{},${p.created},${p.updated}\n`;
      }
    }
    yield chunk;
  }
}

async function seed(sql: Client, tenantId: string, rows: number, seedNumber: number) {
  const started = performance.now();
  await pipeline(
    Readable.from(csvRows('leads', tenantId, rows, seedNumber)),
    sql.query(
      copyFrom(
        `COPY crm_leads (tenant_id, email, first_name, last_name, phone, status, source, custom_fields, created_at, updated_at)
         FROM STDIN WITH (FORMAT csv)`,
      ),
    ),
  );
  // The export reads leads alone: an export-only run seeds no contacts.
  if (EXPORT_ONLY) return performance.now() - started;
  await pipeline(
    Readable.from(csvRows('contacts', tenantId, rows, seedNumber + 1)),
    sql.query(
      copyFrom(
        `COPY crm_contacts (tenant_id, email, first_name, last_name, phone, company, title, custom_fields, created_at, updated_at)
         FROM STDIN WITH (FORMAT csv)`,
      ),
    ),
  );
  return performance.now() - started;
}

/** Resident memory of a process now, in MB (VmRSS of /proc/<pid>/status). */
function vmRssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number((Number(line?.replace(/\D+/g, '') ?? 0) / 1024).toFixed(1));
}

interface Tenant {
  name: string;
  id: string;
  userId: string;
  cookie: string;
  rows: number;
}

async function signUp(gatewayUrl: string, name: string): Promise<Tenant> {
  const res = await fetch(`${gatewayUrl}/api/auth/sign-up`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email: `owner-${name.toLowerCase()}-${process.pid}@bench.example`,
      password: 'bench-password-123',
      name: `Owner ${name}`,
      tenantName: `Scale ${name}`,
    }),
  });
  if (res.status !== 201) throw new Error(`sign-up answered ${res.status}`);
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const { tenant, user } = (
    (await res.json()) as { data: { tenant: { id: string }; user: { id: string } } }
  ).data;
  return { name, id: tenant.id, userId: user.id, cookie, rows: 0 };
}

async function getJson(url: string, cookie: string): Promise<Record<string, unknown>> {
  const res = await fetch(url, { headers: { cookie } });
  const body = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200)
    throw new Error(`GET ${url} answered ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** Sequential requests of `path(i)` as the tenant's owner: a warm-up, then timed samples. */
async function timed(gatewayUrl: string, tenant: Tenant, path: (i: number) => string) {
  for (let i = 0; i < WARM_UP_REQUESTS; i++)
    await getJson(`${gatewayUrl}${path(i)}`, tenant.cookie);
  const ms: number[] = [];
  const began = performance.now();
  for (let i = 0; i < SAMPLES; i++) {
    if (i >= 10 && performance.now() - began > SAMPLE_BUDGET_MS) break;
    const started = performance.now();
    await getJson(`${gatewayUrl}${path(i)}`, tenant.cookie);
    ms.push(performance.now() - started);
  }
  return latency(ms);
}

/** The CSV export of all the tenant's leads: rows/s, and crm-api's and the gateway's RSS. */
async function exportAll(
  baseUrl: string,
  tenant: Tenant,
  crmApi: number,
  gateway: number,
  headers: Record<string, string> = { cookie: tenant.cookie },
) {
  const before = { crmApi: vmRssMb(crmApi), gateway: vmRssMb(gateway) };
  const peak = { ...before };
  const sampler = setInterval(() => {
    peak.crmApi = Math.max(peak.crmApi, vmRssMb(crmApi));
    peak.gateway = Math.max(peak.gateway, vmRssMb(gateway));
  }, 50);
  const started = performance.now();
  let lines = 0;
  let bytes = 0;
  let firstByteMs = 0;
  try {
    const res = await fetch(`${baseUrl}/api/exports`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ resource: 'leads', format: 'csv' }),
    });
    if (res.status !== 200 || !res.body) throw new Error(`export answered ${res.status}`);
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      if (bytes === 0) firstByteMs = performance.now() - started;
      bytes += chunk.length;
      lines += newlines(chunk);
    }
  } finally {
    clearInterval(sampler);
  }
  const seconds = (performance.now() - started) / 1000;
  const rows = lines - 1;
  if (rows !== tenant.rows)
    throw new Error(`export of ${tenant.name} gave ${rows} rows, not ${tenant.rows}`);
  return {
    rows,
    seconds: Number(seconds.toFixed(2)),
    rowsPerSecond: Math.round(rows / seconds),
    firstByteMs: Math.round(firstByteMs),
    megabytes: Number((bytes / 2 ** 20).toFixed(1)),
    rssBeforeMb: before,
    rssPeakMb: peak,
  };
}

/** Line ends in a chunk, by indexOf: the client should cost the shared CPU as little as it can. */
function newlines(chunk: Uint8Array): number {
  let count = 0;
  for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) count++;
  return count;
}

/**
 * The export's baseline: Postgres alone writing the same rows, in the same order, as CSV
 * (`COPY (SELECT ...) TO STDOUT`, as the bench's superuser: no row-level security, no HTTP).
 */
async function copyOut(sql: Client, tenant: Tenant) {
  const started = performance.now();
  let lines = 0;
  const stream = sql.query(
    copyTo(`COPY (SELECT id, email, first_name, last_name, phone, status, source, custom_fields,
                         created_at, updated_at
                    FROM crm_leads WHERE tenant_id = '${tenant.id}'
                   ORDER BY created_at DESC, id DESC) TO STDOUT WITH (FORMAT csv, HEADER)`),
  );
  for await (const chunk of stream as AsyncIterable<Buffer>) lines += newlines(chunk);
  const seconds = (performance.now() - started) / 1000;
  return {
    rows: lines - 1,
    seconds: Number(seconds.toFixed(2)),
    rowsPerSecond: Math.round((lines - 1) / seconds),
  };
}

/** The requests measured for one tenant. */
async function measureTenant(gatewayUrl: string, sql: Client, tenant: Tenant) {
  const leads = `/api/crm/leads`;
  const contacts = `/api/crm/contacts`;
  const figures: Record<string, Latency> = {};
  const measureOne = async (key: string, path: (i: number) => string) => {
    figures[key] = await timed(gatewayUrl, tenant, path);
    process.stderr.write(
      `  ${tenant.name} ${key}: p50 ${figures[key].p50Ms} ms, p99 ${figures[key].p99Ms} ms (${figures[key].samples})\n`,
    );
  };

  await measureOne('leads, first page', () => leads);
  await measureOne('leads, status filter', () => `${leads}?status=qualified`);
  await measureOne('leads, sort by email', () => `${leads}?sortBy=email&sortOrder=asc`);

  // A cursor deep in the list: 50 pages of 100 in (half the list when it is shorter), then the
  // next page from there, and the pages walked on the way.
  const pages = Math.min(50, Math.floor(tenant.rows / 100 / 2));
  let cursor = '';
  const walk: number[] = [];
  for (let p = 0; p < pages; p++) {
    const started = performance.now();
    const page = await getJson(
      `${gatewayUrl}${leads}?pageSize=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      tenant.cookie,
    );
    walk.push(performance.now() - started);
    cursor = String(page.nextCursor);
  }
  figures['leads, cursor walk (pages of 100)'] = latency(walk);
  await measureOne(
    `leads, next page from row ${pages * 100}`,
    () => `${leads}?pageSize=100&cursor=${encodeURIComponent(cursor)}`,
  );

  // q has no index: a common name matches at once, a rare one reads the tenant's leads.
  await measureOne('leads, q common (a first name)', () => `${leads}?q=grace`);
  const { rows: rare } = await sql.query<{ email: string }>(
    `SELECT email FROM crm_leads WHERE tenant_id = $1 ORDER BY created_at LIMIT 1`,
    [tenant.id],
  );
  await measureOne(
    'leads, q rare (the oldest lead)',
    () => `${leads}?q=${encodeURIComponent(rare[0].email)}`,
  );

  await measureOne('contacts, first page', () => contacts);
  await measureOne('contacts, q prefix', () => `${contacts}?q=margaret.hopper`);

  // A record and its timeline: 200 leads taken at random, each with 5 activities.
  const sample = async (table: 'crm_leads' | 'crm_contacts') => {
    // TABLESAMPLE keeps the pick cheap at a million rows; a small tenant may miss the sample.
    const { rows } = await sql.query<{ id: string }>(
      `SELECT id FROM ${table} TABLESAMPLE SYSTEM (2) WHERE tenant_id = $1 ORDER BY random() LIMIT 200`,
      [tenant.id],
    );
    if (rows.length >= 50) return rows.map((r) => r.id);
    const all = await sql.query<{ id: string }>(
      `SELECT id FROM ${table} WHERE tenant_id = $1 ORDER BY random() LIMIT 200`,
      [tenant.id],
    );
    return all.rows.map((r) => r.id);
  };
  const leadIds = await sample('crm_leads');
  const contactIds = await sample('crm_contacts');
  const pairs = Math.min(leadIds.length, contactIds.length);
  const chosen = Array.from({ length: pairs }, (_, i) => ({
    id: leadIds[i],
    contact: contactIds[i],
  }));
  await sql.query(
    `INSERT INTO crm_activities (tenant_id, type, subject, occurred_at, lead_id, contact_id)
     SELECT $1, (ARRAY['call','email','meeting','note','task'])[k], 'Bench activity ' || k,
            now() - k * interval '1 day', ids.lead, ids.contact
       FROM unnest($2::uuid[], $3::uuid[]) AS ids(lead, contact), generate_series(1, 5) k`,
    [tenant.id, chosen.map((c) => c.id), chosen.map((c) => c.contact)],
  );
  const lead = (i: number) => chosen[i % chosen.length].id;
  await measureOne('lead detail', (i) => `${leads}/${lead(i)}`);
  await measureOne('lead timeline', (i) => `${leads}/${lead(i)}/timeline`);
  await measureOne(
    'contact timeline',
    (i) => `${contacts}/${chosen[i % chosen.length].contact}/timeline`,
  );
  return figures;
}

/** One crm-api and gateway pair whose export is measured. */
interface Build {
  name: 'before' | 'after';
  crmApiUrl: string;
  gatewayUrl: string;
  crmApi: number;
  gateway: number;
}

type ExportFigure = Awaited<ReturnType<typeof exportAll>>;

interface ExportRound {
  copyOut: Awaited<ReturnType<typeof copyOut>>;
  builds: Partial<Record<Build['name'], { throughGateway: ExportFigure; straight: ExportFigure }>>;
}

export interface ScaleOptions {
  adminUrl: string;
  ports: Record<string, number>;
  envOf: (service: string) => Record<string, string>;
  /** The API's figures and the export (`ONLY=scale`); without it, the seeding serves the console. */
  api?: boolean;
  /** The console's figures of console.ts (`ONLY=console`), on the same seeding and stack. */
  console?: boolean;
}

export async function recordsAtScale({
  adminUrl,
  ports,
  envOf,
  api = true,
  console: measureConsole = false,
}: ScaleOptions) {
  const dbName = `crm_bench_scale_${process.pid}`;
  const databaseUrl = withDatabase(adminUrl, dbName);
  const started: ChildProcess[] = [];
  const sql = new Client({ connectionString: databaseUrl });
  try {
    await ensureDatabase(adminUrl, dbName);
    const database = createDb({ connectionString: databaseUrl, maxConnections: 2 });
    try {
      await migrateToLatest(database.db);
    } finally {
      await database.close();
    }
    await sql.connect();
    const env = (service: string): Record<string, string> => ({
      ...envOf(service),
      DATABASE_URL: databaseUrl,
    });
    for (const service of ['crm-api', 'gateway'])
      started.push(await startService(service, ports[service], env(service)));
    const [crmApi, gateway] = started;
    const gatewayUrl = `http://127.0.0.1:${ports.gateway}`;
    // The build before the change, on ports of its own and the same database (and sessions).
    const builds: Build[] = [
      {
        name: 'after',
        crmApiUrl: `http://127.0.0.1:${ports['crm-api']}`,
        gatewayUrl,
        crmApi: crmApi.pid ?? 0,
        gateway: gateway.pid ?? 0,
      },
    ];
    if (BEFORE_ROOT) {
      const crmPort = await freePort();
      const gatewayPort = await freePort();
      const crmApiUrl = `http://127.0.0.1:${crmPort}`;
      const beforeCrm = await startService(
        'crm-api',
        crmPort,
        { ...env('crm-api'), CRM_API_PORT: String(crmPort) },
        BEFORE_ROOT,
      );
      started.push(beforeCrm);
      const beforeGateway = await startService(
        'gateway',
        gatewayPort,
        { ...env('gateway'), GATEWAY_PORT: String(gatewayPort), CRM_API_URL: crmApiUrl },
        BEFORE_ROOT,
      );
      started.push(beforeGateway);
      builds.unshift({
        name: 'before',
        crmApiUrl,
        gatewayUrl: `http://127.0.0.1:${gatewayPort}`,
        crmApi: beforeCrm.pid ?? 0,
        gateway: beforeGateway.pid ?? 0,
      });
    }

    const a = await signUp(gatewayUrl, 'A');
    const b = await signUp(gatewayUrl, 'B');
    const c = await signUp(gatewayUrl, 'C');
    const seeding: Record<string, number> = {};
    for (const [tenant, rows, seedNumber] of [
      [a, SCALE_ROWS, 1],
      [b, OTHER_TENANT_ROWS, 11],
      [c, BASELINE_ROWS, 21],
    ] as const) {
      process.stderr.write(
        `  COPY ${rows} leads${EXPORT_ONLY ? '' : ` and ${rows} contacts`} into tenant ${tenant.name}\n`,
      );
      tenant.rows = rows;
      seeding[tenant.name] = Math.round(await seed(sql, tenant.id, rows, seedNumber));
    }
    // COPY announces no events, so the lead search index (filled by crm-api's indexer from
    // them) is filled here, as the tests' seeders fill it.
    const indexStarted = performance.now();
    await sql.query(FILL_LEAD_SEARCH_TEXTS);
    seeding.searchIndex = Math.round(performance.now() - indexStarted);
    const analyzeStarted = performance.now();
    await sql.query('ANALYZE');
    seeding.analyze = Math.round(performance.now() - analyzeStarted);
    const seedMs = Object.values(seeding).reduce((sum, v) => sum + v, 0);
    process.stderr.write(`  seeded and analysed in ${(seedMs / 1000).toFixed(1)} s\n`);

    // First, before the API's figures add activities and warm Postgres's caches for them.
    const consoleFigures = measureConsole ? await consoleAtScale(gatewayUrl, sql, a, c) : undefined;
    const base = {
      rows: { A: SCALE_ROWS, B: OTHER_TENANT_ROWS, C: BASELINE_ROWS },
      seedingMs: seeding,
      console: consoleFigures,
    };
    if (!api)
      return { ...base, samplesPerFigure: 0, figures: { A: {}, C: {} }, exports: undefined };

    const figures: Record<'A' | 'C', Record<string, Latency>> = EXPORT_ONLY
      ? { A: {}, C: {} }
      : {
          A: await measureTenant(gatewayUrl, sql, a),
          C: await measureTenant(gatewayUrl, sql, c),
        };
    const identity = {
      'x-crm-identity': signIdentity(
        { userId: a.userId, tenantId: a.id, role: 'owner' },
        env('crm-api').INTERNAL_TOKEN_SECRET,
        { ttlSeconds: 3600 },
      ),
    };
    // Each round: Postgres alone, then every build through the gateway and straight to crm-api
    // (where the time goes), builds alternating so the machine's drift hits them alike.
    const rounds: ExportRound[] = [];
    for (let round = 0; round < EXPORT_ROUNDS; round++) {
      process.stderr.write(`  CSV export of all leads, round ${round + 1} of ${EXPORT_ROUNDS}\n`);
      const copied = await copyOut(sql, a);
      process.stderr.write(`    Postgres COPY alone: ${copied.rowsPerSecond} rows/s\n`);
      const byBuild: ExportRound['builds'] = {};
      for (const build of round % 2 === 0 ? builds : [...builds].reverse()) {
        const throughGateway = await exportAll(build.gatewayUrl, a, build.crmApi, build.gateway);
        const straight = await exportAll(build.crmApiUrl, a, build.crmApi, build.gateway, identity);
        byBuild[build.name] = { throughGateway, straight };
        process.stderr.write(
          `    ${build.name}: through the gateway ${throughGateway.rowsPerSecond} rows/s, straight to crm-api ${straight.rowsPerSecond} rows/s, crm-api RSS ${throughGateway.rssBeforeMb.crmApi} -> ${throughGateway.rssPeakMb.crmApi} MB\n`,
        );
      }
      rounds.push({ copyOut: copied, builds: byBuild });
    }
    const last = rounds[rounds.length - 1].builds.after;
    if (!last) throw new Error('SCALE_EXPORT_ROUNDS must be at least 1');
    const exports = {
      A: last.throughGateway,
      C: await exportAll(gatewayUrl, c, crmApi.pid ?? 0, gateway.pid ?? 0),
      AStraightToCrmApi: last.straight,
      ACopyOut: rounds[rounds.length - 1].copyOut,
      rounds,
    };
    return {
      ...base,
      samplesPerFigure: SAMPLES,
      figures,
      exports,
    };
  } finally {
    for (const child of started.reverse()) await stopProcess(child);
    await sql.end().catch(() => undefined);
    await dropDatabase(adminUrl, dbName).catch(() => undefined);
  }
}

/** Which figures have a target at scale, and which: p99 under 50 ms, a record under 20 ms. */
function targetOf(key: string): number | undefined {
  if (key.startsWith('lead detail') || key.includes('timeline')) return 20;
  if (key.includes('cursor walk')) return undefined;
  return 50;
}

/** One row per figure: tenant A's p99 beside tenant C's (the same request at 1,000 rows). */
export function scaleRows(result: Awaited<ReturnType<typeof recordsAtScale>>): Row[] {
  const rows: Row[] = [];
  for (const [key, a] of Object.entries(result.figures.A)) {
    const c = Object.entries(result.figures.C).find(
      ([other]) =>
        other === key ||
        (key.startsWith('leads, next page') && other.startsWith('leads, next page')),
    )?.[1];
    const target = targetOf(key);
    rows.push({
      scenario: `${key}, p99 at ${result.rows.A} vs ${result.rows.C}`,
      figure: a.p99Ms,
      baseline: c?.p99Ms,
      unit: 'ms',
      ratio: c ? Number((a.p99Ms / c.p99Ms).toFixed(1)) : undefined,
      target: target === undefined ? '-' : `< ${target}`,
      holds: target === undefined ? true : a.p99Ms < target,
    });
  }
  if (!result.exports) return rows;
  const { A, C, rounds } = result.exports;
  const mean = (values: number[]) =>
    Math.round(values.reduce((sum, v) => sum + v, 0) / values.length);
  // Over the rounds: mean rows/s, highest peak.
  const over = (build: Build['name'], path: 'throughGateway' | 'straight') => {
    const figures = rounds.flatMap((r) => r.builds[build]?.[path] ?? []);
    if (figures.length === 0) return undefined;
    return {
      rowsPerSecond: mean(figures.map((f) => f.rowsPerSecond)),
      rssBeforeMb: Math.min(...figures.map((f) => f.rssBeforeMb.crmApi)),
      rssPeakMb: Math.max(...figures.map((f) => f.rssPeakMb.crmApi)),
    };
  };
  const after = { gateway: over('after', 'throughGateway'), straight: over('after', 'straight') };
  const before = {
    gateway: over('before', 'throughGateway'),
    straight: over('before', 'straight'),
  };
  const copied = mean(rounds.map((r) => r.copyOut.rowsPerSecond));
  const n = rounds.length > 1 ? `, mean of ${rounds.length} rounds` : '';
  rows.push({
    scenario: `CSV export of all leads through the gateway, ${result.rows.A} vs ${result.rows.C}${n}`,
    figure: after.gateway?.rowsPerSecond ?? A.rowsPerSecond,
    baseline: C.rowsPerSecond,
    unit: 'rows/s',
    ratio: Number(((after.gateway?.rowsPerSecond ?? A.rowsPerSecond) / C.rowsPerSecond).toFixed(1)),
    target: '>= 100000',
    holds: (after.gateway?.rowsPerSecond ?? A.rowsPerSecond) >= 100_000,
  });
  for (const [path, label] of [
    ['gateway', 'through the gateway'],
    ['straight', 'straight to crm-api'],
  ] as const) {
    const now = after[path];
    const then = before[path];
    if (now && then)
      rows.push({
        scenario: `CSV export of ${result.rows.A} ${label}: this build vs the one before${n}`,
        figure: now.rowsPerSecond,
        baseline: then.rowsPerSecond,
        unit: 'rows/s',
        ratio: Number((now.rowsPerSecond / then.rowsPerSecond).toFixed(2)),
        target: '-',
        holds: true,
      });
  }
  for (const [build, figures] of [
    ['this build', after],
    ['the build before', before],
  ] as const) {
    if (!figures.straight) continue;
    rows.push({
      scenario: `CSV export of ${result.rows.A} straight to crm-api (${build}) vs Postgres COPY alone${n}`,
      figure: figures.straight.rowsPerSecond,
      baseline: copied,
      unit: 'rows/s',
      ratio: Number((figures.straight.rowsPerSecond / copied).toFixed(2)),
      target: '-',
      holds: true,
    });
  }
  for (const [build, figures] of [
    ['this build', after],
    ['the build before', before],
  ] as const) {
    if (!figures.gateway) continue;
    rows.push({
      scenario: `crm-api RSS during the exports of ${result.rows.A} (${build}), peak vs before`,
      figure: figures.gateway.rssPeakMb,
      baseline: figures.gateway.rssBeforeMb,
      unit: 'MB',
      ratio: Number((figures.gateway.rssPeakMb / figures.gateway.rssBeforeMb).toFixed(2)),
      target: 'flat',
      holds: figures.gateway.rssPeakMb - figures.gateway.rssBeforeMb < 100,
    });
  }
  return rows;
}
