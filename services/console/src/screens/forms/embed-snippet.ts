import { HONEYPOT_FIELD } from '../../../../../libs/records/src/forms/form-rules';
import type { FormField } from '../../api/forms';

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const INPUT_TYPES: Record<string, string> = { text: 'text', email: 'email', tel: 'tel' };

/**
 * A plain HTML form posting to the form's public URL, one labelled input per field (an email
 * input first when the form has no `email` field: the submission always needs one) and the
 * honeypot, hidden by CSS rather than `type="hidden"` (which bots skip). It posts urlencoded,
 * which the public route takes.
 */
export function embedSnippet(action: string, formSlug: string, fields: FormField[]): string {
  const all: FormField[] = fields.some((f) => f.name === 'email')
    ? fields
    : [{ name: 'email', label: 'Email', type: 'email', required: true }, ...fields];
  const lines = [`<form action="${escape(action)}" method="post">`];
  for (const field of all) {
    const id = `${formSlug}-${field.name}`;
    const label = escape(field.label ?? field.name);
    const required = field.required || field.name === 'email' ? ' required' : '';
    const name = `name="${escape(field.name)}" id="${escape(id)}"`;
    if (field.type === 'checkbox') {
      lines.push(
        `  <p><input type="checkbox" ${name} value="yes"${required}> <label for="${escape(id)}">${label}</label></p>`,
      );
      continue;
    }
    lines.push(`  <p><label for="${escape(id)}">${label}</label><br>`);
    if (field.type === 'textarea') {
      lines.push(`    <textarea ${name}${required}></textarea></p>`);
    } else if (field.type === 'select') {
      lines.push(`    <select ${name}${required}>`);
      lines.push('      <option value="">Choose…</option>');
      for (const option of field.options ?? []) {
        lines.push(`      <option>${escape(option)}</option>`);
      }
      lines.push('    </select></p>');
    } else {
      lines.push(`    <input type="${INPUT_TYPES[field.type] ?? 'text'}" ${name}${required}></p>`);
    }
  }
  lines.push(
    `  <input type="text" name="${HONEYPOT_FIELD}" value="" tabindex="-1" autocomplete="off" aria-hidden="true" style="display:none">`,
    '  <button type="submit">Send</button>',
    '</form>',
  );
  return lines.join('\n');
}
