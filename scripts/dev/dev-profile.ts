import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../../libs/shared/src/config';
import { randomToken } from '../../libs/shared/src/crypto';

/**
 * The secrets every service running under `npm start` needs to stay the same between runs: the
 * gateway -> service identity key, the keys that encrypt stored workflow and connection secrets,
 * and the migration signing secret. Random per run, a restart made every stored secret
 * unreadable (workflows failed with `signing secret unreadable`, storefronts got 503).
 */
export const DEV_SECRET_VARIABLES = [
  'INTERNAL_TOKEN_SECRET',
  'AUTOMATION_SECRETS_KEY',
  'CONNECTION_SECRETS_KEY',
  'SVC_MIGRATE_SIGNING_SECRET',
] as const;

export type DevSecretVariable = (typeof DEV_SECRET_VARIABLES)[number];

/** The keys a production-like start must be given: without them stored secrets are lost. */
export const PRODUCTION_REQUIRED_SECRETS: readonly DevSecretVariable[] = [
  'INTERNAL_TOKEN_SECRET',
  'AUTOMATION_SECRETS_KEY',
  'CONNECTION_SECRETS_KEY',
];

export interface DevProfile {
  /** Variables to add to the environment: only those it does not set already (it wins). */
  env: Record<string, string>;
  secretsFile: string;
  /** True on the first start (or after the file was deleted). */
  createdSecretsFile: boolean;
  /** The secret variables whose value came from the environment rather than the file. */
  fromEnvironment: DevSecretVariable[];
  /** Outbound webhooks may reach loopback and private addresses (a receiver on this machine). */
  privateNetworksAllowed: boolean;
}

/** Where `npm start` keeps its embedded Postgres and its development secrets. */
export function devDataDir(env: NodeJS.ProcessEnv): string {
  return env.DEV_DATA_DIR || '.data';
}

export function devSecretsFile(env: NodeJS.ProcessEnv): string {
  return join(devDataDir(env), 'dev-secrets.json');
}

const storedSecrets = z.partialRecord(z.enum(DEV_SECRET_VARIABLES), z.string().min(32));

function readSecrets(file: string): Partial<Record<DevSecretVariable, string>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw unreadable(file, err instanceof Error ? err.message : String(err));
  }
  const result = storedSecrets.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw unreadable(file, `${issue?.path.join('.') || '(file)'}: ${issue?.message}`);
  }
  return result.data;
}

function unreadable(file: string, why: string): ConfigError {
  return new ConfigError('npm start', [
    `${file} is not a development secrets file (${why}): fix it, or delete it to generate new secrets (stored workflow and connection secrets then need rotating)`,
  ]);
}

/** Written whole under a temporary name, then renamed: a crash never leaves half a file. */
function writeSecrets(file: string, secrets: Record<DevSecretVariable, string>): void {
  // The directory keeps its usual mode: the embedded Postgres, run as its own system user
  // when npm start runs as root, must reach its data beside this file. The file is 0600.
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
}

/**
 * The development profile `npm start` runs with: stable secrets generated once into
 * `<DEV_DATA_DIR>/dev-secrets.json` (mode 0600) and read on every later start, and outbound
 * webhooks allowed to reach this machine. A variable set in the environment wins over both.
 * Refused under NODE_ENV=production: there every secret must be given explicitly
 * (`startProfile`), and webhooks stay on public addresses.
 */
export function devProfile(env: NodeJS.ProcessEnv): DevProfile {
  if (env.NODE_ENV === 'production') {
    throw new ConfigError('npm start', [
      'the development profile is refused under NODE_ENV=production',
    ]);
  }
  const secretsFile = devSecretsFile(env);
  const createdSecretsFile = !existsSync(secretsFile);
  const stored = createdSecretsFile ? {} : readSecrets(secretsFile);
  const secrets = Object.fromEntries(
    DEV_SECRET_VARIABLES.map((variable) => [variable, stored[variable] ?? randomToken(32)]),
  ) as Record<DevSecretVariable, string>;
  // A secret added to the list later is generated once and kept, like the first ones.
  if (DEV_SECRET_VARIABLES.some((variable) => !stored[variable])) {
    writeSecrets(secretsFile, secrets);
  } else if ((statSync(secretsFile).mode & 0o077) !== 0) {
    chmodSync(secretsFile, 0o600); // copied or restored with looser permissions
  }
  const added: Record<string, string> = {};
  const fromEnvironment: DevSecretVariable[] = [];
  for (const variable of DEV_SECRET_VARIABLES) {
    if (env[variable]) fromEnvironment.push(variable);
    else added[variable] = secrets[variable];
  }
  if (!env.OUTBOUND_ALLOW_PRIVATE_NETWORKS) added.OUTBOUND_ALLOW_PRIVATE_NETWORKS = 'true';
  return {
    env: added,
    secretsFile,
    createdSecretsFile,
    fromEnvironment,
    privateNetworksAllowed:
      (env.OUTBOUND_ALLOW_PRIVATE_NETWORKS ?? added.OUTBOUND_ALLOW_PRIVATE_NETWORKS) === 'true',
  };
}

/**
 * What `npm start` runs with: the development profile, or under NODE_ENV=production none, and
 * then the secrets that keep stored data readable must all be set (a ConfigError naming the
 * missing ones otherwise).
 */
export function startProfile(env: NodeJS.ProcessEnv): DevProfile | undefined {
  if (env.NODE_ENV !== 'production') return devProfile(env);
  const missing = PRODUCTION_REQUIRED_SECRETS.filter((variable) => !env[variable]);
  if (missing.length > 0) {
    throw new ConfigError('npm start', [
      `NODE_ENV=production runs without the development profile: set ${missing.join(', ')} (32+ characters each)`,
    ]);
  }
  return undefined;
}
