import type { SearchHit } from '../retrieval/search-types.js';

/** A retrieved passage as an answerer sees it: numbered from 1, the number it is cited by. */
export interface Passage {
  readonly number: number;
  readonly hit: SearchHit;
}

/** An earlier message of the same chat (conversation memory), oldest first. */
export interface ConversationTurn {
  readonly role: 'user' | 'assistant';
  readonly content: string;
}

export interface AnswerInput {
  /** The team whose documents the passages are (its collection weighs the question's terms). */
  readonly teamId: number;
  readonly question: string;
  readonly history: readonly ConversationTurn[];
  /**
   * Words of earlier turns this one continues (`carriedTopic`), when it leans on them: its
   * passages were searched with them, and they weigh below the question's own words.
   */
  readonly topic: readonly string[];
  /**
   * The turn rewritten to stand alone (`QuestionRewriter`), when a model rewrote it into something
   * else: its passages were searched with it. `question` stays the asker's own words.
   */
  readonly standaloneQuestion?: string | undefined;
  /** Best first; may be empty (nothing relevant found). */
  readonly passages: readonly Passage[];
  /** Aborted when the client goes away: stop work, and any LLM request. */
  readonly signal: AbortSignal;
}

/**
 * Writes an answer from numbered passages, as text pieces in order; cites a passage as `[n]`.
 * Throws (an `AnswerError`) when it cannot go on; pieces already yielded stay valid.
 */
export interface Answerer {
  readonly kind: 'extractive' | 'llm';
  answer(input: AnswerInput): AsyncIterable<string>;
}
