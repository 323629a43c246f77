import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTelemetry } from '@crm/shared/telemetry';

describe('startTelemetry', () => {
  it('does nothing without OTEL_EXPORTER_OTLP_ENDPOINT', async () => {
    const telemetry = startTelemetry('test-service', {});
    await expect(telemetry.shutdown()).resolves.toBeUndefined();
  });

  it('exports spans over OTLP/HTTP to <endpoint>/v1/traces when configured', async () => {
    const received: Array<{ path: string; bytes: number }> = [];
    const collector: Server = createServer((req, res) => {
      let bytes = 0;
      req.on('data', (chunk: Buffer) => (bytes += chunk.length));
      req.on('end', () => {
        received.push({ path: req.url ?? '', bytes });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const { port } = collector.address() as AddressInfo;
    try {
      const tsx = join(__dirname, '..', '..', '..', 'node_modules', '.bin', 'tsx');
      const { stdout } = await promisify(execFile)(
        tsx,
        [join(__dirname, 'fixtures', 'emit-one-span.ts')],
        {
          env: { PATH: process.env.PATH, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}/` },
        },
      );
      expect(stdout).toContain('flushed');
      expect(received.map((r) => r.path)).toContain('/v1/traces');
      expect(received.find((r) => r.path === '/v1/traces')?.bytes).toBeGreaterThan(0);
    } finally {
      await new Promise((resolve) => collector.close(resolve));
    }
  });
});
