import { type Ref, useId } from 'react';
import { AnswerMarkdown } from '../markdown/AnswerMarkdown';
import { ratingTarget, type Turn } from '../pages/conversation';
import { AnswerFeedback } from './AnswerFeedback';
import { CopyAnswerButton } from './CopyAnswerButton';
import type { Rating } from './rating-saver';

/** The page's handler of a turn's new rating (by the turn's key). */
export type FeedbackHandler = (turnKey: string, rating: Rating) => void;

/** Thumbs up and down under a stored answer (none while it streams, nor under one not saved). */
function Feedback({ turn, onFeedback }: { turn: Turn; onFeedback: FeedbackHandler | undefined }) {
  const target = ratingTarget(turn);
  if (target === undefined || onFeedback === undefined) return null;
  return (
    <AnswerFeedback
      chatId={target.chatId}
      messageIndex={target.messageIndex}
      rating={turn.feedback ?? null}
      onChange={(rating) => onFeedback(turn.key, rating)}
    />
  );
}

import { SourcesList } from './SourcesList';

function Question({ text, id }: { text: string; id?: string }) {
  if (text === '') return null;
  return (
    <p className="question" id={id}>
      <span className="visually-hidden">Question: </span>
      {text}
    </p>
  );
}

/**
 * The turns before the latest: read-only, rendered as the latest is. Their source lists are named
 * "Cited documents", so "Sources" and the "Answer" region name only the latest answer's.
 */
export function EarlierTurn({ turn, onFeedback }: { turn: Turn; onFeedback?: FeedbackHandler }) {
  const questionId = useId();
  return (
    <article className="turn" aria-labelledby={turn.question === '' ? undefined : questionId}>
      <Question text={turn.question} id={questionId} />
      <div className="answer-text">
        <AnswerMarkdown text={turn.answer} sources={turn.sources} />
      </div>
      {turn.state === 'stopped' ? <p className="muted">Stopped.</p> : null}
      {turn.state === 'failed' && turn.error !== undefined ? (
        <p className="error-text">{turn.error}</p>
      ) : null}
      <SourcesList sources={turn.sources} label="Cited documents" />
      <Feedback turn={turn} onFeedback={onFeedback} />
    </article>
  );
}

/**
 * The latest answer, streaming in: a live region named "Answer" (it stays in place from one
 * question to the next, so screen readers keep announcing into it), with its sources and a copy
 * button once it is complete.
 */
export function LatestAnswer({
  turn,
  startRef,
  onFeedback,
}: {
  turn: Turn | undefined;
  startRef?: Ref<HTMLDivElement>;
  onFeedback?: FeedbackHandler;
}) {
  const streaming = turn?.state === 'streaming';
  return (
    <>
      <div ref={startRef} className="latest-start" />
      {turn === undefined ? null : <Question text={turn.question} />}
      <section aria-label="Answer" aria-live="polite" aria-busy={streaming} className="answer">
        {turn === undefined ? null : (
          <>
            {turn.answer === '' ? (
              streaming ? (
                <p className="muted">Searching your documents…</p>
              ) : null
            ) : (
              <div className="answer-text">
                <AnswerMarkdown text={turn.answer} sources={turn.sources} />
              </div>
            )}
            {turn.state === 'stopped' ? <p className="muted">Stopped.</p> : null}
            {turn.state === 'failed' ? (
              <p role="alert" className="error-text">
                {turn.error ?? 'The answer failed; try again.'}
              </p>
            ) : null}
            <SourcesList sources={turn.sources} label="Sources" />
            {!streaming && turn.answer !== '' ? <CopyAnswerButton text={turn.answer} /> : null}
            <Feedback turn={turn} onFeedback={onFeedback} />
          </>
        )}
      </section>
    </>
  );
}
