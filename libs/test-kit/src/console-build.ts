import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

/*
 * Building the web console on demand, for the browser tests (through this kit) and for
 * `npm start` (scripts/start-all.ts), which takes it from here. Only node's own modules: the
 * start script loads it from source, before anything is built.
 */

const REPOSITORY = join(__dirname, '../../..');
/** The console workspace's build, where the gateway looks when CONSOLE_DIR is unset. */
export const CONSOLE_DIST = join(REPOSITORY, 'services/console/dist');

/** Whether the web console has been built into `dir` (its page is there). */
export function consoleIsBuilt(dir = CONSOLE_DIST): boolean {
  return existsSync(join(dir, 'index.html'));
}

/**
 * Builds the web console (`npm run build:console`: Vite, a few seconds) when its page is
 * missing; answers whether it built. A failed build rejects with Vite's output.
 */
export async function buildConsoleIfMissing(): Promise<boolean> {
  if (consoleIsBuilt()) return false;
  await promisify(execFile)('npm', ['run', 'build:console'], {
    cwd: REPOSITORY,
    maxBuffer: 16 * 1024 * 1024,
  }).catch((err: { stdout?: string; stderr?: string; message: string }) => {
    throw new Error(
      `building the web console failed: ${err.message}\n${err.stdout ?? ''}${err.stderr ?? ''}`,
    );
  });
  return true;
}
