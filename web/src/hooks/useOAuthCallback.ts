import { type RefObject, useEffect, useRef } from 'react';
import { type CallbackOutcome, finishAuthorization, type OAuthProvider } from '../lib/oauth-flow';
import { navigate } from '../router/history';

/**
 * A provider's redirect back, handled once (React may run an effect twice): checked against this
 * tab's request, the page given its `/connectors` address back (the code is single-use and no
 * business of the history), focus moved to the section's heading, then the outcome handed on.
 * Answers the ref to put on that heading.
 */
export function useOAuthCallback(
  provider: OAuthProvider,
  query: URLSearchParams | undefined,
  /** False while the provider is not configured: nothing to finish. */
  enabled: boolean,
  onOutcome: (outcome: CallbackOutcome) => void,
): RefObject<HTMLHeadingElement | null> {
  const handled = useRef(false);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const latestOnOutcome = useRef(onOutcome);
  latestOnOutcome.current = onOutcome;

  useEffect(() => {
    if (query === undefined || !enabled || handled.current) return;
    handled.current = true;
    const outcome = finishAuthorization(provider, query);
    navigate('/connectors', { replace: true, keepFocus: true });
    headingRef.current?.focus();
    latestOnOutcome.current(outcome);
  }, [provider, query, enabled]);

  return headingRef;
}
