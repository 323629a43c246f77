import { execFile } from 'node:child_process';
import { join } from 'node:path';

/**
 * `npm run migrate:push -- --help` crashed with ERR_PARSE_ARGS_UNKNOWN_OPTION and a stack
 * trace. It prints its usage now, and every mistake with it or with `npm run migrate` is one
 * line on stderr and a non-zero exit.
 */
const ROOT = join(__dirname, '..', '..', '..');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
const PUSH = 'services/migrate/src/push/migrate-push.ts';
const MIGRATE = 'libs/shared/src/db/migrate-cli.ts';

function run(
  script: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      TSX,
      [script, ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 30_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Exactly one line, without a stack frame. */
function expectOneLine(stderr: string): void {
  expect(stderr.endsWith('\n')).toBe(true);
  expect(stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(stderr).not.toMatch(/\n\s+at /);
}

describe('npm run migrate:push', () => {
  it.each([['--help'], ['-h']])('%s: the usage on stdout, exit 0', async (flag) => {
    const result = await run(PUSH, [flag]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/^Usage: npm run migrate:push -- --file <export> /);
    for (const option of ['--entity', '--tenant', '--source', '--url', '--chunk', '--failed']) {
      expect(result.stdout).toContain(option);
    }
    expect(result.stdout).toContain('SVC_MIGRATE_SIGNING_SECRET');
  });

  it.each([
    [['--bogus'], "migrate:push: Unknown option '--bogus'"],
    [['stray'], "migrate:push: Unexpected argument 'stray'"],
    [['--file'], "migrate:push: Option '--file <value>' argument missing"],
    [[], 'migrate:push: needs --file, --entity, --tenant, --source, SVC_MIGRATE_SIGNING_SECRET'],
  ])('%j: one line naming the mistake and --help, exit 1', async (args, start) => {
    const result = await run(PUSH, args);
    expect(result.code).toBe(1);
    expectOneLine(result.stderr);
    expect(result.stderr.startsWith(start)).toBe(true);
    expect(result.stderr).toContain('(see npm run migrate:push -- --help)');
  });

  it('a bad value: one line', async () => {
    const secret = { SVC_MIGRATE_SIGNING_SECRET: 's'.repeat(32) };
    const base = ['--file', 'x.ndjson', '--tenant', 'demo', '--source', 'hubspot'];
    const entity = await run(PUSH, [...base, '--entity', 'planets'], secret);
    expect(entity.code).toBe(1);
    expectOneLine(entity.stderr);
    expect(entity.stderr).toContain('--entity must be one of: leads, contacts');
    const missingFile = await run(PUSH, [...base, '--entity', 'leads'], secret);
    expect(missingFile.code).toBe(1);
    expectOneLine(missingFile.stderr);
    expect(missingFile.stderr).toContain('migrate:push stopped: ');
    expect(missingFile.stderr).toContain('x.ndjson');
  });
});

describe('npm run migrate', () => {
  it.each([
    [{}, 'DATABASE_URL is not set.'],
    [{ DATABASE_URL: 'not-a-url' }, 'DATABASE_URL must be a postgres:// URL'],
    [{ DATABASE_URL: 'postgres://nobody@localhost:1/crm' }, 'Migration failed'],
  ])('%j: one line, exit 1', async (env, start) => {
    const result = await run(MIGRATE, [], env);
    expect(result.code).toBe(1);
    expectOneLine(result.stderr);
    expect(result.stderr.startsWith(start)).toBe(true);
  });
});
