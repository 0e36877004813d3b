import { useEffect, useId, useRef, useState } from 'react';
import { describeError } from '../api/http';

interface ConfirmDialogProps {
  title: string;
  message: string;
  confirmLabel: string;
  /** The confirm button's words while it works: `Deleting…` unless told. */
  busyLabel?: string;
  /** What confirming does; a failure is shown in the dialog, which stays open. */
  onConfirm: () => Promise<void>;
  /** The dialog is done (confirmed and done, or cancelled); the owner unmounts it. */
  onClose: (confirmed: boolean) => void;
}

/**
 * A modal confirmation on the native <dialog>: focus moves in and stays in, Escape cancels, and
 * focus goes back where it was when it closes. No window.confirm: it blocks the page and cannot
 * show what went wrong.
 */
export function ConfirmDialog({
  title,
  message,
  confirmLabel,
  busyLabel = 'Deleting…',
  onConfirm,
  onClose,
}: ConfirmDialogProps) {
  const dialogRef = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const messageId = useId();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);

  useEffect(() => {
    const dialog = dialogRef.current;
    if (dialog !== null && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);

  function close(confirmed: boolean) {
    dialogRef.current?.close();
    onClose(confirmed);
  }

  async function confirm() {
    setBusy(true);
    setError(undefined);
    try {
      await onConfirm();
      close(true);
    } catch (failure) {
      setError(describeError(failure));
      setBusy(false);
    }
  }

  return (
    <dialog
      ref={dialogRef}
      className="dialog"
      aria-labelledby={titleId}
      aria-describedby={messageId}
      onCancel={(event) => {
        event.preventDefault();
        if (!busy) close(false);
      }}
    >
      <h2 id={titleId}>{title}</h2>
      <p id={messageId}>{message}</p>
      {error === undefined ? null : (
        <p role="alert" className="error-text">
          {error}
        </p>
      )}
      <div className="dialog-actions">
        <button type="button" className="button-secondary" onClick={() => close(false)} disabled={busy}>
          Cancel
        </button>
        <button type="button" className="button-danger" onClick={confirm} disabled={busy}>
          {busy ? busyLabel : confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
