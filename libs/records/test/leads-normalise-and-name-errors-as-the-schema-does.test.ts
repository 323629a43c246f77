import fc from 'fast-check';
import {
  LEAD_ERRORS,
  leadImportItemSchema,
  normalizeLead,
  normalizeSource,
  prepareLeads,
} from '../src';

/**
 * Unit tier (no database): a lead import item's normalisation, the exact error texts the
 * import route answers, and the zod schema agreeing with the hand-written fast path.
 */
describe('normalizeLead', () => {
  it('lower-cases and trims the email, folds the source, and puts unknown keys in custom_fields', () => {
    expect(
      normalizeLead({
        email: '  Ada@Example.COM ',
        first_name: ' Ada ',
        last_name: '',
        phone: 5550100,
        status: ' Qualified ',
        lead_source: 'Web Form',
        company: 'Analytical Engines',
        custom_fields: { tier: 'gold', company: 'overridden' },
      }),
    ).toEqual({
      ok: true,
      lead: {
        email: 'ada@example.com',
        first_name: 'Ada',
        last_name: null,
        phone: '5550100',
        status: 'qualified',
        source: 'web_form',
        custom_fields: { tier: 'gold', company: 'Analytical Engines' },
      },
    });
  });

  it('leaves out what was not given, so an update keeps the stored value', () => {
    expect(normalizeLead({ email: 'a@b.co' })).toEqual({
      ok: true,
      lead: { email: 'a@b.co', custom_fields: {} },
    });
  });

  it('takes lead_source over source, and source when lead_source is null', () => {
    expect(normalizeLead({ email: 'a@b.co', lead_source: 'csv', source: 42 })).toMatchObject({
      ok: true,
      lead: { source: 'csv_import' },
    });
    expect(normalizeLead({ email: 'a@b.co', lead_source: null, source: 'LinkedIn' })).toMatchObject(
      { ok: true, lead: { source: 'network' } },
    );
  });

  it.each([
    ['not an object', 'just a string', 'Lead must be an object'],
    ['an array', [], 'Lead must be an object'],
    ['no email', { first_name: 'A' }, 'Email is required'],
    ['a blank email', { email: '   ' }, 'Email is required'],
    ['a null email', { email: null }, 'Email is required'],
    ['a number for an email', { email: 42 }, 'Invalid email'],
    ['a malformed email', { email: 'not-an-email' }, 'Invalid email'],
    ['an email over 320 characters', { email: `${'a'.repeat(320)}@b.co` }, 'Invalid email'],
    [
      'an unknown status',
      { email: 'a@b.co', status: 'sleeping' },
      'Invalid status "sleeping"; one of: new, contacted, qualified, unqualified, converted, lost',
    ],
    [
      'a status that is not a string',
      { email: 'a@b.co', status: 3 },
      'Invalid status 3; one of: new, contacted, qualified, unqualified, converted, lost',
    ],
    [
      'a boolean first_name',
      { email: 'a@b.co', first_name: true },
      LEAD_ERRORS.notAString('first_name'),
    ],
    [
      'a long phone',
      { email: 'a@b.co', phone: 'x'.repeat(201) },
      'Invalid phone: at most 200 characters',
    ],
    [
      'a source that is not a string',
      { email: 'a@b.co', source: {} },
      'Invalid source: must be a string',
    ],
    [
      'custom_fields as a list',
      { email: 'a@b.co', custom_fields: [1] },
      'Invalid custom_fields: must be an object',
    ],
  ])('refuses %s with the text clients read', (_what, row, error) => {
    expect(normalizeLead(row)).toEqual({ ok: false, error });
  });

  it('reports the first problem in field order', () => {
    expect(normalizeLead({ email: 'bad', status: 'sleeping' })).toEqual({
      ok: false,
      error: 'Invalid email',
    });
    expect(normalizeLead({ email: 'a@b.co', status: 'sleeping', custom_fields: 1 })).toEqual({
      ok: false,
      error:
        'Invalid status "sleeping"; one of: new, contacted, qualified, unqualified, converted, lost',
    });
  });
});

describe('normalizeSource', () => {
  it.each([
    ['Web Form', 'web_form'],
    [' website ', 'web_form'],
    ['E-Mail', 'email'],
    ['PPC', 'paid_ads'],
    ['Trade  Show!', 'trade_show'],
    ['constructor', 'constructor'],
    ['   ', undefined],
  ])('%j -> %j', (raw, expected) => {
    expect(normalizeSource(raw)).toBe(expected);
  });
});

describe('prepareLeads', () => {
  it('keeps the valid rows in order and reports the others by their index', () => {
    const { leads, errors } = prepareLeads([
      { email: 'a@b.co' },
      { first_name: 'x' },
      7,
      { email: 'C@D.co' },
    ]);
    expect(leads.map((l) => l.email)).toEqual(['a@b.co', 'c@d.co']);
    expect(errors).toEqual([
      { index: 1, error: 'Email is required' },
      { index: 2, error: 'Lead must be an object' },
    ]);
  });
});

describe('leadImportItemSchema (the zod schema of an import item)', () => {
  /** Mostly what a field takes (so most rows are valid), sometimes anything at all. */
  const mostly = <T>(good: fc.Arbitrary<T>) =>
    fc.oneof({ arbitrary: good, weight: 12 }, { arbitrary: anything, weight: 1 });
  const anything: fc.Arbitrary<unknown> = fc.oneof(
    fc.string({ maxLength: 8 }),
    fc.constant(null),
    fc.integer(),
    fc.boolean(),
    fc.constant([]),
    fc.dictionary(fc.constantFrom('tier', 'company'), fc.string({ maxLength: 3 })),
  );
  // Around every limit: 200 characters after trimming is the most a text field takes, 320 an
  // email (trimmed and lower-cased).
  const text = fc.oneof(
    fc.constantFrom('', '  ', 'Ada', ' Web Form ', null),
    fc
      .tuple(fc.constantFrom('', ' '), fc.integer({ min: 199, max: 201 }))
      .map(([pad, n]) => `${pad}${'x'.repeat(n)}${pad}`),
    fc.string({ maxLength: 8 }),
    fc.integer(),
  );
  const email = fc.oneof(
    fc.constantFrom('ada@example.com', ' Ada@Example.COM ', 'not-an-email', '  '),
    fc.integer({ min: 314, max: 316 }).map((n) => ` ${'A'.repeat(n)}@b.co `),
    fc.emailAddress(),
  );
  const status = fc.constantFrom(null, '', 'new', ' Contacted', 'LOST', 'sleeping', '  ');
  const customFields = fc.oneof(
    fc.constant(null),
    fc.dictionary(fc.constantFrom('tier', 'company'), fc.string({ maxLength: 3 })),
  );
  const row = fc.record(
    {
      email: mostly(email),
      first_name: mostly(text),
      last_name: mostly(text),
      phone: mostly(text),
      status: mostly(status),
      lead_source: mostly(text),
      source: mostly(text),
      custom_fields: mostly(customFields),
      company: anything,
    },
    { requiredKeys: [] },
  );

  it('refuses exactly what normalizeLead refuses, with its first issue as normalizeLead’s text', () => {
    let accepted = 0;
    let refused = 0;
    fc.assert(
      fc.property(fc.oneof({ arbitrary: row, weight: 9 }, anything), (candidate) => {
        const fast = normalizeLead(candidate);
        const parsed = leadImportItemSchema.safeParse(candidate);
        expect(parsed.success).toBe(fast.ok);
        if (!fast.ok && !parsed.success) expect(parsed.error.issues[0].message).toBe(fast.error);
        if (fast.ok) accepted++;
        else refused++;
      }),
      { numRuns: 3000 },
    );
    // Both verdicts were exercised (about 10 % of the rows are valid, 90 % refused).
    expect(accepted).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(100);
  });
});
