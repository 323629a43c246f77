import { type ServiceStack, useServiceBehindGateway } from '@crm/test-kit';
import { service as crmApi } from '../../src/main';

export type Stack = ServiceStack;

/**
 * Registers beforeAll/afterAll for a real crm-api behind a real gateway, both listening on
 * loopback. `env` configures crm-api.
 */
export function useStack(env: Record<string, string> = {}): Stack {
  return useServiceBehindGateway(crmApi, env);
}
