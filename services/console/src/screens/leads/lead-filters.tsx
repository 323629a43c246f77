import { useId } from 'react';
import { LEAD_STATUSES } from '../../api/leads';

export interface FilterValues {
  q: string;
  status: string;
  source: string;
}

/** Search (the list's `q`: email and names), status and source. */
export function LeadFilters({
  values,
  onChange,
}: {
  values: FilterValues;
  onChange: (values: FilterValues) => void;
}) {
  const id = useId();
  return (
    <form role="search" className="filters" onSubmit={(event) => event.preventDefault()}>
      <label htmlFor={`${id}-search`}>Search</label>
      <input
        id={`${id}-search`}
        type="search"
        value={values.q}
        placeholder="Email or name"
        onChange={(event) => onChange({ ...values, q: event.target.value })}
      />
      <label htmlFor={`${id}-status`}>Status</label>
      <select
        id={`${id}-status`}
        value={values.status}
        onChange={(event) => onChange({ ...values, status: event.target.value })}
      >
        <option value="">Any status</option>
        {LEAD_STATUSES.map((status) => (
          <option key={status} value={status}>
            {status}
          </option>
        ))}
      </select>
      <label htmlFor={`${id}-source`}>Source</label>
      <input
        id={`${id}-source`}
        type="text"
        value={values.source}
        placeholder="Any source"
        onChange={(event) => onChange({ ...values, source: event.target.value })}
      />
    </form>
  );
}
