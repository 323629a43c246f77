import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually } from '../../libs/shared/src/testing';
import { freeServicePorts, freshDatabase, jsonLines, startAll } from './support/start-all-process';

/*
 * A newcomer with only the README: after `npm start`, the first call's curl lines (copied from
 * README.md as written, with the gateway's address and the cookie file swapped for this run's)
 * sign in and read the sample CRM, and the `migrate:push` command the start prints pushes a
 * file into the demo tenant. The start runs as a process of its own on a database of its own.
 */
const ROOT = join(__dirname, '..', '..');
const run = promisify(execFile);

/** The shell block of README.md that follows `heading`, one command per logical line. */
function readmeCommands(heading: string): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const after = readme.slice(readme.indexOf(heading));
  const block = /```sh\n([\s\S]*?)```/.exec(after);
  if (!block) throw new Error(`README.md has no sh block after "${heading}"`);
  return block[1]
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .filter((line) => line.startsWith('curl '));
}

async function bash(command: string, cwd = ROOT): Promise<string> {
  const { stdout } = await run('bash', ['-c', command], { cwd, encoding: 'utf8', timeout: 60_000 });
  return stdout;
}

it('the README’s first call and the printed migrate:push command work as written', async () => {
  const database = await freshDatabase();
  const work = mkdtempSync(join(tmpdir(), 'readme-'));
  const env: Record<string, string> = {
    DATABASE_URL: database.url,
    DEV_DATA_DIR: join(work, 'data'),
    LOG_LEVEL: 'info',
    ...(await freeServicePorts(['ECHO_RECEIVER_PORT'])),
  };
  const gateway = `http://localhost:${env.GATEWAY_PORT}`;
  const answers: unknown[] = [];
  let pushed = '';
  try {
    const result = await startAll(env, async (stdout, kill) => {
      try {
        const running = await eventually(() => {
          const line = jsonLines(stdout().slice(0, stdout().lastIndexOf('\n') + 1)).find(
            (l) => l.msg === 'CRM platform is running',
          );
          if (!line) throw new Error('not running yet');
          return line;
        }, 90_000);
        const commands = readmeCommands('Sign in and make a first call');
        expect(commands.length).toBeGreaterThanOrEqual(3);
        for (const command of commands) {
          const here = command
            .replaceAll('http://localhost:8080', gateway)
            .replaceAll('/tmp/crm.cookies', join(work, 'cookies'));
          answers.push(JSON.parse(await bash(here)));
        }
        writeFileSync(
          join(work, 'leads.ndjson'),
          '{"external_id":"readme-1","email":"first.migrated@example.com","first_name":"Ada"}\n',
        );
        // The printed command names leads.ndjson in the current folder; the npm script runs
        // from the checkout, so the file is given by its full path.
        const push = String(running.migratePush).replace(
          '--file leads.ndjson',
          `--file ${join(work, 'leads.ndjson')}`,
        );
        pushed = await bash(push);
      } finally {
        kill('SIGTERM');
      }
    });
    expect(result.code).toBe(0);
  } finally {
    await database.drop();
  }
  const [signIn, deals, leads] = answers as Array<Record<string, unknown>>;
  expect(signIn).toMatchObject({ success: true, data: { user: { email: 'demo@example.com' } } });
  // The sample CRM is there to read.
  expect((deals.deals as unknown[]).length).toBeGreaterThan(0);
  expect(leads).toMatchObject({ page: 1, pageSize: 5 });
  expect((leads.items as unknown[]).length).toBe(5);
  expect(pushed).toContain('1 records in');
  expect(pushed).toContain('1 created, 0 updated, 0 failed');
}, 180_000);
