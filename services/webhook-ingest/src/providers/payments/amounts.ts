/**
 * Providers send amounts in the currency's minor unit (cents, paise): the number of minor
 * units per major unit is 10^exponent, 2 for most currencies. Zero-decimal currencies are
 * sent in whole units (Stripe's list, which Paddle's JPY and KRW agree with); three-decimal
 * dinars in thousandths.
 */
const ZERO_DECIMAL = new Set(
  'BIF CLP DJF GNF JPY KMF KRW MGA PYG RWF UGX VND VUV XAF XOF XPF'.split(' '),
);
const THREE_DECIMAL = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND']);
/** payment_events.amount is numeric(16, 2): at most 14 digits before the point. */
const MAX_WHOLE_DIGITS = 14;

function exponentOf(currency: string | null): number {
  if (currency && ZERO_DECIMAL.has(currency)) return 0;
  if (currency && THREE_DECIMAL.has(currency)) return 3;
  return 2;
}

/**
 * An integer amount in minor units (number or digit string) as a major-unit decimal string,
 * computed on the digits so no float rounding creeps in: (1999, 'USD') -> '19.99',
 * (1000, 'JPY') -> '1000'. null for anything that is not an integer, or too large to store.
 */
export function minorToMajor(minor: unknown, currency: string | null): string | null {
  const digits =
    typeof minor === 'number' && Number.isSafeInteger(minor)
      ? String(minor)
      : typeof minor === 'string' && /^-?\d{1,30}$/.test(minor.trim())
        ? minor.trim()
        : null;
  if (digits === null) return null;
  const negative = digits.startsWith('-');
  const exponent = exponentOf(currency);
  const padded = digits.replace('-', '').padStart(exponent + 1, '0');
  const whole = padded.slice(0, padded.length - exponent).replace(/^0+(?=\d)/, '');
  const fraction = padded.slice(padded.length - exponent);
  if (whole.length > MAX_WHOLE_DIGITS) return null;
  const sign = negative && /[1-9]/.test(padded) ? '-' : '';
  return exponent === 0 ? `${sign}${whole}` : `${sign}${whole}.${fraction}`;
}
