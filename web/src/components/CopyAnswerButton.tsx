import { useEffect, useState } from 'react';

/** Copies the answer's Markdown; says whether it worked, in words, for a moment. */
export function CopyAnswerButton({ text }: { text: string }) {
  const [result, setResult] = useState<string>('');

  useEffect(() => {
    if (result === '') return;
    const timer = window.setTimeout(() => setResult(''), 3000);
    return () => window.clearTimeout(timer);
  }, [result]);

  async function copy() {
    try {
      // Undefined outside a secure context (plain http to another host than localhost).
      if (navigator.clipboard === undefined) throw new Error('no clipboard');
      await navigator.clipboard.writeText(text);
      setResult('Copied.');
    } catch {
      setResult('Could not copy: the browser did not allow it.');
    }
  }

  return (
    <div className="copy-answer">
      <button type="button" className="button-secondary" onClick={copy}>
        Copy answer
      </button>
      <span role="status" className="muted">
        {result}
      </span>
    </div>
  );
}
