/*
 * What a numeric column can hold, checked before a receiver writes a provider's value into
 * it. A value Postgres refuses fails the whole INSERT (a 500 the provider retries forever), so
 * receivers check first and record the delivery as not stored instead (see PermanentFailure).
 */

/** Largest value of a Postgres `integer` column. */
export const INTEGER_MAX = 2_147_483_647;

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?$/;

/**
 * Whether the decimal string `value` fits a `numeric(precision, scale)` column as Postgres
 * stores it: rounded to `scale` fractional digits (half away from zero), then at most
 * `precision - scale` digits before the point. So for numeric(16, 2), 99999999999999.994 fits
 * (stored as 99999999999999.99) and 99999999999999.995 does not (it rounds to 10^14).
 * Computed on the digits: no float rounding. Not a decimal at all: false.
 */
export function fitsNumeric(value: string, precision: number, scale: number): boolean {
  const match = DECIMAL.exec(value.trim());
  if (!match || (match[2] === '' && (match[3] ?? '') === '')) return false;
  const whole = match[2].replace(/^0+/, '');
  const fraction = match[3] ?? '';
  const maxWhole = precision - scale;
  if (whole.length > maxWhole) return false;
  if (whole.length < maxWhole) return true;
  // Exactly maxWhole digits: only a carry out of the rounded fraction can overflow, which
  // needs every digit kept to be 9 and the first digit dropped to round up.
  const kept = fraction.slice(0, scale).padEnd(scale, '0');
  const roundsUp = Number(fraction.charAt(scale) || '0') >= 5;
  return !(roundsUp && /^9*$/.test(whole + kept));
}
