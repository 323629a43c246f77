// Types only: the SDK itself is loaded when tracing is switched on. Loaded at start-up it costs
// every process about 45 MB of memory (43 of a service's ~120 MB idle RSS), traced or not.
import type * as OtlpHttp from '@opentelemetry/exporter-trace-otlp-http';
import type * as InstrumentationExpress from '@opentelemetry/instrumentation-express';
import type * as InstrumentationHttp from '@opentelemetry/instrumentation-http';
import type * as InstrumentationPg from '@opentelemetry/instrumentation-pg';
import type * as InstrumentationUndici from '@opentelemetry/instrumentation-undici';
import type * as SdkNode from '@opentelemetry/sdk-node';
import { trace, type Attributes } from '@opentelemetry/api';
import { runInSpan } from './run-in-span';

export interface Telemetry {
  /** Flushes the spans still buffered, then stops the SDK. */
  shutdown(): Promise<void>;
}

const disabled: Telemetry = { shutdown: async () => undefined };

/** The process's one SDK: started once, whoever asks first. */
let started: Telemetry | undefined;

/**
 * Starts OpenTelemetry tracing when `OTEL_EXPORTER_OTLP_ENDPOINT` is set (traces go to
 * `<endpoint>/v1/traces`); otherwise does nothing. Instruments incoming and outgoing HTTP
 * (W3C `traceparent` read and written, so the gateway's proxy hop and automation's webhooks
 * carry the trace), express routes, Postgres statements made while a span is active (the pool's
 * own chatter without a request is not traced) and fetch/undici.
 *
 * The instrumentations hook `require`, so this must run before express and pg are loaded: each
 * service's `src/telemetry.ts` calls it and is the first import of its main.ts. Calling it again
 * returns the same SDK.
 */
export function startTelemetry(
  serviceName: string,
  env: NodeJS.ProcessEnv = process.env,
): Telemetry {
  if (started) return started;
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint) return disabled;
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded only when tracing is on */
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof SdkNode;
  const { OTLPTraceExporter } =
    require('@opentelemetry/exporter-trace-otlp-http') as typeof OtlpHttp;
  const { HttpInstrumentation } =
    require('@opentelemetry/instrumentation-http') as typeof InstrumentationHttp;
  const { ExpressInstrumentation } =
    require('@opentelemetry/instrumentation-express') as typeof InstrumentationExpress;
  const { PgInstrumentation } =
    require('@opentelemetry/instrumentation-pg') as typeof InstrumentationPg;
  const { UndiciInstrumentation } =
    require('@opentelemetry/instrumentation-undici') as typeof InstrumentationUndici;
  /* eslint-enable @typescript-eslint/no-require-imports */
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME ?? serviceName,
    traceExporter: new OTLPTraceExporter({ url: `${endpoint.replace(/\/$/, '')}/v1/traces` }),
    instrumentations: [
      new HttpInstrumentation({
        // Probes are not traced: they would be most of the spans and say nothing.
        ignoreIncomingRequestHook: (req) => req.url === '/health' || req.url === '/ready',
      }),
      new ExpressInstrumentation(),
      new PgInstrumentation({ requireParentSpan: true }),
      new UndiciInstrumentation(),
    ],
  });
  sdk.start();
  started = { shutdown: () => sdk.shutdown() };
  return started;
}

/**
 * For a service's `src/telemetry.ts`: starts tracing only when `mainFile` (its main.ts or
 * main.js, without the extension) is the process's entry point, so importing a service's
 * definition (npm start, tests) never starts an SDK of its own.
 */
export function startTelemetryWhenEntryPoint(serviceName: string, mainFile: string): Telemetry {
  const entry = require.main?.filename.replace(/\.[cm]?[jt]s$/, '');
  return entry === mainFile ? startTelemetry(serviceName) : disabled;
}

const tracer = trace.getTracer('@crm/shared/telemetry');

/**
 * Runs `fn` in a span of its own, a child of the active span (a no-op span when tracing is off):
 * for units of work no instrumentation sees, such as one workflow run.
 */
export function inSpan<T>(name: string, attributes: Attributes, fn: () => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, { attributes }, (span) => runInSpan(span, fn));
}
