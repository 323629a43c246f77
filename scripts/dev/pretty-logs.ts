import type { DestinationStream } from 'pino';

type PrettyFactory = (options: Record<string, unknown>) => DestinationStream;

/**
 * Human-readable log lines for `npm start` in a terminal: `12:00:01.123 INFO crm-api  GET
 * /api/crm/deals 200 12ms {"request_id":...}`, errors with their stack. One pino-pretty stream
 * in this process, shared by every service's logger (no worker thread per logger). Returns
 * undefined, so logs stay JSON, when stdout is not a terminal (piped to a file or a log
 * collector) or when pino-pretty is not installed (`npm install --omit=dev`).
 */
export function prettyLogDestination(
  stdout: NodeJS.WritableStream & { isTTY?: boolean } = process.stdout,
): DestinationStream | undefined {
  if (!stdout.isTTY) return undefined;
  let pretty: PrettyFactory;
  try {
    // A devDependency, like tsx that runs this script: required only here, only on a terminal.
    pretty = require('pino-pretty') as PrettyFactory;
  } catch {
    return undefined;
  }
  return pretty({
    destination: stdout,
    colorize: true,
    sync: true,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,name,req,res,responseTime,trace_id,span_id',
    messageFormat: (log: Record<string, unknown>, messageKey: string) => {
      const req = log.req as { method?: string; url?: string } | undefined;
      const res = log.res as { statusCode?: number } | undefined;
      const text =
        req && res
          ? `${req.method} ${req.url} ${res.statusCode} ${String(log.responseTime)}ms`
          : String(log[messageKey] ?? '');
      return `${String(log.name ?? '').padEnd(14)} ${text}`;
    },
  });
}
