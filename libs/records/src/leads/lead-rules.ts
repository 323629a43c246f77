/**
 * The lead rules a browser checks before sending, as plain values with no imports: the console
 * bundles this file as it is (the rest of the records library needs the database), so a form
 * and the API refuse the same input with the same words.
 */

/** Longest email a lead may have (the crm_leads CHECK). */
export const MAX_LEAD_EMAIL = 320;
/** Longest first_name, last_name or phone, after trimming. */
export const MAX_LEAD_TEXT = 200;
/** Longest source a change may give, before normalising. */
export const MAX_LEAD_SOURCE = 100;

/** Error texts of a lead that do not depend on the list of statuses (see LEAD_ERRORS). */
export const LEAD_FIELD_ERRORS = {
  emailRequired: 'Email is required',
  invalidEmail: 'Invalid email',
  notAString: (key: string) => `Invalid ${key}: must be a string`,
  tooLong: (key: string) => `Invalid ${key}: at most ${MAX_LEAD_TEXT} characters`,
  sourceTooLong: `Invalid source: at most ${MAX_LEAD_SOURCE} characters`,
} as const;
