import { useQuery } from '@tanstack/react-query';
import { useId, useRef, useState } from 'react';
import { saveBlob } from '../../api/client';
import {
  countMatching,
  DEAL_STAGES,
  defaultColumns,
  downloadExport,
  EXPORT_FORMATS,
  EXPORT_RESOURCES,
  LEAD_STATUSES,
  type ExportFormat,
  type ExportResource,
} from '../../api/exports';
import { Problem } from '../../ui/problem';
import { QueryStates } from '../../ui/states';
import { useDebounced } from '../../ui/use-debounced';

const NO_FILTERS: Record<ExportResource, Record<string, string>> = {
  leads: { status: '', source: '', q: '' },
  deals: { stage: '', assigned_to: '' },
};

type Download =
  | { state: 'idle' }
  | { state: 'running'; received: number }
  | { state: 'saved'; name: string; bytes: number }
  | { state: 'failed'; error: unknown };

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * Exports: a resource, a format, the resource's filters and columns, then the file the API
 * streams (POST /api/exports), fetched same-origin with the session cookie and handed to the
 * browser as a download. How many rows match is asked of the resource's list as the filters
 * change.
 */
export function ExportsScreen() {
  const id = useId();
  const [resource, setResource] = useState<ExportResource>('leads');
  const [format, setFormat] = useState<ExportFormat>('csv');
  const [filters, setFilters] = useState(NO_FILTERS.leads);
  const [columns, setColumns] = useState(() => defaultColumns('leads', 'csv'));
  const [download, setDownload] = useState<Download>({ state: 'idle' });
  const abort = useRef<AbortController | null>(null);

  const settled = useDebounced(filters);
  const matching = useQuery({
    queryKey: ['export-count', resource, settled],
    queryFn: ({ signal }) => countMatching(resource, settled, signal),
  });

  function choose(nextResource: ExportResource, nextFormat: ExportFormat) {
    if (nextResource !== resource) setFilters(NO_FILTERS[nextResource]);
    setResource(nextResource);
    setFormat(nextFormat);
    // Each format has its own default columns (the PDF's fit a landscape page).
    setColumns(defaultColumns(nextResource, nextFormat));
    setDownload({ state: 'idle' });
  }

  async function start() {
    const controller = new AbortController();
    abort.current = controller;
    setDownload({ state: 'running', received: 0 });
    try {
      const ordered = EXPORT_RESOURCES[resource].columns
        .map((c) => c.key)
        .filter((key) => columns.includes(key));
      const file = await downloadExport(
        { resource, format, filters, columns: ordered },
        {
          signal: controller.signal,
          onBytes: (received) => setDownload({ state: 'running', received }),
        },
      );
      const name = file.name ?? `${resource}.${format}`;
      saveBlob(file.blob, name);
      setDownload({ state: 'saved', name, bytes: file.blob.size });
    } catch (error) {
      setDownload(controller.signal.aborted ? { state: 'idle' } : { state: 'failed', error });
    }
  }

  const { label, columns: allColumns } = EXPORT_RESOURCES[resource];
  const noun = label.toLowerCase();
  const setFilter = (key: string, value: string) => setFilters({ ...filters, [key]: value });
  return (
    <section aria-labelledby="screen-title" className="exports">
      <h1 id="screen-title">Exports</h1>
      <form
        aria-label="Export"
        className="export-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (columns.length > 0 && download.state !== 'running') void start();
        }}
      >
        <fieldset>
          <legend>Records</legend>
          {(Object.keys(EXPORT_RESOURCES) as ExportResource[]).map((key) => (
            <label key={key} className="choice">
              <input
                type="radio"
                name="resource"
                value={key}
                checked={resource === key}
                onChange={() => choose(key, format)}
              />
              {EXPORT_RESOURCES[key].label}
            </label>
          ))}
        </fieldset>
        <fieldset>
          <legend>Format</legend>
          {EXPORT_FORMATS.map((key) => (
            <label key={key} className="choice">
              <input
                type="radio"
                name="format"
                value={key}
                checked={format === key}
                onChange={() => choose(resource, key)}
              />
              {key.toUpperCase()}
            </label>
          ))}
        </fieldset>
        <fieldset className="export-filters">
          <legend>Filters</legend>
          {resource === 'leads' ? (
            <>
              <label htmlFor={`${id}-status`}>Status</label>
              <select
                id={`${id}-status`}
                value={filters.status}
                onChange={(e) => setFilter('status', e.target.value)}
              >
                <option value="">Any status</option>
                {LEAD_STATUSES.map((s) => (
                  <option key={s} value={s}>
                    {s}
                  </option>
                ))}
              </select>
              <label htmlFor={`${id}-source`}>Source</label>
              <input
                id={`${id}-source`}
                value={filters.source}
                placeholder="Any source"
                onChange={(e) => setFilter('source', e.target.value)}
              />
              <label htmlFor={`${id}-q`}>Search</label>
              <input
                id={`${id}-q`}
                type="search"
                value={filters.q}
                placeholder="Email or name"
                onChange={(e) => setFilter('q', e.target.value)}
              />
            </>
          ) : (
            <>
              <label htmlFor={`${id}-stage`}>Stage</label>
              <select
                id={`${id}-stage`}
                value={filters.stage}
                onChange={(e) => setFilter('stage', e.target.value)}
              >
                <option value="">Any stage</option>
                {DEAL_STAGES.map((s) => (
                  <option key={s} value={s}>
                    {s}
                  </option>
                ))}
              </select>
              <label htmlFor={`${id}-assignee`}>Assigned to (user id)</label>
              <input
                id={`${id}-assignee`}
                value={filters.assigned_to}
                placeholder="Anyone"
                onChange={(e) => setFilter('assigned_to', e.target.value)}
              />
            </>
          )}
        </fieldset>
        <fieldset className="export-columns" aria-describedby={`${id}-columns-help`}>
          <legend>Columns</legend>
          <p id={`${id}-columns-help`} className="muted">
            The file has the checked columns, in this order.
            {format === 'pdf' ? ' The PDF starts with the columns that fit a page.' : ''}
          </p>
          {allColumns.map((column) => (
            <label key={column.key} className="choice">
              <input
                type="checkbox"
                checked={columns.includes(column.key)}
                onChange={(e) =>
                  setColumns(
                    e.target.checked
                      ? [...columns, column.key]
                      : columns.filter((key) => key !== column.key),
                  )
                }
              />
              {column.label}
            </label>
          ))}
          {columns.length === 0 && (
            <p role="alert" className="field-error">
              Check at least one column.
            </p>
          )}
        </fieldset>

        <div className="export-matching">
          <QueryStates
            query={matching}
            what={`the number of matching ${noun}`}
            isEmpty={(data) => data.count === 0}
            empty={<p>No {noun} match these filters: the file would hold only its header.</p>}
          >
            {(data) => (
              <p role="status">
                {data.exact ? '' : 'More than '}
                {data.count.toLocaleString('en')} {noun} match.
              </p>
            )}
          </QueryStates>
        </div>

        <p className="actions">
          <button type="submit" disabled={columns.length === 0 || download.state === 'running'}>
            Download {format.toUpperCase()}
          </button>
          {download.state === 'running' && (
            <button type="button" onClick={() => abort.current?.abort()}>
              Cancel download
            </button>
          )}
        </p>
      </form>
      <p role="status">
        {download.state === 'running' && `Preparing the file… ${size(download.received)} received.`}
        {download.state === 'saved' && `Saved ${download.name} (${size(download.bytes)}).`}
      </p>
      {download.state === 'failed' && (
        <Problem error={download.error} onRetry={() => void start()} />
      )}
    </section>
  );
}
