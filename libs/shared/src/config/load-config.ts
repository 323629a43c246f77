import { z } from 'zod';

/** Thrown at start-up when the environment does not fit a service's config schema. */
export class ConfigError extends Error {
  constructor(
    public readonly service: string,
    public readonly problems: string[],
  ) {
    super(`Invalid configuration for ${service}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses the environment with a service's zod schema. Each problem names the variable, so a
 * wrong value fails start-up with e.g. `CRM_API_PORT: expected a port (1-65535), got "abc"`.
 * Empty strings count as unset, so `FOO=` in a .env file falls back to the default.
 */
export function loadConfig<S extends z.ZodType>(
  service: string,
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
): z.infer<S> {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== ''));
  const result = schema.safeParse(cleaned);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const variable = issue.path.join('.') || '(environment)';
    const given = issue.path.length ? cleaned[String(issue.path[0])] : undefined;
    const shown =
      given === undefined ? 'it is not set' : `got ${JSON.stringify(mask(variable, given))}`;
    return `${variable}: ${issue.message} (${shown})`;
  });
  throw new ConfigError(service, problems);
}

// Never echo a secret back in a start-up error: not a secret variable's value, and not the
// credentials inside a connection URL (`postgres://user:password@host`), even a mistyped one.
function mask(variable: string, value: string): string {
  if (/SECRET|TOKEN|PASS|KEY|CREDENTIAL|PRIVATE|AUTH/i.test(variable)) return '[redacted]';
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/)?.*@/is, '$1[redacted]@');
}
