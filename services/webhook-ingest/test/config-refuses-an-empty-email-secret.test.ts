import { ConfigError, loadConfig } from '@crm/shared/config';
import { configSchema } from '../src/config';

describe('webhook-ingest configuration: EMAIL_WEBHOOK_SECRET', () => {
  const load = (value: string) =>
    loadConfig('webhook-ingest', configSchema, { EMAIL_WEBHOOK_SECRET: value });

  it('accepts a Standard Webhooks secret with or without its whsec_ prefix', () => {
    const key = Buffer.alloc(24, 7).toString('base64');
    expect(load(`whsec_${key}`).EMAIL_WEBHOOK_SECRET).toBe(`whsec_${key}`);
    expect(load(key).EMAIL_WEBHOOK_SECRET).toBe(key);
  });

  it('refuses a bare prefix or a non-base64 key at start-up, without echoing the value', () => {
    for (const value of ['whsec_', 'whsec_short', 'whsec_not base64!!']) {
      const error = (() => {
        try {
          load(value);
        } catch (thrown) {
          return thrown;
        }
      })();
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems).toEqual([
        'EMAIL_WEBHOOK_SECRET: expected whsec_ followed by a base64 key of at least 12 bytes (got "[redacted]")',
      ]);
    }
  });
});
