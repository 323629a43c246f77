/**
 * A command-line tool's failure as the one line it prints (no stack trace: the person at the
 * terminal needs what went wrong, not where in our code). A configuration error (ConfigError,
 * duck-typed: config is a sibling layer) lists its problems after its source; an
 * AggregateError with no message of its own (a connection refused on every address of a host)
 * gives its causes'; an empty message falls back to the error code.
 */
export function cliMessage(err: unknown): string {
  const text = describe(err);
  return text.replace(/\s*\n\s*/g, ' ').trim() || 'unknown error';
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const { problems, service } = err as Error & { problems?: unknown; service?: unknown };
  if (Array.isArray(problems) && typeof service === 'string') {
    return `${service}: ${problems.join('; ')}`;
  }
  if (err.message) return err.message;
  if (err instanceof AggregateError && err.errors.length > 0) {
    return [...new Set(err.errors.map(describe))].join('; ');
  }
  return String((err as NodeJS.ErrnoException).code ?? err.name);
}
