/**
 * The web console at scale (`ONLY=console npm run bench:stack`, or `ONLY=scale,console` for both
 * on one seeding): run by scale.ts on its seeded database and its started gateway, which serves
 * the console's build (services/console/dist, built by `npm run build`).
 *
 * - The initial JavaScript: the files index.html loads at first (its module script and its
 *   modulepreload links), each gzipped with node:zlib at its default level, summed.
 * - In headless Chromium (the test kit's launchChromium), signed in as the tenant's owner through
 *   the `crm_session` cookie: the time from navigating to /leads until the table's first rows are
 *   in the page, each in a fresh browser context (a first visit: nothing cached), after one visit
 *   not counted; then, on the last of those pages, the time from the last keystroke in the
 *   `Search` box until the table shows only the search's rows, for a rare term (one lead's exact
 *   email) and a common one (a first name), a different term each sample so that no answer comes
 *   from the console's query cache. The search includes the box's 250 ms debounce: it is what the
 *   user waits.
 *
 * Both times are read inside the page (performance.now()): a script added to every document
 * records when the first row appears and when the rows first all match the search term (on each
 * DOM change, by a MutationObserver), and the time of the last keydown. So Playwright's own round
 * trips are not in the figures. Never part of a test: figures only, no assertions on time.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import type { Client } from 'pg';
import { addSessionCookies, launchChromium } from '../../../libs/test-kit/src/browser';
import type { Row } from './report';

const CONSOLE_DIST = join(__dirname, '..', '..', '..', 'services', 'console', 'dist');
/** Samples per figure; the task's figures are the median and the max of these. */
const SAMPLES = Number(process.env.CONSOLE_SAMPLES ?? 5);
const INITIAL_JS_BUDGET_KB = 250;
const FIRST_ROWS_TARGET_MS = 1000;
const SEARCH_TARGET_MS = 300;
/** First names of the seeded people (scale.ts's FIRST): each matches about 1 lead in 30. */
const COMMON_TERMS = ['grace', 'alan', 'linus', 'margaret', 'barbara', 'donald', 'radia'];
/** A search at a million rows may take seconds; waiting longer than this is a failure. */
const WAIT_MS = 120_000;

export interface ConsoleTenant {
  name: string;
  id: string;
  cookie: string;
  rows: number;
}

/** The files index.html loads before anything else runs, and their gzipped sizes. */
export function initialJavaScript(dist = CONSOLE_DIST) {
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  const sources = [
    ...[...html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1]),
    ...[...html.matchAll(/<link\b[^>]*\brel="modulepreload"[^>]*>/g)]
      .map((m) => /\bhref="([^"]+)"/.exec(m[0])?.[1])
      .filter((href): href is string => Boolean(href)),
  ];
  if (sources.length === 0) throw new Error(`no script in ${dist}/index.html: build the console`);
  const files = [...new Set(sources)].map((src) => {
    const bytes = readFileSync(join(dist, src.replace(/^\//, '')));
    return { file: src, kb: kb(bytes.length), gzippedKb: kb(gzipSync(bytes).length) };
  });
  const gzippedKb = Number(files.reduce((sum, f) => sum + f.gzippedKb, 0).toFixed(1));
  const rawKb = Number(files.reduce((sum, f) => sum + f.kb, 0).toFixed(1));
  return { files, rawKb, gzippedKb };
}

function kb(bytes: number) {
  return Number((bytes / 1024).toFixed(1));
}

/**
 * Added to every document before its own scripts (over the DevTools protocol, so the console's
 * CSP does not apply): the in-page clocks the figures are read from.
 */
const PAGE_CLOCKS = `(() => {
  const w = window;
  const rows = () => Array.from(document.querySelectorAll('table tbody tr[aria-rowindex]'));
  const check = () => {
    const shown = rows();
    if (shown.length === 0) return;
    if (w.__firstRowsAt === undefined) w.__firstRowsAt = performance.now();
    if (w.__term && w.__searchDoneAt === undefined &&
        shown.every((tr) => tr.textContent.toLowerCase().includes(w.__term)))
      w.__searchDoneAt = performance.now();
  };
  new MutationObserver(check).observe(document, { childList: true, subtree: true, characterData: true });
  document.addEventListener('keydown', () => { w.__lastKeyAt = performance.now(); }, true);
})();`;

export interface Spread {
  samples: number[];
  medianMs: number;
  maxMs: number;
}

function spread(ms: number[]): Spread {
  const sorted = [...ms].sort((x, y) => x - y);
  return {
    samples: ms.map((v) => Math.round(v)),
    medianMs: Math.round(sorted[Math.floor((sorted.length - 1) / 2)]),
    maxMs: Math.round(sorted[sorted.length - 1]),
  };
}

/** What PAGE_CLOCKS keeps on the page's window (typed here: the scripts have no DOM types). */
interface PageClocks {
  __firstRowsAt?: number;
  __lastKeyAt?: number;
  __term?: string;
  __searchDoneAt?: number;
  document: {
    querySelectorAll(selector: string): ArrayLike<{ textContent: string | null }>;
  };
  performance: {
    getEntriesByType(type: string): {
      name: string;
      startTime: number;
      responseEnd: number;
      domContentLoadedEventEnd?: number;
    }[];
  };
}

/** Where a first visit's time went: the document, its scripts run, each API request. */
export interface Breakdown {
  documentMs: number;
  domContentLoadedMs: number;
  requests: { path: string; startMs: number; endMs: number }[];
}

/*
 * The predicates are functions, not strings: Playwright evaluates a string with eval, which the
 * console's CSP (no 'unsafe-eval') refuses; a function goes over the DevTools protocol.
 */

/** Navigation to /leads until the first rows, in a fresh context: milliseconds, and the page. */
async function firstRows(browser: Browser, gatewayUrl: string, cookie: string) {
  const context = await browser.newContext();
  await addSessionCookies(context, cookie, gatewayUrl);
  await context.addInitScript(PAGE_CLOCKS);
  const page = await context.newPage();
  await page.goto(`${gatewayUrl}/leads`, { waitUntil: 'commit' });
  const at = await page.waitForFunction(
    () => (globalThis as unknown as PageClocks).__firstRowsAt,
    null,
    { timeout: WAIT_MS },
  );
  const breakdown = await page.evaluate((): Breakdown => {
    const { performance } = globalThis as unknown as PageClocks;
    const [nav] = performance.getEntriesByType('navigation');
    return {
      documentMs: Math.round(nav.responseEnd),
      domContentLoadedMs: Math.round(nav.domContentLoadedEventEnd ?? 0),
      requests: performance
        .getEntriesByType('resource')
        .filter((r) => r.name.includes('/api/') || r.name.includes('/assets/'))
        .map((r) => ({
          path: new URL(r.name).pathname,
          startMs: Math.round(r.startTime),
          endMs: Math.round(r.responseEnd),
        })),
    };
  });
  return { ms: Number(await at.jsonValue()), page, breakdown };
}

/** Types `term` into Search; the time from its last keystroke until only its rows show. */
async function search(page: Page, term: string): Promise<number> {
  const box = page.getByLabel('Search');
  const lower = term.toLowerCase();
  // Back to the whole list first (from the console's cache), so the search starts from rows that
  // do not match it.
  await box.fill('');
  await page.waitForFunction(
    (t) => {
      const rows = Array.from(
        (globalThis as unknown as PageClocks).document.querySelectorAll(
          'table tbody tr[aria-rowindex]',
        ),
      );
      return rows.length > 1 && !rows.every((tr) => tr.textContent?.toLowerCase().includes(t));
    },
    lower,
    { timeout: WAIT_MS },
  );
  await page.evaluate((t) => {
    const w = globalThis as unknown as PageClocks;
    w.__term = t;
    w.__searchDoneAt = undefined;
  }, lower);
  await box.pressSequentially(term);
  const took = await page.waitForFunction(
    () => {
      const w = globalThis as unknown as PageClocks;
      return w.__searchDoneAt === undefined ? 0 : w.__searchDoneAt - (w.__lastKeyAt ?? 0);
    },
    null,
    { timeout: WAIT_MS },
  );
  return Number(await took.jsonValue());
}

async function measureTenant(
  browser: Browser,
  gatewayUrl: string,
  sql: Client,
  tenant: ConsoleTenant,
) {
  // One visit not counted: the services' first requests (their JIT, Postgres's caches).
  const warm = await firstRows(browser, gatewayUrl, tenant.cookie);
  await warm.page.context().close();
  const loads: number[] = [];
  const breakdowns: Breakdown[] = [];
  let page: Page | undefined;
  for (let i = 0; i < SAMPLES; i++) {
    await page?.context().close();
    const visit = await firstRows(browser, gatewayUrl, tenant.cookie);
    loads.push(visit.ms);
    breakdowns.push(visit.breakdown);
    page = visit.page;
  }
  if (!page) throw new Error('CONSOLE_SAMPLES must be at least 1');
  process.stderr.write(`  console ${tenant.name} first rows: ${loads.map(Math.round)} ms\n`);
  const { rows } = await sql.query<{ email: string }>(
    `SELECT email FROM crm_leads TABLESAMPLE SYSTEM (5) WHERE tenant_id = $1 LIMIT $2`,
    [tenant.id, SAMPLES],
  );
  const emails =
    rows.length >= SAMPLES
      ? rows.map((r) => r.email)
      : (
          await sql.query<{ email: string }>(
            `SELECT email FROM crm_leads WHERE tenant_id = $1 ORDER BY random() LIMIT $2`,
            [tenant.id, SAMPLES],
          )
        ).rows.map((r) => r.email);
  const rare: number[] = [];
  for (const email of emails) rare.push(await search(page, email));
  process.stderr.write(`  console ${tenant.name} search, rare: ${rare.map(Math.round)} ms\n`);
  const common: number[] = [];
  for (let i = 0; i < SAMPLES; i++)
    common.push(await search(page, COMMON_TERMS[i % COMMON_TERMS.length]));
  process.stderr.write(`  console ${tenant.name} search, common: ${common.map(Math.round)} ms\n`);
  await page.context().close();
  return {
    rows: tenant.rows,
    firstRows: { ...spread(loads), breakdowns },
    searchRare: { terms: emails, ...spread(rare) },
    searchCommon: {
      terms: Array.from({ length: SAMPLES }, (_, i) => COMMON_TERMS[i % COMMON_TERMS.length]),
      ...spread(common),
    },
  };
}

export async function consoleAtScale(
  gatewayUrl: string,
  sql: Client,
  big: ConsoleTenant,
  small: ConsoleTenant,
) {
  const initial = initialJavaScript();
  process.stderr.write(`  console initial JavaScript: ${initial.gzippedKb} KB gzipped\n`);
  const browser = await launchChromium();
  try {
    return {
      initialJavaScript: initial,
      samples: SAMPLES,
      big: await measureTenant(browser, gatewayUrl, sql, big),
      small: await measureTenant(browser, gatewayUrl, sql, small),
    };
  } finally {
    await browser.close();
  }
}

export type ConsoleResult = Awaited<ReturnType<typeof consoleAtScale>>;

/** The table's rows: the budget, then each time's median and max, big tenant beside small. */
export function consoleRows(result: ConsoleResult): Row[] {
  const { big, small, samples } = result;
  const rows: Row[] = [
    {
      scenario: `console initial JavaScript, gzipped (${result.initialJavaScript.files.length} files)`,
      figure: result.initialJavaScript.gzippedKb,
      unit: 'KB',
      target: `<= ${INITIAL_JS_BUDGET_KB}`,
      holds: result.initialJavaScript.gzippedKb <= INITIAL_JS_BUDGET_KB,
    },
  ];
  for (const [key, label, target] of [
    ['firstRows', '/leads: navigation to first rows', FIRST_ROWS_TARGET_MS],
    ['searchRare', 'leads Search, last key to rows, rare (an email)', SEARCH_TARGET_MS],
    ['searchCommon', 'leads Search, last key to rows, common (a first name)', SEARCH_TARGET_MS],
  ] as const) {
    for (const stat of ['medianMs', 'maxMs'] as const) {
      const figure = big[key][stat];
      const baseline = small[key][stat];
      rows.push({
        scenario: `console ${label}, ${stat === 'medianMs' ? 'median' : 'max'} of ${samples} at ${big.rows} vs ${small.rows}`,
        figure,
        baseline,
        unit: 'ms',
        ratio: Number((figure / Math.max(1, baseline)).toFixed(1)),
        target: `< ${target}`,
        holds: figure < target,
      });
    }
  }
  return rows;
}
