import { useId } from 'react';
import type { UseFormRegisterReturn } from 'react-hook-form';

/** A labelled input with its validation message tied to it (aria-describedby). */
export function Field({
  label,
  type = 'text',
  autoComplete,
  error,
  registration,
}: {
  label: string;
  type?: string;
  autoComplete?: string;
  error?: string;
  registration: UseFormRegisterReturn;
}) {
  const id = useId();
  const errorId = `${id}-error`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type={type}
        autoComplete={autoComplete}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId : undefined}
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
