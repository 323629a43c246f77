import { z } from 'zod';
import { ConfigError, loadConfig, trustProxy } from '@crm/shared/config';

const schema = z.object({ TRUST_PROXY: trustProxy() });
const parse = (value?: string) =>
  loadConfig('gateway', schema, value === undefined ? {} : { TRUST_PROXY: value }).TRUST_PROXY;

describe('TRUST_PROXY', () => {
  it('trusts no proxy when unset, empty or 0', () => {
    expect(parse()).toBe(false);
    expect(parse('')).toBe(false);
    expect(parse('0')).toBe(false);
  });

  it('reads a hop count', () => {
    expect(parse('1')).toBe(1);
    expect(parse(' 2 ')).toBe(2);
  });

  it('reads a list of addresses, CIDR ranges and keywords', () => {
    expect(parse('10.0.0.0/8, 192.168.1.7,fd00::/8 ,loopback')).toEqual([
      '10.0.0.0/8',
      '192.168.1.7',
      'fd00::/8',
      'loopback',
    ]);
    expect(parse('10.1.0.0/255.255.0.0')).toEqual(['10.1.0.0/255.255.0.0']);
  });

  it.each([
    'true',
    'all',
    '-1',
    '1.5',
    '10.0.0.0/33',
    '10.0.0.0/8/1',
    'proxy.internal',
    ',',
    '101',
  ])('refuses %j, naming the variable and the accepted forms', (value) => {
    expect(() => parse(value)).toThrow(ConfigError);
    expect(() => parse(value)).toThrow(/TRUST_PROXY: expected a number of proxy hops/);
  });
});
