import { SpanStatusCode, type Span } from '@opentelemetry/api';

/**
 * Runs `fn` as the work of `span`: a failure is recorded on the span (exception, ERROR status)
 * and thrown on, and the span ends either way. The one way spans of ours close.
 */
export async function runInSpan<T>(span: Span, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    span.recordException(err instanceof Error ? err : String(err));
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw err;
  } finally {
    span.end();
  }
}
