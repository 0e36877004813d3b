import { type FormEvent, type KeyboardEvent, useState } from 'react';
import { MAX_QUESTION_CHARS } from '../api/chat';

interface QuestionFormProps {
  streaming: boolean;
  onAsk: (question: string) => void;
  onStop: () => void;
}

/**
 * The question box: Enter asks, Shift+Enter starts a new line. While an answer streams, the button
 * is Stop (the same button, so focus stays on it).
 */
export function QuestionForm({ streaming, onAsk, onStop }: QuestionFormProps) {
  const [question, setQuestion] = useState('');

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (streaming) return;
    const text = question.trim();
    if (text === '') return;
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
          value={question}
          onChange={(event) => setQuestion(event.target.value)}
          onKeyDown={onKeyDown}
          aria-describedby="question-hint"
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
      <p id="question-hint" className="field-hint">
        Enter asks; Shift+Enter starts a new line.
      </p>
    </form>
  );
}
