/**
 * A date and time as the user's locale writes it, the same text as `Date#toLocaleString()`,
 * from one formatter made when a screen's code loads. The first formatter of a page costs
 * tens of milliseconds (the locale's data); made in a table's first render, as each row's
 * `toLocaleString` did, that cost came after the rows' answer (60-90 ms on a loaded machine),
 * while made here it is paid as the code loads, beside the requests still travelling.
 */
const FORMAT = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
  second: 'numeric',
});

export function dateTime(value: string | number | Date): string {
  return FORMAT.format(new Date(value));
}
