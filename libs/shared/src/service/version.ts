import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The version a service reports in its health response: `APP_VERSION` when set (images set it
 * to the release), else the version in the package.json of `packageDir`.
 */
export function readVersion(packageDir: string, env: NodeJS.ProcessEnv = process.env): string {
  if (env.APP_VERSION) return env.APP_VERSION;
  try {
    const pkg = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
      version?: string;
    };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}
