import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pushChunk, PushStopped } from '../src/push/push-chunk';

/** A stand-in ingest that answers from a script and records each attempt's nonce. */
async function scriptedServer(
  answers: Array<{ status: number; body: object; headers?: Record<string, string> }>,
) {
  const nonces: string[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    nonces.push(String(req.headers['x-svc-nonce']));
    req.resume();
    req.on('end', () => {
      const answer = answers.shift() ?? { status: 500, body: {} };
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    nonces,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

const OK = {
  success: true,
  entity: 'leads',
  received: 1,
  created: 1,
  updated: 0,
  failed: 0,
  errors: [],
};
const target = (url: string) => ({
  url,
  secret: 's',
  tenant: 't',
  source: 'hubspot',
  entity: 'leads',
});

describe('pushChunk', () => {
  it('retries a 503, a 429 (honouring Retry-After) and nonce_store_error, each signed with a new nonce', async () => {
    const server = await scriptedServer([
      { status: 503, body: { error: 'Service unavailable' } },
      { status: 429, body: { error: 'Too many requests' }, headers: { 'retry-after': '0' } },
      { status: 401, body: { error: 'nonce_store_error' } },
      { status: 200, body: OK },
    ]);
    const retries: string[] = [];
    try {
      const answer = await pushChunk(target(server.url), [{}], (_attempt, why) =>
        retries.push(why),
      );
      expect(answer).toEqual(OK);
      expect(retries).toEqual(['Service unavailable', 'Too many requests', 'nonce_store_error']);
      expect(new Set(server.nonces).size).toBe(4);
    } finally {
      await server.close();
    }
  });

  it('stops at once on bad_signature and on a refusal no retry can fix', async () => {
    const server = await scriptedServer([
      { status: 401, body: { error: 'bad_signature' } },
      { status: 404, body: { error: 'Not found', message: 'No tenant "t"' } },
    ]);
    try {
      await expect(pushChunk(target(server.url), [{}])).rejects.toThrow(PushStopped);
      await expect(pushChunk(target(server.url), [{}])).rejects.toThrow(
        'the server refused the records (404 Not found: No tenant "t")',
      );
      expect(server.nonces).toHaveLength(2);
    } finally {
      await server.close();
    }
  });
});
