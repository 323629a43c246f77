/**
 * The deal rules a browser checks before sending, as plain values with no imports: the console
 * bundles this file as it is (the rest of the records library needs the database).
 */

/** Longest deal title. */
export const MAX_DEAL_TITLE = 300;
/** numeric(16,2): a decimal >= 0 with up to 14 digits before the point and 2 after. */
export const DEAL_VALUE_PATTERN = /^\d{1,14}(\.\d{1,2})?$/;
/** An ISO 4217 code as a form takes it (the API also checks it is a currency it knows). */
export const DEAL_CURRENCY_PATTERN = /^[A-Za-z]{3}$/;
