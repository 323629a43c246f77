import type { ExportColumn } from './export-resources';

/**
 * A cell as text, lossless: times in ISO 8601 UTC, money and dates as stored, JSON as JSON,
 * no value as an empty cell. What the CSV carries.
 */
export function cellText(value: unknown, column: ExportColumn): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString();
  if (column.kind === 'json') return JSON.stringify(value);
  return String(value);
}

/** `12500.5` -> `12,500.50` without going through a float (numeric(16,2) exceeds 2^53 cents). */
function groupedMoney(value: string): string {
  const [whole, fraction = ''] = value.split('.');
  return `${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${fraction.padEnd(2, '0')}`;
}

/** A cell for people to read (the PDF): minutes in UTC, grouped money, the rest as the CSV. */
export function readableText(value: unknown, column: ExportColumn): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return `${value.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  if (column.kind === 'money' && /^\d+(\.\d+)?$/.test(String(value))) {
    return groupedMoney(String(value));
  }
  return cellText(value, column);
}
