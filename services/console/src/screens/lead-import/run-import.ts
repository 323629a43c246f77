import { ApiError } from '../../api/client';
import type { ImportAnswer, ImportLead } from '../../api/lead-import';

/** A row the API refused: its line in the file (the header is line 1), its cells, why. */
export interface RejectedRow {
  line: number;
  cells: string[];
  error: string;
}

/** Where an import stands; `next` is the first row not sent yet, so an import can resume. */
export interface ImportState {
  total: number;
  next: number;
  imported: number;
  rejected: RejectedRow[];
  /** When the rows sent so far started going, and how many rows there were then (for the rate). */
  startedAt: number;
  startedAtRow: number;
  /** When the state last changed: the rate is measured up to then, not ticking in between. */
  updatedAt: number;
  /** Set while the gateway's rate limit makes the import wait before sending again. */
  waitingUntil: number | null;
}

export function initialState(total: number, now = Date.now()): ImportState {
  return {
    total,
    next: 0,
    imported: 0,
    rejected: [],
    startedAt: now,
    startedAtRow: 0,
    updatedAt: now,
    waitingUntil: null,
  };
}

/**
 * A request's body stays below the route's 16 MiB limit whatever the rows hold: at most this
 * many characters of JSON (three UTF-8 bytes each at worst) go in one request.
 */
export const MAX_REQUEST_CHARS = 4_000_000;

export interface RunOptions {
  rows: string[][];
  toLead: (row: string[]) => ImportLead;
  /** Rows per request, at most the route's 10,000. */
  chunkSize: number;
  send: (leads: ImportLead[]) => Promise<ImportAnswer>;
  /** Cancel: checked before each request (the one under way finishes). */
  stopRequested: () => boolean;
  onState: (state: ImportState) => void;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/**
 * Sends the rows from `state.next` on, chunk after chunk, until the end or a cancel. Per-row
 * refusals (the 200's `errors`, by position in the request) become rejected rows with the
 * API's text. A 429 waits for its Retry-After and sends the same chunk again. A 400 naming one
 * row (`leads.3.first_name: ...`, e.g. a U+0000 in a cell) refuses the whole request: that row
 * is rejected with the message and the rest of the chunk is sent again. Any other failure is
 * thrown with the state as it was after the last chunk that went through, so the import can
 * resume from there.
 */
export async function runImport(start: ImportState, options: RunOptions): Promise<ImportState> {
  const { rows, toLead, send, stopRequested, onState } = options;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
  let state: ImportState = {
    ...start,
    startedAt: now(),
    startedAtRow: start.next,
    updatedAt: now(),
  };
  const update = (next: Partial<ImportState>) => {
    state = { ...state, ...next, updatedAt: now() };
    onState(state);
  };
  onState(state);
  while (state.next < rows.length && !stopRequested()) {
    const indexes: number[] = [];
    const leads: ImportLead[] = [];
    let chars = 0;
    for (let i = state.next; i < rows.length && leads.length < options.chunkSize; i++) {
      const lead = toLead(rows[i]);
      const size = JSON.stringify(lead).length + 1;
      if (leads.length > 0 && chars + size > MAX_REQUEST_CHARS) break;
      chars += size;
      indexes.push(i);
      leads.push(lead);
    }
    const after = indexes[indexes.length - 1] + 1;
    const rejected = [...state.rejected];
    const reject = (position: number, error: string) =>
      rejected.push({ line: indexes[position] + 2, cells: rows[indexes[position]], error });
    let imported = 0;
    while (leads.length > 0) {
      try {
        const answer = await send(leads);
        imported = answer.imported;
        for (const { index, error } of answer.errors) reject(index, error);
        break;
      } catch (error) {
        if (error instanceof ApiError && error.status === 429) {
          const waitMs = (error.retryAfterSeconds ?? 5) * 1000;
          update({ waitingUntil: now() + waitMs });
          await waitUnlessStopped(waitMs, sleep, stopRequested);
          update({ waitingUntil: null });
          if (stopRequested()) return state;
          continue;
        }
        const position = rowNamedBy(error, leads.length);
        if (position === null) throw error;
        // The position in the request means nothing in the file: the line says which row.
        reject(position, textOf(error as ApiError).replace(/\bleads\.\d+\.?/, ''));
        leads.splice(position, 1);
        indexes.splice(position, 1);
      }
    }
    rejected.sort((a, b) => a.line - b.line);
    update({ next: after, imported: state.imported + imported, rejected });
  }
  return state;
}

const textOf = (error: ApiError) => error.detail ?? error.message;

/** The row a whole-request 400 names (`Invalid request body: leads.3.email: ...`), if any. */
function rowNamedBy(error: unknown, count: number): number | null {
  if (!(error instanceof ApiError) || error.status !== 400) return null;
  const match = /\bleads\.(\d+)\b/.exec(textOf(error));
  const position = match ? Number(match[1]) : NaN;
  return Number.isInteger(position) && position < count ? position : null;
}

async function waitUnlessStopped(
  ms: number,
  sleep: (ms: number) => Promise<void>,
  stopRequested: () => boolean,
) {
  for (let waited = 0; waited < ms && !stopRequested(); waited += 250) {
    await sleep(Math.min(250, ms - waited));
  }
}

/** Rows per second since the import (or its resumption) started, and the time left at that rate. */
export function pace(state: ImportState): { rate: number; secondsLeft: number } {
  const seconds = (state.updatedAt - state.startedAt) / 1000;
  const sent = state.next - state.startedAtRow;
  const rate = seconds > 0 && sent > 0 ? sent / seconds : 0;
  const secondsLeft = rate > 0 ? (state.total - state.next) / rate : Infinity;
  return { rate, secondsLeft };
}
