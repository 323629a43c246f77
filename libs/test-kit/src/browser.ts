import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  chromium,
  type Browser,
  type BrowserContext,
  type Download,
  type Page,
} from 'playwright-core';

/*
 * The browser tests' harness: Debian's `chromium` driven by playwright-core, what a page got
 * wrong collected as it happens, screenshots under artifacts/, and axe-core's findings.
 */
const CHROMIUM = '/usr/bin/chromium';
/** The repository's artifacts/ folder, where CI keeps the screenshots. */
const ARTIFACTS = join(__dirname, '../../../artifacts');

/** Headless Chromium; throws, saying how to install it, when /usr/bin/chromium is missing. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: apt-get install -y chromium (see CONTRIBUTING.md, Tests)`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/** Gives the context the session of a `Cookie` header (`name=value; name=value`) for `url`. */
export async function addSessionCookies(
  context: BrowserContext,
  cookie: string,
  url: string,
): Promise<void> {
  await context.addCookies(
    cookie.split('; ').map((pair) => {
      const at = pair.indexOf('=');
      return { name: pair.slice(0, at), value: pair.slice(at + 1), url };
    }),
  );
}

/** What a test expects to go wrong on its page, and so is not a problem. */
export interface ExpectedFailures {
  /**
   * A 4xx or 5xx answer the test expects; the console error Chromium logs for it ("... status
   * of 401 ...", located at the answered URL) is then expected too.
   */
  response?: (url: string, status: number) => boolean;
  /** Requests cancelled on purpose (net::ERR_ABORTED) are not problems. */
  aborted?: boolean;
}

/**
 * The 401s a signed-out visit to the console gets by design: GET /api/auth/me (that is how it
 * knows to show sign-in) and, on / and /leads, the opening page of leads, asked for beside the
 * session before it is known, so that a signed-in visit does not wait for one before the other.
 */
export function isSignedOutAnswer(url: string, status: number): boolean {
  return status === 401 && (new URL(url).pathname === '/api/auth/me' || isOpeningLeadsPage(url));
}

/**
 * The console's opening page of leads, which it asks for beside the session before knowing
 * whether there is one (or a tenant to read).
 */
export function isOpeningLeadsPage(url: string): boolean {
  const { pathname, search } = new URL(url);
  return (
    pathname === '/api/crm/leads' && search === '?pageSize=50&sortBy=created_at&sortOrder=desc'
  );
}

/**
 * Collects, from now on, every console error, page error, failed request, 4xx or 5xx answer
 * and answer from outside `origin` that `allow` does not expect. The array returned fills as
 * the page goes; a test ends by expecting it empty.
 */
export function watchForProblems(
  page: Page,
  { origin, allow = {} }: { origin: string; allow?: ExpectedFailures },
): string[] {
  const problems: string[] = [];
  const expected = (url: string, status: number) => allow.response?.(url, status) ?? false;
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    const status = /status of (\d{3})/.exec(m.text())?.[1];
    const url = m.location().url;
    if (status && url && expected(url, Number(status))) return;
    problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => {
    if (allow.aborted && r.failure()?.errorText === 'net::ERR_ABORTED') return;
    problems.push(`failed: ${r.url()} ${r.failure()?.errorText}`);
  });
  page.on('response', (r) => {
    if (r.status() >= 400 && !expected(r.url(), r.status())) {
      problems.push(`${r.status()}: ${r.url()}`);
    }
    if (!r.url().startsWith(origin)) problems.push(`off-origin: ${r.url()}`);
  });
  return problems;
}

/** Saves the page as artifacts/<name>.png. */
export async function saveScreenshot(
  page: Page,
  name: string,
  options: { fullPage?: boolean } = {},
): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), ...options });
}

/** axe-core's serious and critical findings on the page as it is. */
export async function seriousAxeViolations(page: Page): Promise<string[]> {
  const axe = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  // Evaluated over the DevTools protocol: a page's strict CSP allows no injected script tag.
  await page.evaluate(axe);
  return (await page.evaluate(`axe.run().then((results) =>
    results.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => v.id + ': ' + v.help + ' (' + v.nodes.length + ')'))`)) as string[];
}

/** Fills the console's labelled sign-in form and sends it (the caller waits for what follows). */
export async function signInThroughConsole(
  page: Page,
  email: string,
  password: string,
): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/**
 * Does `click` and reads back, whole, the file the page downloads because of it (the page's
 * context needs `acceptDownloads`). Listening starts before the click, so no download is missed.
 */
export async function downloadFrom(
  page: Page,
  click: () => Promise<void>,
): Promise<{ download: Download; body: Buffer }> {
  const [download] = await Promise.all([page.waitForEvent('download'), click()]);
  return { download, body: await readFile((await download.path()) as string) };
}

/**
 * A gate the test opens: a request held in `page.route` awaits `opened` until the test calls
 * `open()`, so a screen can be looked at mid-request without waiting on time.
 */
export function gate(): { opened: Promise<void>; open: () => void } {
  let open = () => undefined as void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}
