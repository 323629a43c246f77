import express from 'express';
import type { AddressInfo } from 'node:net';
import { closeServer, listen } from '@crm/shared/service';

describe('closeServer (graceful shutdown)', () => {
  it('lets an in-flight request finish, then refuses new connections', async () => {
    const app = express();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const requestStarted = new Promise<void>((resolve) => (started = resolve));
    app.get('/slow', async (_req, res) => {
      started();
      await released;
      res.json({ finished: true });
    });
    const server = await listen(app, 0, '127.0.0.1');
    const { port } = server.address() as AddressInfo;

    const inFlight = fetch(`http://127.0.0.1:${port}/slow`).then(async (r) => ({
      status: r.status,
      body: await r.json(),
    }));
    await requestStarted;
    let closed = false;
    const closing = closeServer(server, 10_000).then(() => (closed = true));

    // Closing waits for the request; new connections are already refused.
    await expect(fetch(`http://127.0.0.1:${port}/slow`)).rejects.toThrow();
    expect(closed).toBe(false);

    release();
    await expect(inFlight).resolves.toEqual({ status: 200, body: { finished: true } });
    await closing;
    expect(closed).toBe(true);
  });

  it('cuts a request that outlives the timeout instead of hanging', async () => {
    const app = express();
    app.get('/stuck', () => undefined); // never answers
    const server = await listen(app, 0, '127.0.0.1');
    const { port } = server.address() as AddressInfo;
    const stuck = fetch(`http://127.0.0.1:${port}/stuck`).then(
      () => 'answered',
      () => 'cut',
    );
    await new Promise((r) => setTimeout(r, 50));
    await closeServer(server, 100);
    await expect(stuck).resolves.toBe('cut');
  });
});
