import { fitsNumeric } from '@crm/shared/inbound';

/**
 * fitsNumeric answers what Postgres would: a value is rounded to the column's scale (half away
 * from zero) and then must have at most precision - scale digits before the point.
 */
describe('fitsNumeric(value, 16, 2)', () => {
  it.each([
    '0',
    '0.00',
    '-0.5',
    '403.50',
    '99999999999999.99',
    '-99999999999999.99',
    '99999999999999.994',
    '9999999999999.999',
    '00000000000000099999999999999.99',
    '.5',
    '5.',
  ])('%s fits', (value) => {
    expect(fitsNumeric(value, 16, 2)).toBe(true);
  });

  it.each([
    '100000000000000',
    '-100000000000000.00',
    '99999999999999.995',
    '-99999999999999.995',
    '99999999999999.999',
    `1${'0'.repeat(60)}`,
    '',
    '.',
    '-',
    '1e5',
    '12.3.4',
    'NaN',
  ])('%s does not', (value) => {
    expect(fitsNumeric(value, 16, 2)).toBe(false);
  });
});

describe('fitsNumeric at scale 0 and 3', () => {
  it('numeric(3, 0): 999 fits, 999.5 rounds to 1000 and does not', () => {
    expect(fitsNumeric('999', 3, 0)).toBe(true);
    expect(fitsNumeric('999.4', 3, 0)).toBe(true);
    expect(fitsNumeric('999.5', 3, 0)).toBe(false);
  });

  it('numeric(5, 3): 99.9994 fits, 99.9995 does not', () => {
    expect(fitsNumeric('99.9994', 5, 3)).toBe(true);
    expect(fitsNumeric('99.9995', 5, 3)).toBe(false);
  });
});
