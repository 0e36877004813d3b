import { describe, expect, it } from 'vitest';
import { FakeTeamSearch } from '../../test/fakes/fake-team-search.js';
import { carriedTopic, leansOnConversation } from './follow-up.js';

const TEAM = 1;

/** A team's documents: "pino" and "logger" are everywhere, "child" and "bindings" in one each. */
const search = new FakeTeamSearch().add(
  { teamId: TEAM, title: 'API', text: 'pino logger options level' },
  { teamId: TEAM, title: 'Child loggers', text: 'pino logger child bindings' },
  { teamId: TEAM, title: 'Transports', text: 'pino logger transport worker' },
  { teamId: TEAM, title: 'Redaction', text: 'pino logger redact paths' },
);

const asked = (question: string, answer = 'See the documentation [1].') => [
  { role: 'user' as const, content: question },
  { role: 'assistant' as const, content: answer },
];

describe('leansOnConversation', () => {
  it('is true of a turn that continues, is too short to name a subject, or points back', () => {
    for (const question of [
      'And contractors?',
      'Why?',
      'Can that logger use a different level from its parent?',
      'Do clients have to reply to those pings themselves?',
      'What about part-time staff?',
    ]) {
      expect(leansOnConversation(question), question).toBe(true);
    }
  });

  it('is false of a question that says what it is about and points nowhere', () => {
    for (const question of ['What is the refund policy?', 'How do I configure pino redaction?']) {
      expect(leansOnConversation(question), question).toBe(false);
    }
  });
});

describe('carriedTopic', () => {
  it("carries the earlier question's rarest words into a turn that leans on it, not its common ones", async () => {
    const topic = await carriedTopic(
      search,
      TEAM,
      'Can that logger use a different level from its parent?',
      asked('How do I tag lines with pino child bindings?'),
    );
    // "child" and "bindings" are rare in the team; "pino" is in every chunk; "logger" is the turn's own.
    expect(topic).toEqual(['child', 'bindings']);
  });

  it('carries no word that only frames a question, however rare', async () => {
    // "whose" and "tell" are each in one chunk, as rare as "child": neither names a topic.
    const team = new FakeTeamSearch().add(
      { teamId: TEAM, title: 'API', text: 'pino logger options level' },
      { teamId: TEAM, title: 'Child loggers', text: 'pino logger child bindings' },
      { teamId: TEAM, title: 'Transports', text: 'pino logger transport, whose worker' },
      { teamId: TEAM, title: 'Redaction', text: 'pino logger redact paths; tell' },
    );
    const topic = await carriedTopic(
      team,
      TEAM,
      'Do they have to reply themselves?',
      asked('Tell me whose child bindings go missing?'),
    );
    expect(topic).toEqual(expect.arrayContaining(['child', 'bindings']));
    expect(topic).not.toContain('whose');
    expect(topic).not.toContain('Tell');
  });

  it('carries nothing into a question with a subject of its own, or at the start of a chat', async () => {
    expect(
      await carriedTopic(search, TEAM, 'How do I configure pino redaction?', asked('pino child bindings?')),
    ).toEqual([]);
    expect(await carriedTopic(search, TEAM, 'And for transports?', [])).toEqual([]);
  });

  it('takes the topic from the two latest questions, the latest first among equals', async () => {
    const history = [
      ...asked('What are pino transports?'),
      ...asked('And child bindings?'),
      ...asked('Which redact paths?'),
    ];
    const topic = await carriedTopic(search, TEAM, 'And for those?', history);
    // "transports" was asked three turns ago: the topic moved on.
    expect(topic).not.toContain('transports');
    expect(topic).toEqual(expect.arrayContaining(['redact', 'paths']));
  });

  it('carries first the words the last answer repeats: what the exchange was about, not a rare word of its phrasing', async () => {
    // "rather" is the rarest word asked; "full", "help" and "error" are what the answer was about.
    const cli = new FakeTeamSearch().add(
      { teamId: TEAM, title: 'Help', text: 'commander help full usage error' },
      { teamId: TEAM, title: 'Errors', text: 'commander error short message full' },
      { teamId: TEAM, title: 'Options', text: 'commander option value rather short' },
      { teamId: TEAM, title: 'Commands', text: 'commander command action help' },
      { teamId: TEAM, title: 'Parsing', text: 'commander parse argv' },
      { teamId: TEAM, title: 'Hooks', text: 'commander hook event' },
    );
    const question = 'Print the full help rather than a short error?';
    const turn = 'And how do I trigger that for my own failures?';
    const answered = 'Call showHelpAfterError() to show the full help after an error [1].';
    expect(await carriedTopic(cli, TEAM, turn, asked(question, answered))).toEqual(['full', 'help', 'error']);
    // An answer about none of them, or one that cites nothing (a "not found" repeats the question's
    // words), says nothing: the rarest words lead.
    const notFound = "I couldn't find an answer to that. Nothing in them is about print, short and error.";
    for (const answer of ['See the documentation [1].', notFound]) {
      expect(await carriedTopic(cli, TEAM, turn, asked(question, answer)), answer).toEqual([
        'full',
        'help',
        'rather',
      ]);
    }
  });
});
