import { type FormEvent, type KeyboardEvent, useRef, useState } from 'react';
import { MAX_QUESTION_CHARS } from '../api/chat';

interface QuestionFormProps {
  streaming: boolean;
  onAsk: (question: string) => void;
  onStop: () => void;
  /** Someone is typing a question: the moment to fetch what its answer will need. */
  onTyping?: () => void;
}

/** Said beside the box when Ask is pressed with nothing (or only spaces) in it. */
const EMPTY_QUESTION_MESSAGE = 'Type a question to ask.';

/**
 * The question box: Enter asks, Shift+Enter starts a new line. While an answer streams, the button
 * is Stop (the same button, so focus stays on it). Asking with an empty box marks it invalid with a
 * message, focus back in it, until something is typed.
 */
export function QuestionForm({ streaming, onAsk, onStop, onTyping }: QuestionFormProps) {
  const [question, setQuestion] = useState('');
  const [empty, setEmpty] = useState(false);
  const fieldRef = useRef<HTMLTextAreaElement>(null);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (streaming) return;
    const text = question.trim();
    if (text === '') {
      setEmpty(true);
      // Ask pressed with the pointer took focus from the box: give it back, where the fix is typed.
      fieldRef.current?.focus();
      return;
    }
    onAsk(text);
    setQuestion('');
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    // Not while an input method composes a character: its Enter picks the character.
    if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing) return;
    event.preventDefault();
    event.currentTarget.form?.requestSubmit();
  }

  return (
    <form className="question-form" onSubmit={submit}>
      <label htmlFor="question-input">Ask a question</label>
      <div className="question-row">
        <textarea
          id="question-input"
          name="question"
          rows={3}
          maxLength={MAX_QUESTION_CHARS}
          ref={fieldRef}
          value={question}
          onChange={(event) => {
            setQuestion(event.target.value);
            setEmpty(false);
            onTyping?.();
          }}
          onKeyDown={onKeyDown}
          aria-invalid={empty ? true : undefined}
          aria-errormessage={empty ? 'question-error' : undefined}
          aria-describedby={empty ? 'question-error question-hint' : 'question-hint'}
        />
        {streaming ? (
          <button type="button" key="ask-button" className="button-primary" onClick={onStop}>
            Stop
          </button>
        ) : (
          <button type="submit" key="ask-button" className="button-primary">
            Ask
          </button>
        )}
      </div>
      {empty ? (
        // An alert: with Enter, focus never left the box, so nothing else would say why nothing happened.
        <p id="question-error" className="field-error" role="alert">
          {EMPTY_QUESTION_MESSAGE}
        </p>
      ) : null}
      <p id="question-hint" className="field-hint">
        Enter asks; Shift+Enter starts a new line.
      </p>
    </form>
  );
}
