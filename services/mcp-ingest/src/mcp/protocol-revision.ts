import {
  DEFAULT_NEGOTIATED_PROTOCOL_VERSION,
  isInitializeRequest,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';

/** The MCP revision that removed JSON-RPC batching (specified); every later one leaves it out. */
export const BATCHING_REMOVED_IN = '2025-06-18';

/**
 * The protocol revision one HTTP request speaks. Stateless mode keeps no session, so each
 * request carries it: an `initialize` asks for one (answered with it when the SDK supports it,
 * else with the latest, as the SDK's server negotiates); any other request names the negotiated
 * one in `MCP-Protocol-Version`; without that header the transport specification says to assume
 * 2025-03-26.
 */
export function requestRevision(messages: readonly unknown[], header: string | undefined): string {
  const initialize = messages.find(isInitializeRequest);
  if (initialize) {
    const asked = initialize.params.protocolVersion;
    return SUPPORTED_PROTOCOL_VERSIONS.includes(asked) ? asked : LATEST_PROTOCOL_VERSION;
  }
  return header ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION;
}

/**
 * Whether a revision allows a JSON-RPC batch: only a known revision older than the one that
 * removed batching. An unknown revision is refused too (fails closed), since the SDK would not
 * serve it anyway. Revisions are dates (YYYY-MM-DD), so they compare as strings.
 */
export function allowsBatches(revision: string): boolean {
  return SUPPORTED_PROTOCOL_VERSIONS.includes(revision) && revision < BATCHING_REMOVED_IN;
}

/**
 * The `MCP-Protocol-Version` a request other than an `initialize` names and the SDK does not
 * support; undefined when it names a supported one or none (an `initialize` asks in its body,
 * and its header is not checked, as the SDK's transport does).
 */
export function unsupportedRevisionHeader(
  messages: readonly unknown[],
  header: string | undefined,
): string | undefined {
  if (header === undefined || messages.some(isInitializeRequest)) return undefined;
  return SUPPORTED_PROTOCOL_VERSIONS.includes(header) ? undefined : header;
}
