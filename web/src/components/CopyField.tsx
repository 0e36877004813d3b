import { useEffect, useRef, useState } from 'react';

interface CopyFieldProps {
  id: string;
  label: string;
  value: string;
  /** The button's words: `Copy link`, `Copy token`. */
  copyLabel: string;
}

/**
 * A value shown once, to copy: a read-only field (select it and copy by hand if the browser
 * refuses) and a copy button, whose outcome is announced beside it.
 */
export function CopyField({ id, label, value, copyLabel }: CopyFieldProps) {
  const input = useRef<HTMLInputElement>(null);
  const [result, setResult] = useState('');

  useEffect(() => {
    if (result === '') return;
    const timer = window.setTimeout(() => setResult(''), 4000);
    return () => window.clearTimeout(timer);
  }, [result]);

  async function copy() {
    try {
      // Undefined outside a secure context (plain http to another host than localhost).
      if (navigator.clipboard === undefined) throw new Error('no clipboard');
      await navigator.clipboard.writeText(value);
      setResult('Copied.');
    } catch {
      input.current?.focus();
      input.current?.select();
      setResult(
        `Could not copy: the browser did not allow it. The ${label.toLowerCase()} is selected: copy it from the field.`,
      );
    }
  }

  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <div className="copy-row">
        <input
          id={id}
          ref={input}
          type="text"
          readOnly
          value={value}
          spellCheck={false}
          autoComplete="off"
          onFocus={(event) => event.target.select()}
        />
        <button type="button" className="button-secondary" onClick={copy}>
          {copyLabel}
        </button>
      </div>
      <span role="status" className="muted">
        {result}
      </span>
    </div>
  );
}
