import { useId } from 'react';
import type { ImportLead } from '../../api/lead-import';
import { TARGET_LABELS, type ColumnTarget } from './column-mapping';

const TARGETS = Object.keys(TARGET_LABELS) as ColumnTarget[];
export const PREVIEW_ROWS = 5;

/** One select per file column: which lead field (or custom field) it becomes. */
export function ColumnMapper({
  headers,
  firstRow,
  mapping,
  onChange,
}: {
  headers: string[];
  firstRow: string[] | undefined;
  mapping: ColumnTarget[];
  onChange: (mapping: ColumnTarget[]) => void;
}) {
  const id = useId();
  return (
    <table className="mapping">
      <caption>Columns of the file</caption>
      <thead>
        <tr>
          <th scope="col">Column</th>
          <th scope="col">First value</th>
          <th scope="col">Import as</th>
        </tr>
      </thead>
      <tbody>
        {headers.map((header, i) => (
          <tr key={`${i}-${header}`}>
            <th scope="row">{header}</th>
            <td className="muted">{firstRow?.[i] ?? ''}</td>
            <td>
              <label htmlFor={`${id}-${i}`} className="visually-hidden">
                Import column {header} as
              </label>
              <select
                id={`${id}-${i}`}
                value={mapping[i]}
                onChange={(event) =>
                  onChange(
                    mapping.map((t, j) => (j === i ? (event.target.value as ColumnTarget) : t)),
                  )
                }
              >
                {TARGETS.map((target) => (
                  <option key={target} value={target}>
                    {target === 'custom' ? `Custom field "${header}"` : TARGET_LABELS[target]}
                  </option>
                ))}
              </select>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The first rows as they will be sent: what the mapping makes of them. */
export function ImportPreview({ leads, total }: { leads: ImportLead[]; total: number }) {
  return (
    <table className="preview">
      <caption>
        Preview: the first {leads.length} of {total.toLocaleString('en')} rows as they will be
        imported
      </caption>
      <thead>
        <tr>
          {['Email', 'First name', 'Last name', 'Phone', 'Status', 'Source', 'Custom fields'].map(
            (title) => (
              <th key={title} scope="col">
                {title}
              </th>
            ),
          )}
        </tr>
      </thead>
      <tbody>
        {leads.map((lead, i) => (
          <tr key={i}>
            <td>{lead.email ?? <span className="problem-inline">missing</span>}</td>
            <td>{lead.first_name}</td>
            <td>{lead.last_name}</td>
            <td>{lead.phone}</td>
            <td>{lead.status ?? <span className="muted">new</span>}</td>
            <td>{lead.source}</td>
            <td>
              {Object.entries(lead.custom_fields ?? {})
                .map(
                  ([key, value]) =>
                    `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`,
                )
                .join('; ')}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
