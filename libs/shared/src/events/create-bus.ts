import type { Logger } from 'pino';
import type { EventBus } from './bus';
import { InProcessBus } from './in-process-bus';
import { NatsBus } from './nats-bus';

/** NATS JetStream when `natsUrl` is set, else the in-process bus (everything in one process). */
export async function createBus(options: {
  natsUrl?: string;
  logger: Logger;
  connectionName?: string;
  streamReplicas?: number;
}): Promise<EventBus> {
  if (options.natsUrl) {
    return NatsBus.connect({
      url: options.natsUrl,
      logger: options.logger,
      connectionName: options.connectionName,
      streamReplicas: options.streamReplicas,
    });
  }
  return new InProcessBus({ logger: options.logger });
}
