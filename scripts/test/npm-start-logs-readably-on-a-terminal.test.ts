import { Writable } from 'node:stream';
import { createLogger } from '../../libs/shared/src/logger';
import { prettyLogDestination } from '../dev/pretty-logs';

/** `npm start` logs for people on a terminal, JSON for machines otherwise. */
function output(isTTY: boolean): Writable & { isTTY: boolean; text(): string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return Object.assign(stream, { isTTY, text: () => chunks.join('') });
}

const strip = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, ''); // eslint-disable-line no-control-regex

describe('npm start logs', () => {
  it('stay JSON when stdout is not a terminal (piped, collected)', () => {
    expect(prettyLogDestination(output(false))).toBeUndefined();
  });

  it('are one readable line each on a terminal: time, level, service, what happened', () => {
    const out = output(true);
    const destination = prettyLogDestination(out);
    expect(destination).toBeDefined();
    const log = createLogger({ name: 'gateway', level: 'info', destination });
    log.info({ port: 8080 }, 'gateway listening');
    log.info(
      {
        req: { method: 'GET', url: '/api/crm/deals' },
        res: { statusCode: 200 },
        responseTime: 12,
        request_id: 'r-1',
      },
      'request completed',
    );
    log.warn({ password: 'hunter2' }, 'still redacted');
    const lines = strip(out.text()).trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: gateway +gateway listening \{"port":8080\}$/,
    );
    expect(lines[1]).toMatch(
      /INFO: gateway +GET \/api\/crm\/deals 200 12ms \{"request_id":"r-1"\}$/,
    );
    expect(lines[2]).toMatch(/WARN: gateway +still redacted \{"password":"\[redacted\]"\}$/);
  });
});
