import { useId } from 'react';
import { pace, type ImportState } from './run-import';

const number = (n: number) => n.toLocaleString('en');

/** "about 1 min 20 s": the time left at the rate so far. */
export function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return 'working it out';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `about ${s} s`;
  return `about ${Math.floor(s / 60)} min ${s % 60} s`;
}

/**
 * A real <progress> named by its label, and the same said in words: rows done of the total,
 * rows per second, time left; while the rate limit holds the import, when it goes on. The
 * words change once per request, not every second, so a screen reader is not flooded.
 */
export function ImportProgress({
  state,
  cancelling,
  onCancel,
}: {
  state: ImportState;
  cancelling: boolean;
  onCancel: () => void;
}) {
  const id = useId();
  const { rate, secondsLeft } = pace(state);
  return (
    <div className="import-progress">
      <label htmlFor={`${id}-bar`}>Import progress</label>
      <progress
        id={`${id}-bar`}
        max={state.total}
        value={state.next}
        aria-describedby={`${id}-text`}
      />
      <p id={`${id}-text`} role="status">
        {number(state.next)} of {number(state.total)} rows done
        {rate > 0
          ? `, ${number(Math.round(rate))} rows/s, ${duration(secondsLeft)} left`
          : ''}. {number(state.imported)} imported, {number(state.rejected.length)} rejected.
        {state.waitingUntil
          ? ` Too many requests: sending again at ${new Date(state.waitingUntil).toLocaleTimeString()}.`
          : ''}
      </p>
      <button type="button" onClick={onCancel} disabled={cancelling}>
        {cancelling ? 'Cancelling after the current request…' : 'Cancel import'}
      </button>
    </div>
  );
}
