import { createPurposeSecretBox, CONNECTION_SECRETS } from '@crm/shared/crypto';
import {
  type CapturedLogger,
  captureLogger,
  type ServiceStack,
  TEST_INTERNAL_TOKEN_SECRET,
  useServiceBehindGateway,
} from '@crm/test-kit';
import { service as webhookIngest } from '../../src/main';

/** The PUBLIC_BASE_URL the test stack's webhook-ingest believes providers call. */
export const TEST_PUBLIC_BASE_URL = 'https://crm.example.test';

export interface ReceiverStack extends ServiceStack {
  /** webhook-ingest's log, for tests that check what was (or was never) logged. */
  log: CapturedLogger;
}

/**
 * Registers beforeAll/afterAll for a real webhook-ingest behind a real gateway, both on
 * loopback. `env` configures webhook-ingest (provider secrets and so on).
 */
export function useReceiverStack(env: Record<string, string> = {}): ReceiverStack {
  const log = captureLogger();
  const stack = useServiceBehindGateway(
    webhookIngest,
    { PUBLIC_BASE_URL: TEST_PUBLIC_BASE_URL, ...env },
    { logger: log.logger },
  );
  return Object.assign(stack, { log });
}

/** Seals connection secrets the way the test stack's webhook-ingest opens them. */
export const testSecretBox = () =>
  createPurposeSecretBox(TEST_INTERNAL_TOKEN_SECRET, CONNECTION_SECRETS);
