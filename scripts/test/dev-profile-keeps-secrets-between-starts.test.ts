import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../libs/shared/src/config';
import { cliMessage } from '../../libs/shared/src/errors';
import {
  DEV_SECRET_VARIABLES,
  devDataDir,
  devProfile,
  devSecretsFile,
  startProfile,
} from '../dev/dev-profile';

/**
 * `npm start` generated its internal secrets at random on every run, so a restart made every
 * stored workflow and connection secret unreadable. The development profile generates them once
 * into a file of the data directory and reads them back on every later start; the environment
 * still wins, and NODE_ENV=production refuses the profile.
 */
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dev-profile-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const env = (more: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  DEV_DATA_DIR: join(dir, 'data'),
  ...more,
});
const stored = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
const mode = (file: string) => statSync(file).mode & 0o777;

describe('the development secrets file', () => {
  it('is created on the first start, mode 0600, with every secret of 32+ characters', () => {
    const profile = devProfile(env());
    expect(profile.secretsFile).toBe(join(dir, 'data', 'dev-secrets.json'));
    expect(profile.createdSecretsFile).toBe(true);
    expect(mode(profile.secretsFile)).toBe(0o600);
    const secrets = stored(profile.secretsFile);
    expect(Object.keys(secrets).sort()).toEqual([...DEV_SECRET_VARIABLES].sort());
    for (const variable of DEV_SECRET_VARIABLES) {
      expect(secrets[variable]?.length).toBeGreaterThanOrEqual(32);
      expect(profile.env[variable]).toBe(secrets[variable]);
    }
    expect(new Set(Object.values(secrets)).size).toBe(DEV_SECRET_VARIABLES.length);
  });

  it('is reused as it is by every later start: the same secrets, the file untouched', () => {
    const first = devProfile(env());
    const text = readFileSync(first.secretsFile, 'utf8');
    const second = devProfile(env());
    expect(second.createdSecretsFile).toBe(false);
    expect(second.env).toEqual(first.env);
    expect(readFileSync(first.secretsFile, 'utf8')).toBe(text);
  });

  it('gains a secret it lacks (added to the list later) and keeps the others', () => {
    const first = devProfile(env());
    const older = stored(first.secretsFile);
    delete older.SVC_MIGRATE_SIGNING_SECRET;
    writeFileSync(first.secretsFile, JSON.stringify(older), { mode: 0o600 });
    const second = devProfile(env());
    expect(second.env.INTERNAL_TOKEN_SECRET).toBe(first.env.INTERNAL_TOKEN_SECRET);
    expect(second.env.SVC_MIGRATE_SIGNING_SECRET).toMatch(/^.{32,}$/);
    expect(stored(first.secretsFile).SVC_MIGRATE_SIGNING_SECRET).toBe(
      second.env.SVC_MIGRATE_SIGNING_SECRET,
    );
    expect(mode(first.secretsFile)).toBe(0o600);
  });

  it('copied with looser permissions: put back to 0600', () => {
    const { secretsFile } = devProfile(env());
    chmodSync(secretsFile, 0o644);
    devProfile(env());
    expect(mode(secretsFile)).toBe(0o600);
  });

  it('unreadable: one line naming the file and the way out, and the file is left alone', () => {
    const file = devSecretsFile(env());
    devProfile(env());
    writeFileSync(file, '{"INTERNAL_TOKEN_SECRET": "short"}');
    const refusal = (() => {
      try {
        devProfile(env());
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    expect(refusal).toBeInstanceOf(ConfigError);
    const line = cliMessage(refusal);
    expect(line).not.toContain('\n');
    expect(line).toContain(`npm start: ${file} is not a development secrets file`);
    expect(line).toContain('INTERNAL_TOKEN_SECRET');
    expect(line).toContain('delete it to generate new secrets');
    expect(line).not.toContain('short');
    expect(readFileSync(file, 'utf8')).toBe('{"INTERNAL_TOKEN_SECRET": "short"}');
  });

  it('lives in DEV_DATA_DIR, by default .data (beside the embedded Postgres)', () => {
    expect(devDataDir({})).toBe('.data');
    expect(devSecretsFile({})).toBe(join('.data', 'dev-secrets.json'));
    expect(devSecretsFile({ DEV_DATA_DIR: '/tmp/x' })).toBe('/tmp/x/dev-secrets.json');
  });
});

describe('a variable set in the environment', () => {
  it('wins over the file, which keeps its own value for when it is unset again', () => {
    const own = 'i'.repeat(40);
    const profile = devProfile(env({ INTERNAL_TOKEN_SECRET: own }));
    expect(profile.env.INTERNAL_TOKEN_SECRET).toBeUndefined();
    expect(profile.fromEnvironment).toEqual(['INTERNAL_TOKEN_SECRET']);
    expect(profile.env.AUTOMATION_SECRETS_KEY).toBeDefined();
    expect(stored(profile.secretsFile).INTERNAL_TOKEN_SECRET).not.toBe(own);
  });

  it('OUTBOUND_ALLOW_PRIVATE_NETWORKS: true by the profile, false when set so', () => {
    const open = devProfile(env());
    expect(open.env.OUTBOUND_ALLOW_PRIVATE_NETWORKS).toBe('true');
    expect(open.privateNetworksAllowed).toBe(true);
    const closed = devProfile(env({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'false' }));
    expect(closed.env.OUTBOUND_ALLOW_PRIVATE_NETWORKS).toBeUndefined();
    expect(closed.privateNetworksAllowed).toBe(false);
  });
});

describe('NODE_ENV=production', () => {
  const secrets = {
    INTERNAL_TOKEN_SECRET: 'i'.repeat(32),
    AUTOMATION_SECRETS_KEY: 'a'.repeat(32),
    CONNECTION_SECRETS_KEY: 'c'.repeat(32),
  };

  it('refuses the development profile, writing no file', () => {
    expect(() => devProfile(env({ NODE_ENV: 'production' }))).toThrow(
      'the development profile is refused under NODE_ENV=production',
    );
    expect(existsSync(devSecretsFile(env()))).toBe(false);
  });

  it('npm start then needs every secret given: one line naming the missing ones', () => {
    let refusal: unknown;
    try {
      startProfile(
        env({ NODE_ENV: 'production', INTERNAL_TOKEN_SECRET: secrets.INTERNAL_TOKEN_SECRET }),
      );
    } catch (err) {
      refusal = err;
    }
    expect(cliMessage(refusal)).toBe(
      'npm start: NODE_ENV=production runs without the development profile: set AUTOMATION_SECRETS_KEY, CONNECTION_SECRETS_KEY (32+ characters each)',
    );
    expect(existsSync(devSecretsFile(env()))).toBe(false);
  });

  it('with them all given: no profile, nothing added, no file', () => {
    expect(startProfile(env({ NODE_ENV: 'production', ...secrets }))).toBeUndefined();
    expect(existsSync(devSecretsFile(env()))).toBe(false);
  });

  it('any other NODE_ENV (or none) gets the profile', () => {
    expect(
      startProfile(env({ NODE_ENV: 'development' }))?.env.OUTBOUND_ALLOW_PRIVATE_NETWORKS,
    ).toBe('true');
  });
});
