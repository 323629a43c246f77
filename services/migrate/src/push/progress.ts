import type { Progress } from './push-file';

/**
 * Progress of a push: on a terminal one line redrawn in place (records done, rate, and an ETA
 * when the total is known); elsewhere a plain line per chunk.
 */
export function progressReporter(
  out: NodeJS.WriteStream | NodeJS.WritableStream,
  total: number | undefined,
): Progress {
  const tty = 'isTTY' in out && out.isTTY === true;
  const line = (done: number, rate: number) => {
    const eta = total && rate > 0 ? `, ETA ${Math.max(0, Math.ceil((total - done) / rate))} s` : '';
    const of = total ? ` of ${total}` : '';
    return `${done}${of} records, ${Math.round(rate)}/s${eta}`;
  };
  return {
    update: (done, rate) =>
      out.write(tty ? `\r${line(done, rate)}\x1b[K` : `${line(done, rate)}\n`),
    note: (text) => out.write(tty ? `\n${text}\n` : `${text}\n`),
    end: () => {
      if (tty) out.write('\n');
    },
  };
}
