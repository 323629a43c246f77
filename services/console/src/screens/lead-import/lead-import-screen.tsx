import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { Link } from 'react-router';
import { saveBlob } from '../../api/client';
import { importLeads, IMPORT_MAX_ROWS_PER_REQUEST } from '../../api/lead-import';
import { Problem } from '../../ui/problem';
import { Empty, Loading } from '../../ui/states';
import { ColumnMapper, ImportPreview, PREVIEW_ROWS } from './column-mapper';
import { guessMapping, leadOf, mappingProblems, type ColumnTarget } from './column-mapping';
import { ImportProgress } from './import-progress';
import { ACCEPTED_FILES, readSpreadsheet, type Spreadsheet } from './read-spreadsheet';
import { rejectedRowsCsv } from './rejected-rows';
import { initialState, runImport, type ImportState } from './run-import';

/** Small enough that a progress bar moves on a few thousand rows; the route takes up to 10,000. */
const DEFAULT_ROWS_PER_REQUEST = 1000;

type Step =
  | { name: 'choose' }
  | { name: 'reading'; fileName: string }
  | { name: 'unreadable'; message: string }
  | { name: 'map' }
  | { name: 'running' }
  | { name: 'failed'; error: unknown }
  | { name: 'done'; cancelled: boolean };

/**
 * Leads from a CSV or XLSX file: the file is read in the browser, its columns mapped to lead
 * fields (the rest become custom fields), then sent to POST /api/v1/import/leads in chunks with
 * a progress bar, a cancel that stops after the request under way, and the refused rows to
 * download with the API's error texts.
 */
export function LeadImportScreen() {
  const id = useId();
  const queryClient = useQueryClient();
  const [step, setStep] = useState<Step>({ name: 'choose' });
  const [sheet, setSheet] = useState<Spreadsheet | null>(null);
  const [mapping, setMapping] = useState<ColumnTarget[]>([]);
  const [rowsPerRequest, setRowsPerRequest] = useState(String(DEFAULT_ROWS_PER_REQUEST));
  const [progress, setProgress] = useState<ImportState | null>(null);
  const [cancelling, setCancelling] = useState(false);
  const stop = useRef(false);
  const fileInput = useRef<HTMLInputElement>(null);
  // Leaving the screen mid-import stops it after the request under way.
  useEffect(() => () => void (stop.current = true), []);

  const problems = sheet ? mappingProblems(mapping, sheet.headers) : [];
  const chunkSize = Number(rowsPerRequest);
  const chunkSizeValid =
    Number.isInteger(chunkSize) && chunkSize >= 1 && chunkSize <= IMPORT_MAX_ROWS_PER_REQUEST;
  const preview = useMemo(
    () =>
      sheet ? sheet.rows.slice(0, PREVIEW_ROWS).map((r) => leadOf(r, mapping, sheet.headers)) : [],
    [sheet, mapping],
  );

  async function choose(file: File | undefined) {
    if (!file) return;
    setStep({ name: 'reading', fileName: file.name });
    try {
      const read = await readSpreadsheet(file);
      setSheet(read);
      setMapping(guessMapping(read.headers));
      setStep({ name: 'map' });
    } catch (error) {
      setSheet(null);
      setStep({ name: 'unreadable', message: (error as Error).message });
    }
  }

  async function start(from: ImportState) {
    if (!sheet) return;
    stop.current = false;
    setCancelling(false);
    setStep({ name: 'running' });
    const headers = sheet.headers;
    try {
      const end = await runImport(from, {
        rows: sheet.rows,
        toLead: (row) => leadOf(row, mapping, headers),
        chunkSize,
        send: (leads) => importLeads(leads),
        stopRequested: () => stop.current,
        onState: setProgress,
      });
      setStep({ name: 'done', cancelled: end.next < end.total });
    } catch (error) {
      setStep({ name: 'failed', error });
    } finally {
      void queryClient.invalidateQueries({ queryKey: ['leads'] });
    }
  }

  function startOver() {
    setSheet(null);
    setProgress(null);
    setStep({ name: 'choose' });
    if (fileInput.current) fileInput.current.value = '';
  }

  const busy = step.name === 'running' || step.name === 'reading';
  return (
    <section aria-labelledby="screen-title" className="lead-import">
      <p>
        <Link to="/leads">Back to leads</Link>
      </p>
      <h1 id="screen-title">Import leads</h1>
      <div className="field">
        <label htmlFor={`${id}-file`}>CSV or XLSX file</label>
        <input
          ref={fileInput}
          id={`${id}-file`}
          type="file"
          accept={ACCEPTED_FILES}
          disabled={busy}
          aria-describedby={`${id}-file-help`}
          onChange={(event) => void choose(event.target.files?.[0])}
        />
        <p id={`${id}-file-help`} className="muted">
          The first row names the columns. The file is read in your browser; only the leads are
          sent.
        </p>
      </div>

      {step.name === 'choose' && (
        <Empty>
          <p>
            No file chosen yet. Choose a CSV or XLSX file with a header row, such as a leads export:
            an email column is required; first name, last name, phone, status and source are
            recognised, and any other column becomes a custom field.
          </p>
        </Empty>
      )}
      {step.name === 'reading' && <Loading what={step.fileName} />}
      {step.name === 'unreadable' && (
        <div role="alert" className="problem">
          <p>{step.message}</p>
        </div>
      )}

      {sheet && step.name === 'map' && sheet.rows.length === 0 && (
        <Empty>
          <p>{sheet.fileName} has no rows below its header row: there is nothing to import.</p>
        </Empty>
      )}
      {sheet && step.name === 'map' && sheet.rows.length > 0 && (
        <form
          aria-label="Column mapping"
          onSubmit={(event) => {
            event.preventDefault();
            if (problems.length === 0 && chunkSizeValid) {
              void start(initialState(sheet.rows.length));
            }
          }}
        >
          <p>
            {sheet.fileName}: {sheet.rows.length.toLocaleString('en')} rows, {sheet.headers.length}{' '}
            columns.
          </p>
          <ColumnMapper
            headers={sheet.headers}
            firstRow={sheet.rows[0]}
            mapping={mapping}
            onChange={setMapping}
          />
          <ImportPreview leads={preview} total={sheet.rows.length} />
          <div className="field inline-field">
            <label htmlFor={`${id}-chunk`}>Rows per request</label>
            <input
              id={`${id}-chunk`}
              type="number"
              min={1}
              max={IMPORT_MAX_ROWS_PER_REQUEST}
              value={rowsPerRequest}
              aria-invalid={chunkSizeValid ? undefined : true}
              aria-describedby={`${id}-chunk-help`}
              onChange={(event) => setRowsPerRequest(event.target.value)}
            />
            <p id={`${id}-chunk-help`} className={chunkSizeValid ? 'muted' : 'field-error'}>
              From 1 to {IMPORT_MAX_ROWS_PER_REQUEST.toLocaleString('en')}: the most the import
              takes in one request.
            </p>
          </div>
          {problems.length > 0 && (
            <ul role="alert" className="problem">
              {problems.map((problem) => (
                <li key={problem}>{problem}</li>
              ))}
            </ul>
          )}
          <button type="submit" disabled={problems.length > 0 || !chunkSizeValid}>
            Import {sheet.rows.length.toLocaleString('en')} rows
          </button>
        </form>
      )}

      {progress && step.name === 'running' && (
        <ImportProgress
          state={progress}
          cancelling={cancelling}
          onCancel={() => {
            stop.current = true;
            setCancelling(true);
          }}
        />
      )}
      {progress && step.name === 'failed' && (
        <>
          <p>
            The import stopped: {progress.next.toLocaleString('en')} of{' '}
            {progress.total.toLocaleString('en')} rows were sent. Try again to go on from the next
            row.
          </p>
          <Problem error={step.error} onRetry={() => void start(progress)} />
        </>
      )}
      {progress && sheet && step.name === 'done' && (
        <ImportSummary
          state={progress}
          cancelled={step.cancelled}
          onDownload={() =>
            saveBlob(
              new Blob([rejectedRowsCsv(sheet.headers, progress.rejected)], {
                type: 'text/csv;charset=utf-8',
              }),
              `rejected-${sheet.fileName.replace(/\.[^.]*$/, '')}.csv`,
            )
          }
          onStartOver={startOver}
        />
      )}
    </section>
  );
}

function ImportSummary({
  state,
  cancelled,
  onDownload,
  onStartOver,
}: {
  state: ImportState;
  cancelled: boolean;
  onDownload: () => void;
  onStartOver: () => void;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  // The outcome takes the focus, so a screen reader hears it and the keyboard goes on from it.
  useEffect(() => heading.current?.focus(), []);
  const n = (value: number) => value.toLocaleString('en');
  return (
    <section aria-labelledby="import-summary" className="import-summary">
      <h2 id="import-summary" ref={heading} tabIndex={-1}>
        {cancelled ? 'Import cancelled' : 'Import finished'}
      </h2>
      <dl>
        <div>
          <dt>Imported</dt>
          <dd>{n(state.imported)}</dd>
        </div>
        <div>
          <dt>Rejected</dt>
          <dd>{n(state.rejected.length)}</dd>
        </div>
        {cancelled && (
          <div>
            <dt>Not sent</dt>
            <dd>{n(state.total - state.next)}</dd>
          </div>
        )}
      </dl>
      <p className="actions">
        {state.rejected.length > 0 && (
          <button type="button" onClick={onDownload}>
            Download rejected rows (CSV)
          </button>
        )}
        <button type="button" onClick={onStartOver}>
          Import another file
        </button>
        <Link to="/leads">Go to leads</Link>
      </p>
    </section>
  );
}
