import type { z } from 'zod';
import type { ServiceEnv } from '../config';
import type { Subscription, SubscriptionSpec } from '../events/bus';
import type { ServiceDefinition, Worker, WorkerDeps } from './service-definition';

/**
 * Builds and starts a service's workers, in order, once its app listens. If one fails to start,
 * the ones already running are stopped before the error goes on, so nothing is left pulling.
 */
export async function startWorkers<S extends z.ZodType<ServiceEnv>>(
  service: ServiceDefinition<S>,
  deps: WorkerDeps,
  config: z.infer<S>,
): Promise<Worker[]> {
  const workers = service.workers?.(deps, config) ?? [];
  const running: Worker[] = [];
  for (const worker of workers) {
    try {
      await worker.start();
    } catch (err) {
      await stopWorkers(running).catch(() => undefined);
      throw err;
    }
    running.push(worker);
    deps.logger.info({ worker: worker.name }, `${service.name}: worker ${worker.name} started`);
  }
  return running;
}

/**
 * Stops every worker at once (each stops pulling, then finishes what it has in hand) and
 * resolves when all have stopped; rejects with the first failure, after all have settled.
 */
export async function stopWorkers(workers: readonly Worker[]): Promise<void> {
  const results = await Promise.allSettled(workers.map((worker) => worker.stop()));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/**
 * A worker that is one durable event consumer: start() subscribes, stop() stops taking
 * events and waits for the handler in progress (the bus acks it) before resolving.
 */
export function consumerWorker(
  name: string,
  bus: WorkerDeps['bus'],
  spec: SubscriptionSpec,
): Worker {
  let subscription: Subscription | undefined;
  return {
    name,
    async start() {
      if (subscription) return;
      subscription = await bus.subscribe(spec);
    },
    async stop() {
      const running = subscription;
      subscription = undefined;
      await running?.stop();
    },
  };
}
