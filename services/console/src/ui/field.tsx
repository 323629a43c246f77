import { useId } from 'react';
import type { UseFormRegisterReturn } from 'react-hook-form';

/** A labelled input with its hint and validation message tied to it (aria-describedby). */
export function Field({
  label,
  type = 'text',
  autoComplete,
  hint,
  error,
  registration,
}: {
  label: string;
  type?: string;
  autoComplete?: string;
  /** What the value should be, shown under the label. */
  hint?: string;
  error?: string;
  registration: UseFormRegisterReturn;
}) {
  const id = useId();
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const describedBy = [hint && hintId, error && errorId].filter(Boolean).join(' ');
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {hint && (
        <p id={hintId} className="muted field-hint">
          {hint}
        </p>
      )}
      <input
        id={id}
        type={type}
        autoComplete={autoComplete}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy || undefined}
        {...registration}
      />
      {error && (
        <p id={errorId} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}

/** A labelled select of `options` ([value, text]) with its validation message, like Field. */
export function SelectField({
  label,
  options,
  error,
  registration,
}: {
  label: string;
  options: ReadonlyArray<readonly [string, string]>;
  error?: string;
  registration: UseFormRegisterReturn;
}) {
  const id = useId();
  const errorId = `${id}-error`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId : undefined}
        {...registration}
      >
        {options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
      {error && (
        <p id={errorId} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}
