import { fitsNumeric } from '@crm/shared/inbound';

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

/** The column amounts are stored in: payment_events.amount numeric(16, 2). */
export const AMOUNT_COLUMN = { name: 'payment_events.amount', precision: 16, scale: 2 } as const;

function exponentOf(currency: string | null): number {
  if (currency && ZERO_DECIMAL.has(currency)) return 0;
  if (currency && THREE_DECIMAL.has(currency)) return 3;
  return 2;
}

/**
 * An amount read from a payload: `major` is the major-unit decimal string, or null when the
 * event carries no integer amount (stored without one, as before); `unstorable` says why an
 * amount the event does carry cannot be stored (the delivery is then recorded, not stored).
 */
export type MinorAmount = { major: string | null } | { unstorable: string };

/**
 * An integer amount in minor units (number or digit string) in major units, computed on the
 * digits so no float rounding creeps in: (1999, 'USD') -> '19.99', (1000, 'JPY') -> '1000'.
 * An amount outside AMOUNT_COLUMN (after Postgres's rounding to 2 places: 99999999999999999 KWD
 * is 99999999999999.999, which rounds to 10^14), or a JSON number beyond 2^53 (JSON.parse
 * may already have changed it), is unstorable: never stored as something else.
 */
export function readMinorAmount(minor: unknown, currency: string | null): MinorAmount {
  const digits = minorDigits(minor);
  if (digits === null) return { major: null };
  const negative = digits.startsWith('-');
  const exponent = exponentOf(currency);
  const padded = digits.replace('-', '').padStart(exponent + 1, '0');
  const whole = padded.slice(0, padded.length - exponent).replace(/^0+(?=\d)/, '');
  const fraction = padded.slice(padded.length - exponent);
  const sign = negative && /[1-9]/.test(padded) ? '-' : '';
  const major = exponent === 0 ? `${sign}${whole}` : `${sign}${whole}.${fraction}`;
  const described = `${major.length > 40 ? `${major.slice(0, 40)}...` : major} ${currency ?? ''}`;
  if (!fitsNumeric(major, AMOUNT_COLUMN.precision, AMOUNT_COLUMN.scale)) {
    return {
      unstorable: `The amount ${described.trim()} does not fit ${AMOUNT_COLUMN.name} numeric(${AMOUNT_COLUMN.precision},${AMOUNT_COLUMN.scale})`,
    };
  }
  if (typeof minor === 'number' && !Number.isSafeInteger(minor)) {
    return {
      unstorable: `The amount ${described.trim()} was sent as a JSON number beyond 2^53 and cannot be read exactly`,
    };
  }
  return { major };
}

/** The amount's digits (with a leading `-`), or null when it is not an integer. */
function minorDigits(minor: unknown): string | null {
  if (typeof minor === 'number') {
    // Beyond 2^53 the digits are those of the parsed double: good enough to tell it is too large.
    return Number.isInteger(minor) ? BigInt(minor).toString() : null;
  }
  if (typeof minor === 'string' && /^-?\d{1,200}$/.test(minor.trim())) return minor.trim();
  return null;
}

/** The amount fields of a NormalizedPayment read from a minor-unit amount. */
export function amountFields(
  minor: unknown,
  currency: string | null,
): { amount: string | null; unstorableAmount?: string } {
  const read = readMinorAmount(minor, currency);
  return 'unstorable' in read
    ? { amount: null, unstorableAmount: read.unstorable }
    : { amount: read.major };
}
