import { createServer } from 'node:net';
import { ConfigError } from '../../libs/shared/src/config';

/** The variable that sets each service's listening port (each service's config.ts). */
export const PORT_VARIABLES = {
  gateway: 'GATEWAY_PORT',
  'crm-api': 'CRM_API_PORT',
  'webhook-ingest': 'WEBHOOK_INGEST_PORT',
  automation: 'AUTOMATION_PORT',
  'mcp-ingest': 'MCP_INGEST_PORT',
  migrate: 'MIGRATE_PORT',
} as const;

export type ServiceName = keyof typeof PORT_VARIABLES;
export type BackendName = Exclude<ServiceName, 'gateway'>;

/** The gateway's variable for where it proxies each backend (services/gateway/src/config.ts). */
export const UPSTREAM_URL_VARIABLES: Record<BackendName, string> = {
  'crm-api': 'CRM_API_URL',
  'webhook-ingest': 'WEBHOOK_INGEST_URL',
  automation: 'AUTOMATION_URL',
  'mcp-ingest': 'MCP_INGEST_URL',
  migrate: 'MIGRATE_URL',
};

/**
 * The environment a service's configuration is read from under the all-in-one start. Only the
 * gateway listens where `HOST` says (default every interface): the five backends listen on
 * `BACKEND_HOST` (default 127.0.0.1), so nobody on the network reaches a backend's port and
 * skips the gateway's sessions and rate limits (the public form on crm-api's port, say). A
 * deployment runs each service alone, where `HOST` applies and the network policy guards them.
 */
export function listenEnvFor(service: ServiceName, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (service === 'gateway') return env;
  return { ...env, HOST: env.BACKEND_HOST || '127.0.0.1' };
}

/** Where a client on this machine reaches a server listening on `host`. */
export function connectHost(host: string): string {
  if (host === '' || host === '0.0.0.0' || host === '::' || host === '[::]') return '127.0.0.1';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/**
 * The all-in-one start runs every backend in this process, on the ports it was given: the
 * gateway must proxy to those, not to the defaults (4001-4005), which may be another copy of the
 * platform on the same machine. Returns the `*_URL` values to add to the gateway's environment:
 * one per backend whose `*_URL` is not set (a set one is the operator's choice and wins).
 */
export function upstreamUrlsFor(
  env: NodeJS.ProcessEnv,
  ports: Record<BackendName, number>,
  host: string,
): Record<string, string> {
  const urls: Record<string, string> = {};
  for (const [service, variable] of Object.entries(UPSTREAM_URL_VARIABLES)) {
    if (env[variable]) continue;
    urls[variable] = `http://${connectHost(host)}:${ports[service as BackendName]}`;
  }
  return urls;
}

export interface PortClaim {
  /** The variable that sets it, named in the error so the fix is obvious. */
  variable: string;
  port: number;
  host: string;
}

/** What to tell the operator when `port` cannot be listened on. */
export function portProblem(claim: PortClaim, err: unknown): string | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') {
    return `port ${claim.port} is in use: set ${claim.variable} to a free port`;
  }
  if (code === 'EACCES') {
    return `port ${claim.port} needs privileges to listen on: set ${claim.variable} to a port above 1023`;
  }
  if (code === 'EADDRNOTAVAIL') {
    return `address ${claim.host} is not on this machine: set HOST to one that is (port ${claim.port}, ${claim.variable})`;
  }
  return undefined;
}

function tryListen(claim: PortClaim): Promise<unknown> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (err) => resolve(err));
    server.listen(claim.port, claim.host, () => server.close(() => resolve(undefined)));
  });
}

/**
 * Before anything starts: every port must be distinct and free, or the start fails with a
 * message naming the variable to change. (A port taken between this check and the real listen
 * is reported the same way by `listenProblem`.)
 */
export async function checkPorts(claims: PortClaim[]): Promise<void> {
  const problems: string[] = [];
  const byPort = new Map<number, string[]>();
  for (const claim of claims) {
    byPort.set(claim.port, [...(byPort.get(claim.port) ?? []), claim.variable]);
  }
  for (const [port, variables] of byPort) {
    if (variables.length > 1) {
      const named = `${variables.slice(0, -1).join(', ')} and ${variables[variables.length - 1]}`;
      problems.push(
        `${named} are ${variables.length === 2 ? 'both' : 'all'} ${port}: give each its own port`,
      );
    }
  }
  for (const claim of claims) {
    if ((byPort.get(claim.port)?.length ?? 0) > 1) continue;
    const err = await tryListen(claim);
    if (!err) continue;
    problems.push(
      portProblem(claim, err) ?? `port ${claim.port} (${claim.variable}): ${String(err)}`,
    );
  }
  if (problems.length > 0) throw new ConfigError('npm start', problems);
}

/** A listen that failed at start-up, as the same ConfigError as checkPorts gives. */
export function listenProblem(claim: PortClaim, err: unknown): unknown {
  const problem = portProblem(claim, err);
  return problem ? new ConfigError('npm start', [problem]) : err;
}
