import request from 'supertest';
import { useReceiverStack } from './support/receiver-stack';

/**
 * GET /api/messaging/webhooks/cloud-api, the
 * subscription check Meta makes, through the real gateway with real query strings (Express 5
 * keeps the dotted `hub.*` keys literal). A GET writes nothing whatever it carries.
 */
const TOKEN = 'verify+token/with=odd&chars';
const configured = useReceiverStack({ MESSAGING_WEBHOOK_VERIFY_TOKEN: TOKEN });
const unconfigured = useReceiverStack({});

const PATH = '/api/messaging/webhooks/cloud-api';
const handshake = (base: string, query: string) => request(base).get(`${PATH}?${query}`);
const q = (params: Record<string, string>) => new URLSearchParams(params).toString();

const FORBIDDEN = {
  success: false,
  error: 'Forbidden',
  code: 'FORBIDDEN',
  message: 'The verify token does not match',
  details: null,
};

describe('GET /api/messaging/webhooks/cloud-api', () => {
  it('subscribe with the configured token: 200, the challenge echoed verbatim as text/plain, nosniff', async () => {
    const res = await handshake(
      configured.url,
      q({
        'hub.mode': 'subscribe',
        'hub.verify_token': TOKEN,
        'hub.challenge': '<b>1158201444</b>',
      }),
    );
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.text).toBe('<b>1158201444</b>');
  });

  it('the query as Meta writes it (dots and all, unencoded) is read the same', async () => {
    const res = await handshake(
      configured.url,
      `hub.mode=subscribe&hub.challenge=42&hub.verify_token=${encodeURIComponent(TOKEN)}`,
    );
    expect(res.status).toBe(200);
    expect(res.text).toBe('42');
  });

  it.each([
    [
      'a wrong token',
      q({ 'hub.mode': 'subscribe', 'hub.verify_token': 'nope', 'hub.challenge': '1' }),
    ],
    [
      'the token with + decoded as a space',
      `hub.mode=subscribe&hub.verify_token=${TOKEN.replace('/', '%2F').replace('&', '%26')}&hub.challenge=1`,
    ],
    [
      'another mode',
      q({ 'hub.mode': 'unsubscribe', 'hub.verify_token': TOKEN, 'hub.challenge': '1' }),
    ],
    ['no mode', q({ 'hub.verify_token': TOKEN, 'hub.challenge': '1' })],
    ['no token', q({ 'hub.mode': 'subscribe', 'hub.challenge': '1' })],
    [
      'the token given twice',
      `${q({ 'hub.mode': 'subscribe', 'hub.verify_token': TOKEN })}&${q({ 'hub.verify_token': TOKEN })}&hub.challenge=1`,
    ],
    [
      'nested keys instead of dotted ones',
      `hub[mode]=subscribe&hub[verify_token]=${encodeURIComponent(TOKEN)}&hub[challenge]=1`,
    ],
    ['no query at all', ''],
  ])('%s: 403', async (_label, query) => {
    const res = await handshake(configured.url, query);
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
  });

  it('the right token but no challenge: 400', async () => {
    const res = await handshake(
      configured.url,
      q({ 'hub.mode': 'subscribe', 'hub.verify_token': TOKEN }),
    );
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      error: 'Webhook processing failed',
      code: 'INVALID_REQUEST',
      message: 'The hub.challenge parameter is required',
      details: null,
    });
  });

  it('no MESSAGING_WEBHOOK_VERIFY_TOKEN configured: 403 for every token, the empty one included', async () => {
    for (const token of [TOKEN, '']) {
      const res = await handshake(
        unconfigured.url,
        q({ 'hub.mode': 'subscribe', 'hub.verify_token': token, 'hub.challenge': '1' }),
      );
      expect(res.status).toBe(403);
      expect(res.body).toEqual(FORBIDDEN);
    }
  });

  it('the verify token never reaches the log (the request line redacts it)', async () => {
    const res = await handshake(
      configured.url,
      q({ 'hub.mode': 'subscribe', 'hub.verify_token': TOKEN, 'hub.challenge': 'logged' }),
    );
    expect(res.status).toBe(200);
    expect(configured.log.text()).toContain('hub.verify_token=[redacted]');
    expect(configured.log.text()).not.toContain(encodeURIComponent(TOKEN));
    expect(configured.log.text()).not.toContain(TOKEN);
  });
});
