import { isAbsolute } from 'node:path';

/** The demo user's password when DEMO_PASSWORD was unset at its creation: public, so printable. */
export const DEFAULT_DEMO_PASSWORD = 'demo-password';

/**
 * The sign-in request to paste. `password` is printed as given: the real one on a terminal, and
 * off a terminal (logs are kept and shipped) only the public default, else `$DEMO_PASSWORD` for
 * the shell to fill in.
 */
export function signInCommand(gatewayUrl: string, email: string, password: string): string {
  const body = password.startsWith('$')
    ? `"${JSON.stringify({ email, password }).replace(/"/g, '\\"')}"`
    : `'${JSON.stringify({ email, password })}'`;
  return `curl -s -c /tmp/crm.cookies -H 'content-type: application/json' -d ${body} ${gatewayUrl}/api/auth/sign-in`;
}

/** What a signed-in session can call next (the cookie from signInCommand). */
export function sessionCommands(gatewayUrl: string): string[] {
  return [
    `curl -s -b /tmp/crm.cookies ${gatewayUrl}/api/auth/me`,
    `curl -s -b /tmp/crm.cookies '${gatewayUrl}/api/crm/deals?limit=5'`,
  ];
}

/**
 * The signed migration push into the demo tenant. The secret is never printed: the command reads
 * it from the development secrets file, or (set in the environment) from the caller's shell.
 */
export function migratePushCommand(
  gatewayUrl: string,
  tenantSlug: string,
  secretsFile: string | undefined,
): string {
  const push = `npm run migrate:push -- --url ${gatewayUrl} --tenant ${tenantSlug} --source hubspot --entity leads --file leads.ndjson`;
  if (!secretsFile) return push;
  const requirable = isAbsolute(secretsFile) ? secretsFile : `./${secretsFile}`;
  return `SVC_MIGRATE_SIGNING_SECRET="$(node -p 'require(${JSON.stringify(requirable)}).SVC_MIGRATE_SIGNING_SECRET')" ${push}`;
}
