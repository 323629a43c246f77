import { errors } from '@crm/shared/http';
import { describeRange, nonPublicHost } from '@crm/shared/outbound';
import type { WorkflowNode } from './workflows.schema';

export function publicAddressRefusal(host: string, range: string): string {
  return `webhook URL must point to a public address: ${host} is ${describeRange(range)}`;
}

/**
 * The save-time half of the SSRF guard: a webhook URL whose host is a literal non-public
 * address (or localhost) is refused with a 400, in validate()'s shape, before anything is
 * written, so the mistake shows when the workflow is saved, not as failed runs later. Skipped
 * when OUTBOUND_ALLOW_PRIVATE_NETWORKS is on (development and tests), as the send-time check is.
 */
export function refuseNonPublicWebhookTargets(
  nodes: WorkflowNode[] | undefined,
  allowPrivateNetworks: boolean,
  what: string,
): void {
  if (allowPrivateNetworks || !nodes) return;
  const issues = nodes.flatMap((node, index) => {
    // The schema has already accepted the URL as absolute http(s).
    const host = new URL(node.config.url).hostname;
    const range = nonPublicHost(host);
    if (!range) return [];
    const path = `nodes.${index}.config.url`;
    return [{ path, message: publicAddressRefusal(host, range), code: 'custom' }];
  });
  if (issues.length === 0) return;
  const [first] = issues;
  throw errors.validation(`Invalid ${what}: ${first.path}: ${first.message}`, { issues });
}
