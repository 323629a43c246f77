import { hashPassword, verifyPassword } from '@crm/shared/crypto';

describe('hashPassword / verifyPassword', () => {
  const password = 'correct horse battery staple';
  let stored: string;

  beforeAll(async () => {
    stored = await hashPassword(password);
  });

  it('stores scrypt$N$r$p$salt$key with the default cost, a 16-byte salt and a 32-byte key', () => {
    const parts = stored.split('$');
    expect(parts).toHaveLength(6);
    expect(parts.slice(0, 4)).toEqual(['scrypt', '32768', '8', '1']);
    expect(Buffer.from(parts[4], 'base64')).toHaveLength(16);
    expect(Buffer.from(parts[5], 'base64')).toHaveLength(32);
  });

  it('verifies the password it was made from', async () => {
    await expect(verifyPassword(password, stored)).resolves.toBe(true);
  });

  it('rejects a wrong password, including one differing only in case or a trailing space', async () => {
    await expect(verifyPassword('wrong password', stored)).resolves.toBe(false);
    await expect(verifyPassword('Correct horse battery staple', stored)).resolves.toBe(false);
    await expect(verifyPassword(`${password} `, stored)).resolves.toBe(false);
    await expect(verifyPassword('', stored)).resolves.toBe(false);
  });

  it('never contains the password, in clear or in base64', () => {
    expect(stored).not.toContain(password);
    expect(stored).not.toContain(Buffer.from(password).toString('base64'));
    expect(stored).not.toContain(Buffer.from(password).toString('hex'));
  });

  it('salts each hash: two hashes of the same password differ and both verify', async () => {
    const again = await hashPassword(password);
    expect(again).not.toBe(stored);
    expect(again.split('$')[4]).not.toBe(stored.split('$')[4]);
    await expect(verifyPassword(password, again)).resolves.toBe(true);
  });

  it('treats Unicode compositions of the same text as the same password (NFKC)', async () => {
    const composed = await hashPassword('caf\u00e9');
    await expect(verifyPassword('cafe\u0301', composed)).resolves.toBe(true);
  });

  it('rejects a hash whose key was altered', async () => {
    const parts = stored.split('$');
    const key = Buffer.from(parts[5], 'base64');
    key[0] ^= 0xff;
    const altered = [...parts.slice(0, 5), key.toString('base64')].join('$');
    await expect(verifyPassword(password, altered)).resolves.toBe(false);
  });

  describe('a malformed stored hash is false, never an exception', () => {
    const salt = Buffer.alloc(16, 1).toString('base64');
    const key = Buffer.alloc(32, 2).toString('base64');
    const cases: Array<[string, string]> = [
      ['empty string', ''],
      ['a bcrypt hash', '$2b$10$abcdefghijklmnopqrstuuABCDEFGHIJKLMNOPQRSTUVWXYZ01234'],
      ['the clear password itself', 'correct horse battery staple'],
      ['too few parts', `scrypt$32768$8$1$${salt}`],
      ['too many parts', `scrypt$32768$8$1$${salt}$${key}$extra`],
      ['another algorithm name', `argon2$32768$8$1$${salt}$${key}`],
      ['non-numeric cost', `scrypt$abc$8$1$${salt}$${key}`],
      ['zero cost', `scrypt$0$8$1$${salt}$${key}`],
      ['negative cost', `scrypt$32768$-8$1$${salt}$${key}`],
      ['fractional cost', `scrypt$32768$8.5$1$${salt}$${key}`],
      ['N not a power of two (node scrypt throws on it)', `scrypt$3$8$1$${salt}$${key}`],
      ['N so large it would need a terabyte', `scrypt$1073741824$8$1$${salt}$${key}`],
      ['p so large scrypt refuses it', `scrypt$32768$8$99999999$${salt}$${key}`],
      ['empty salt and key', 'scrypt$32768$8$1$$'],
      ['key of the wrong length', `scrypt$16$1$1$${salt}$${Buffer.alloc(8).toString('base64')}`],
    ];
    it.each(cases)('%s', async (_name, malformed) => {
      await expect(verifyPassword(password, malformed)).resolves.toBe(false);
    });
  });

  it('still verifies a hash made with other (cheaper) stored parameters', async () => {
    // The cost travels with the hash; build one by hand with N=16, r=1, p=1.
    const { scryptSync } = await import('node:crypto');
    const salt = Buffer.alloc(16, 7);
    const key = scryptSync(password, salt, 32, { N: 16, r: 1, p: 1 });
    const cheap = ['scrypt', 16, 1, 1, salt.toString('base64'), key.toString('base64')].join('$');
    await expect(verifyPassword(password, cheap)).resolves.toBe(true);
    await expect(verifyPassword('not it', cheap)).resolves.toBe(false);
  });
});
