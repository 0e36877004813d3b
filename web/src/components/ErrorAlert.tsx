import type { ReactNode } from 'react';

/** An error in words, announced when it appears; `children` for a way out (Try again). */
export function ErrorAlert({ message, children }: { message: string; children?: ReactNode }) {
  return (
    <div role="alert" className="error-box">
      <p>{message}</p>
      {children}
    </div>
  );
}

/** A loading state, announced politely. */
export function Loading({ label }: { label: string }) {
  return (
    <p role="status" className="muted">
      {label}
    </p>
  );
}
