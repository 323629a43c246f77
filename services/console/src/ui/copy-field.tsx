import { useId, useRef, useState } from 'react';

/**
 * A read-only value and a Copy button (navigator.clipboard). Where the clipboard is refused
 * (an insecure origin, a denied permission) the text is selected and the user is told to copy
 * it with the keyboard.
 */
export function CopyField({
  label,
  copy: copyText,
  value,
  multiline = false,
}: {
  label: string;
  /** The button's text. */
  copy: string;
  value: string;
  multiline?: boolean;
}) {
  const id = useId();
  const box = useRef<HTMLInputElement & HTMLTextAreaElement>(null);
  const [said, setSaid] = useState('');
  const copy = async () => {
    try {
      if (!navigator.clipboard) throw new Error('no clipboard');
      await navigator.clipboard.writeText(value);
      setSaid(`${label} copied.`);
    } catch {
      box.current?.focus();
      box.current?.select();
      setSaid('Copying is not allowed here: the text is selected, press Ctrl+C (⌘C on a Mac).');
    }
  };
  return (
    <div className="field copy-field">
      <label htmlFor={id}>{label}</label>
      {multiline ? (
        <textarea id={id} ref={box} readOnly value={value} rows={value.split('\n').length + 2} />
      ) : (
        <input id={id} ref={box} readOnly value={value} />
      )}
      <div>
        <button type="button" onClick={() => void copy()} aria-describedby={`${id}-said`}>
          {copyText}
        </button>{' '}
        <span id={`${id}-said`} role="status" className="muted">
          {said}
        </span>
      </div>
    </div>
  );
}

/** A Copy button for a value shown beside it; says what happened in a status next to it. */
export function CopyButton({ value, label }: { value: string; label: string }) {
  const [said, setSaid] = useState('');
  const copy = async () => {
    try {
      if (!navigator.clipboard) throw new Error('no clipboard');
      await navigator.clipboard.writeText(value);
      setSaid('Copied.');
    } catch {
      setSaid('Copying is not allowed here: select the text and press Ctrl+C (⌘C on a Mac).');
    }
  };
  return (
    <>
      <button type="button" aria-label={label} onClick={() => void copy()}>
        Copy
      </button>{' '}
      <span role="status" className="muted">
        {said}
      </span>
    </>
  );
}
