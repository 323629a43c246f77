import { embedSnippet } from '../src/screens/forms/embed-snippet';
import { formEditorSchema, toDefinition } from '../src/screens/forms/form-schema';

/*
 * What the Forms screen builds from a form: the embed snippet (escaped, an email input even
 * when the form has none, the honeypot) and the body it sends from the editor's values, after
 * the API's own rules.
 */
describe('embedSnippet', () => {
  const URL = 'https://crm.example.com/api/public/forms/acme/contact-us/submit';

  it('posts to the URL with a labelled input per field, an email first, and the honeypot', () => {
    const html = embedSnippet(URL, 'contact-us', [
      { name: 'topic', label: 'Topic', type: 'select', required: true, options: ['a&b', 'c'] },
      { name: 'note', type: 'textarea', required: false },
    ]);
    expect(html.split('\n')[0]).toBe(`<form action="${URL}" method="post">`);
    expect(html).toContain('<label for="contact-us-email">Email</label>');
    expect(html).toContain('<input type="email" name="email" id="contact-us-email" required>');
    expect(html.indexOf('name="email"')).toBeLessThan(html.indexOf('name="topic"'));
    expect(html).toContain('<select name="topic" id="contact-us-topic" required>');
    expect(html).toContain('<option>a&#38;b</option>');
    expect(html).toContain('<textarea name="note" id="contact-us-note"></textarea>');
    expect(html).toContain('name="_hp" value="" tabindex="-1"');
    expect(html.trimEnd().endsWith('</form>')).toBe(true);
  });

  it('escapes a label that holds markup', () => {
    const html = embedSnippet(URL, 'x', [
      { name: 'email', label: '<b>"Mail"</b>', type: 'email', required: true },
    ]);
    expect(html).toContain('>&#60;b&#62;&#34;Mail&#34;&#60;/b&#62;</label>');
    expect(html.match(/name="email"/g)).toHaveLength(1);
  });
});

describe('the form editor', () => {
  const values = {
    name: ' Contact us ',
    slug: 'contact-us',
    enabled: true,
    fields: [
      { name: 'email', label: '', type: 'email' as const, required: true, options: '' },
      { name: 'topic', label: 'Topic', type: 'select' as const, required: false, options: 'a, b,' },
      { name: 'note', label: 'Note', type: 'text' as const, required: false, options: 'ignored' },
    ],
  };

  it('sends what the API takes: no empty label, options only for a select', () => {
    expect(formEditorSchema.safeParse(values).success).toBe(true);
    expect(toDefinition(values)).toEqual({
      name: 'Contact us',
      slug: 'contact-us',
      enabled: true,
      fields: [
        { name: 'email', type: 'email', required: true },
        { name: 'topic', label: 'Topic', type: 'select', required: false, options: ['a', 'b'] },
        { name: 'note', label: 'Note', type: 'text', required: false },
      ],
    });
  });

  it("refuses what the API refuses: a bad slug, the honeypot's name, a name twice, a select without options", () => {
    const issues = (v: unknown) =>
      formEditorSchema.safeParse(v).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(issues({ ...values, slug: 'Contact Us' })).toEqual([
      'slug: slug must be lower-case letters, digits and single dashes (e.g. contact-us)',
    ]);
    const field = values.fields[2];
    expect(
      issues({
        ...values,
        fields: [
          { ...field, name: '_hp' },
          { ...field, name: 'note' },
          { ...field, name: 'note' },
          { ...field, name: 'pick', type: 'select', options: ' , ' },
        ],
      }),
    ).toEqual([
      'fields.0.name: field name must start with a letter and hold only letters, digits and _ (<= 64)',
      "fields.0.name: _hp is the honeypot's name",
      'fields.3.options: A select field needs options',
      'fields.2.name: The name note is used twice',
    ]);
  });
});
