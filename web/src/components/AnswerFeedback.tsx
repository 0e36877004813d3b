import { useRef, useState } from 'react';
import { rateAnswer } from '../api/chats';
import { describeError } from '../api/http';
import type { AnswerRating } from '../api/types';
import { nextRating, type Rating, RatingSaver } from './rating-saver';

const THUMB_PATH =
  'M2 21h3V9H2v12zm20-11a2 2 0 0 0-2-2h-6.3l1-4.6v-.3c0-.4-.2-.8-.4-1.1L13.2 1 6.6 7.6C6.2 7.9 6 8.4 6 9v10a2 2 0 0 0 2 2h9c.8 0 1.5-.5 1.8-1.2l3-7.1c.1-.2.2-.5.2-.7v-2z';

function Thumb({ down }: { down: boolean }) {
  return (
    <svg
      viewBox="0 0 24 24"
      width="18"
      height="18"
      aria-hidden="true"
      focusable="false"
      className={down ? 'thumb thumb-down' : 'thumb'}
    >
      <path d={THUMB_PATH} fill="currentColor" />
    </svg>
  );
}

/**
 * Thumbs up and down under an answer: toggle buttons (`aria-pressed`); pressing the pressed one
 * clears the rating. The choice shows at once and is saved with the answer; should saving fail, the
 * rating stored before comes back and the reason is said in words.
 */
export function AnswerFeedback({
  chatId,
  messageIndex,
  rating,
  onChange,
}: {
  chatId: string;
  messageIndex: number;
  rating: Rating;
  /** The rating to show (the page keeps it with the turn). */
  onChange: (rating: Rating) => void;
}) {
  const [error, setError] = useState('');
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;
  const saver = useRef<RatingSaver | undefined>(undefined);
  saver.current ??= new RatingSaver(
    rating,
    async (next) => (await rateAnswer(chatId, messageIndex, next)).rating,
    {
      failed: (failure, restored) => {
        onChangeRef.current(restored);
        setError(`Your rating was not saved: ${describeError(failure)}`);
      },
    },
  );

  function press(pressed: AnswerRating) {
    const next = nextRating(rating, pressed);
    setError('');
    onChange(next);
    saver.current?.choose(next);
  }

  return (
    <fieldset className="answer-feedback">
      <legend className="visually-hidden">Rate this answer</legend>
      {(['up', 'down'] as const).map((thumb) => (
        <button
          key={thumb}
          type="button"
          className="button-secondary feedback-button"
          aria-pressed={rating === thumb}
          title={thumb === 'up' ? 'Good answer' : 'Poor answer'}
          onClick={() => press(thumb)}
        >
          <Thumb down={thumb === 'down'} />
          <span className="visually-hidden">{thumb === 'up' ? 'Thumbs up' : 'Thumbs down'}</span>
        </button>
      ))}
      {error === '' ? null : (
        <p role="alert" className="error-text feedback-error">
          {error}
        </p>
      )}
    </fieldset>
  );
}
