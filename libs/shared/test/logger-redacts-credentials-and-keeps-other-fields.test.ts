import { Writable } from 'node:stream';
import { createLogger, silentLogger } from '@crm/shared/logger';
import { captureLogger } from '@crm/shared/testing';

/** createLogger() writing into memory through its `destination` option. */
function memoryLogger(level = 'info') {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const logger = createLogger({ name: 'redaction-test', level, destination });
  return {
    logger,
    text: () => chunks.join(''),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('createLogger redaction', () => {
  it('writes JSON lines with name, level label, ISO time and message', () => {
    const { logger, lines } = memoryLogger();
    logger.info({ tenantId: 't-1' }, 'hello');
    expect(lines()).toEqual([
      {
        level: 'info',
        time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        pid: process.pid,
        hostname: expect.any(String),
        name: 'redaction-test',
        tenantId: 't-1',
        msg: 'hello',
      },
    ]);
  });

  it('redacts credential request headers and keeps the others', () => {
    const { logger, lines, text } = memoryLogger();
    logger.info(
      {
        req: {
          method: 'POST',
          url: '/api/messaging/webhooks',
          headers: {
            authorization: 'Bearer live-token-1',
            cookie: 'session=cookie-value-1',
            'x-hub-signature-256': 'sha256=hub-signature-1',
            'x-crm-identity': 'v1.identity-1',
            'content-type': 'application/json',
            'user-agent': 'provider/1.0',
          },
        },
      },
      'request completed',
    );
    expect(lines()[0].req).toEqual({
      method: 'POST',
      url: '/api/messaging/webhooks',
      headers: {
        authorization: '[redacted]',
        cookie: '[redacted]',
        'x-hub-signature-256': '[redacted]',
        'x-crm-identity': '[redacted]',
        'content-type': 'application/json',
        'user-agent': 'provider/1.0',
      },
    });
    for (const secret of ['live-token-1', 'cookie-value-1', 'hub-signature-1', 'identity-1']) {
      expect(text()).not.toContain(secret);
    }
  });

  it('redacts top-level credential fields', () => {
    const { logger, lines } = memoryLogger();
    logger.info(
      {
        authorization: 'Bearer a',
        cookie: 'c=1',
        'x-hub-signature-256': 'sha256=x',
        password: 'p',
        secret: 's',
        token: 't',
        userId: 'u-1',
      },
      'top level',
    );
    expect(lines()[0]).toMatchObject({
      authorization: '[redacted]',
      cookie: '[redacted]',
      'x-hub-signature-256': '[redacted]',
      password: '[redacted]',
      secret: '[redacted]',
      token: '[redacted]',
      userId: 'u-1',
    });
  });

  it('redacts nested password, secret and token fields (one and two levels deep), keeps siblings', () => {
    const { logger, lines, text } = memoryLogger();
    logger.info(
      {
        user: { email: 'ada@example.com', password: 'hunter2-nested' },
        connection: { id: 'conn-1', webhook: { secret: 'whsec-nested', url: 'https://shop.test' } },
        oauth: { token: 'oauth-token-nested', expiresIn: 3600 },
        list: [{ token: 'token-in-array', kind: 'api' }],
      },
      'nested',
    );
    expect(lines()[0]).toMatchObject({
      user: { email: 'ada@example.com', password: '[redacted]' },
      connection: { id: 'conn-1', webhook: { secret: '[redacted]', url: 'https://shop.test' } },
      oauth: { token: '[redacted]', expiresIn: 3600 },
      list: [{ token: '[redacted]', kind: 'api' }],
    });
    for (const secret of [
      'hunter2-nested',
      'whsec-nested',
      'oauth-token-nested',
      'token-in-array',
    ]) {
      expect(text()).not.toContain(secret);
    }
  });

  it('redacts Title-Case header names as outbound header objects spell them', () => {
    const { logger, lines, text } = memoryLogger();
    logger.warn(
      {
        request: {
          headers: {
            Authorization: 'Bearer outbound-token',
            Cookie: 'sid=outbound-cookie',
            'X-Hub-Signature-256': 'sha256=outbound-signature',
            'Content-Type': 'application/json',
          },
        },
      },
      'outbound call failed',
    );
    expect(lines()[0].request).toEqual({
      headers: {
        Authorization: '[redacted]',
        Cookie: '[redacted]',
        'X-Hub-Signature-256': '[redacted]',
        'Content-Type': 'application/json',
      },
    });
    expect(text()).not.toMatch(/outbound-(token|cookie|signature)/);
  });

  it('redacts fields bound on a child logger and on an error object', () => {
    const { logger, lines, text } = memoryLogger();
    logger.child({ token: 'child-token', tenantId: 't-2' }).info({ password: 'pw-1' }, 'child');
    logger.error({ err: Object.assign(new Error('boom'), { secret: 'err-secret' }) }, 'failed');
    const [child, failed] = lines();
    expect(child).toMatchObject({ token: '[redacted]', tenantId: 't-2', password: '[redacted]' });
    expect(failed).toMatchObject({ err: { message: 'boom', secret: '[redacted]' } });
    expect(text()).not.toMatch(/child-token|pw-1|err-secret/);
  });

  it('honours the level', () => {
    const { logger, lines } = memoryLogger('warn');
    logger.info('not written');
    logger.warn('written');
    expect(lines().map((l) => l.msg)).toEqual(['written']);
  });

  it('captureLogger applies the same redaction (what the other tests rely on)', () => {
    const capture = captureLogger();
    capture.logger.debug(
      { headers: { authorization: 'Bearer cap' }, password: 'cap-pw', keep: 1 },
      'x',
    );
    expect(capture.lines()[0]).toMatchObject({
      level: 'debug',
      headers: { authorization: '[redacted]' },
      password: '[redacted]',
      keep: 1,
    });
  });

  it('silentLogger writes nothing and accepts every call', () => {
    const logger = silentLogger();
    expect(logger.level).toBe('silent');
    expect(() => logger.error({ password: 'x' }, 'ignored')).not.toThrow();
  });
});
