import { INGEST_TOOLS } from './ingest-tools';
import { READ_TOOLS } from './read-tools';

/**
 * The scope a `tools/call` of `name` with `args` needs and `scopes` lack; undefined when the call
 * is allowed, or names no tool, or arguments too malformed to tell (the tool itself then refuses
 * them, naming what is valid).
 */
export function missingScope(name: unknown, args: unknown, scopes: string[]): string | undefined {
  const ingest = INGEST_TOOLS.find((tool) => tool.name === name);
  if (ingest) return scopes.includes(ingest.scope) ? undefined : ingest.scope;
  const read = READ_TOOLS.find((tool) => tool.name === name);
  const needed = read?.scopeFor(args);
  return needed && !scopes.includes(needed) ? needed : undefined;
}

/** A JSON-RPC `tools/call` request's tool name and arguments; undefined for any other message. */
export function toolCallOf(
  message: unknown,
): { id: unknown; name: unknown; args: unknown } | undefined {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return undefined;
  const { method, id, params } = message as { method?: unknown; id?: unknown; params?: unknown };
  if (method !== 'tools/call' || typeof params !== 'object' || params === null) return undefined;
  const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
  return { id, name, args };
}
