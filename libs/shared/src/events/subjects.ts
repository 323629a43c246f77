/** Every event is published on `<prefix>.<type>`; the default prefix is `crm.events`. */
export const DEFAULT_SUBJECT_PREFIX = 'crm.events';

export function subjectFor(prefix: string, type: string): string {
  return `${prefix}.${type}`;
}

/**
 * NATS subject matching on event types: `*` matches one token, `>` the rest (`lead.*`,
 * `email.>`, `>`). The in-process bus and the NATS bus's multi-filter use it.
 */
export function typeMatches(pattern: string, type: string): boolean {
  const want = pattern.split('.');
  const got = type.split('.');
  for (let i = 0; i < want.length; i++) {
    if (want[i] === '>') return got.length > i;
    if (i >= got.length) return false;
    if (want[i] !== '*' && want[i] !== got[i]) return false;
  }
  return want.length === got.length;
}
