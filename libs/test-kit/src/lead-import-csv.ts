/*
 * The lead import file the browser tests upload: 2,000 rows of which 3 are refused, and what
 * the refused rows' download must say about them, kept in one place so every test that imports
 * it expects the same rows and the same error texts.
 */
export const LEAD_IMPORT_HEADER = 'Email,First name,Last name,Phone,Status,Source,Company';
const STATUSES = ['new', 'contacted', 'qualified'];

/**
 * 2,000 rows, `lead<i>@import.test` with status new, contacted, qualified in turn; rows 500
 * (an invalid email), 1200 (status "bogus") and 1999 (no email), lines 502, 1202 and 2001 of
 * the file, are refused.
 */
export function leadImportCsv(): string {
  const lines = [LEAD_IMPORT_HEADER];
  for (let i = 0; i < 2000; i++) {
    const email = i === 500 ? 'not-an-email' : i === 1999 ? '' : `lead${i}@import.test`;
    const status = i === 1200 ? 'bogus' : STATUSES[i % 3];
    lines.push(
      `${email},First${i},"Last, ${i}",+1 555 ${String(i).padStart(4, '0')},${status},web,Acme ${i % 7}`,
    );
  }
  return lines.join('\r\n') + '\r\n';
}

/** The refused rows of `leadImportCsv()`: Email, Status, Line in file, Import error. */
export const REJECTED_IMPORT_ROWS = [
  ['not-an-email', 'qualified', '502', 'Invalid email'],
  [
    'lead1200@import.test',
    'bogus',
    '1202',
    'Invalid status "bogus"; one of: new, contacted, qualified, unqualified, converted, lost',
  ],
  ['', 'contacted', '2001', 'Email is required'],
];
