import { Writable } from 'node:stream';
import { context, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { createLogger } from '@crm/shared/logger';

const contextManager = new AsyncLocalStorageContextManager().enable();
beforeAll(() => context.setGlobalContextManager(contextManager));
afterAll(() => context.disable());

function memoryLogger() {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const logger = createLogger({ name: 'trace-fields-test', destination });
  const lines = () =>
    chunks
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { logger, lines };
}

describe('log lines and traces', () => {
  it('carry trace_id and span_id of the active span', () => {
    const { logger, lines } = memoryLogger();
    const spanContext = {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: TraceFlags.SAMPLED,
    };
    context.with(trace.setSpan(ROOT_CONTEXT, trace.wrapSpanContext(spanContext)), () =>
      logger.info({ request_id: 'r-1' }, 'inside a span'),
    );
    expect(lines()[0]).toMatchObject({
      msg: 'inside a span',
      request_id: 'r-1',
      trace_id: spanContext.traceId,
      span_id: spanContext.spanId,
    });
  });

  it('carry neither when no span is active', () => {
    const { logger, lines } = memoryLogger();
    logger.info('outside any span');
    expect(lines()[0]).not.toHaveProperty('trace_id');
    expect(lines()[0]).not.toHaveProperty('span_id');
  });
});
