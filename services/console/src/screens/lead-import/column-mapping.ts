import { IMPORT_LEAD_FIELDS, type ImportLead, type ImportLeadField } from '../../api/lead-import';

/**
 * What a file's column becomes: a lead field, a custom field named after the column (as the API
 * does with keys it does not know), the custom fields of an export read back (a JSON object), or
 * nothing.
 */
export type ColumnTarget = ImportLeadField | 'custom' | 'custom_json' | 'skip';

export const TARGET_LABELS: Record<ColumnTarget, string> = {
  email: 'Email',
  first_name: 'First name',
  last_name: 'Last name',
  phone: 'Phone',
  status: 'Status',
  source: 'Source',
  custom: 'Custom field',
  custom_json: 'Custom fields (JSON object)',
  skip: 'Do not import',
};

const ALIASES: Record<string, ColumnTarget> = {
  email: 'email',
  emailaddress: 'email',
  mail: 'email',
  firstname: 'first_name',
  first: 'first_name',
  givenname: 'first_name',
  forename: 'first_name',
  lastname: 'last_name',
  last: 'last_name',
  surname: 'last_name',
  familyname: 'last_name',
  phone: 'phone',
  phonenumber: 'phone',
  telephone: 'phone',
  tel: 'phone',
  mobile: 'phone',
  status: 'status',
  leadstatus: 'status',
  source: 'source',
  leadsource: 'source',
  customfields: 'custom_json',
  // A leads export's own bookkeeping: imported back they would only become custom fields.
  id: 'skip',
  createdat: 'skip',
  updatedat: 'skip',
};

/** The first guess for each column by its title; a lead field goes to its first column only. */
export function guessMapping(headers: string[]): ColumnTarget[] {
  const taken = new Set<ColumnTarget>();
  return headers.map((header) => {
    const guess = ALIASES[header.toLowerCase().replace(/[^a-z0-9]/g, '')] ?? 'custom';
    if ((IMPORT_LEAD_FIELDS as readonly string[]).includes(guess)) {
      if (taken.has(guess)) return 'custom';
      taken.add(guess);
    }
    return guess;
  });
}

/** Why a mapping cannot be imported: no email column, or a lead field chosen twice. */
export function mappingProblems(mapping: ColumnTarget[], headers: string[]): string[] {
  const problems: string[] = [];
  if (!mapping.includes('email')) {
    problems.push('Choose the column that holds the email: every lead needs one.');
  }
  for (const field of IMPORT_LEAD_FIELDS) {
    const columns = headers.filter((_, i) => mapping[i] === field);
    if (columns.length > 1) {
      problems.push(
        `${TARGET_LABELS[field]} is chosen for ${columns.length} columns (${columns.join(', ')}): choose it for one.`,
      );
    }
  }
  return problems;
}

/**
 * One file row as the import route takes it. An empty cell is left out, so it neither stores
 * an empty string nor, for a lead that exists, clears what is stored (a field left out keeps
 * its value). A custom-fields cell that is not a JSON object is kept as text under its column.
 */
export function leadOf(row: string[], mapping: ColumnTarget[], headers: string[]): ImportLead {
  const lead: ImportLead = {};
  const custom: Record<string, unknown> = {};
  mapping.forEach((target, i) => {
    const value = row[i] ?? '';
    if (target === 'skip' || value.trim() === '') return;
    if (target === 'custom') {
      custom[headers[i]] = value;
    } else if (target === 'custom_json') {
      const parsed = parseObject(value);
      if (parsed) Object.assign(custom, parsed);
      else custom[headers[i]] = value;
    } else {
      lead[target] = value;
    }
  });
  if (Object.keys(custom).length > 0) lead.custom_fields = custom;
  return lead;
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
