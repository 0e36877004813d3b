import { describe, expect, it } from 'vitest';
import { FakeTeamSearch } from '../../test/fakes/fake-team-search.js';
import type { Reader } from '../access.js';
import { carriedTopic, leansOnConversation } from './follow-up.js';

const TEAM = 1;
const READER: Reader = { teamId: TEAM, userId: 1, email: 'ann@example.com', groups: [] };

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
      READER,
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
      READER,
      'Do they have to reply themselves?',
      asked('Tell me whose child bindings go missing?'),
    );
    expect(topic).toEqual(expect.arrayContaining(['child', 'bindings']));
    expect(topic).not.toContain('whose');
    expect(topic).not.toContain('Tell');
  });

  it('carries nothing into a question with a subject of its own, or at the start of a chat', async () => {
    expect(
      await carriedTopic(search, READER, 'How do I configure pino redaction?', asked('pino child bindings?')),
    ).toEqual([]);
    expect(await carriedTopic(search, READER, 'And for transports?', [])).toEqual([]);
  });

  it('takes the topic from the two latest questions, the latest first among equals', async () => {
    const history = [
      ...asked('What are pino transports?'),
      ...asked('And child bindings?'),
      ...asked('Which redact paths?'),
    ];
    const topic = await carriedTopic(search, READER, 'And for those?', history);
    // "transports" was asked three turns ago: the topic moved on.
    expect(topic).not.toContain('transports');
    expect(topic).toEqual(expect.arrayContaining(['redact', 'paths']));
  });

  it('carries first the words the last answer repeats: what the exchange was about, not a rare word of its phrasing', async () => {
    // "rather" is the rarest word asked; "full", "help" and "error" are what the answer was about.
    const cli = new FakeTeamSearch().add(
      // Titles that name none of the question's words: naming is the next test's.
      { teamId: TEAM, title: 'Page one', text: 'commander help full usage error' },
      { teamId: TEAM, title: 'Page two', text: 'commander error short message full' },
      { teamId: TEAM, title: 'Page three', text: 'commander option value rather short' },
      { teamId: TEAM, title: 'Page four', text: 'commander command action help' },
      { teamId: TEAM, title: 'Page five', text: 'commander parse argv' },
      { teamId: TEAM, title: 'Page six', text: 'commander hook event' },
    );
    const question = 'Print the full help rather than a short error?';
    const turn = 'And how do I trigger that for my own failures?';
    const answered = 'Call showHelpAfterError() to show the full help after an error [1].';
    expect(await carriedTopic(cli, READER, turn, asked(question, answered))).toEqual([
      'full',
      'help',
      'error',
    ]);
    // An answer about none of them, or one that cites nothing (a "not found" repeats the question's
    // words), says nothing: the rarest words lead.
    const notFound = "I couldn't find an answer to that. Nothing in them is about print, short and error.";
    for (const answer of ['See the documentation [1].', notFound]) {
      expect(await carriedTopic(cli, READER, turn, asked(question, answer)), answer).toEqual([
        'full',
        'help',
        'rather',
      ]);
    }
  });

  it("carries first the words that name what the earlier question found: its passages' headings, titles and file names", async () => {
    const readme = { teamId: TEAM, title: 'Readme', fileName: 'commander-Readme.md' };
    const docs = new FakeTeamSearch().add(
      { ...readme, headingPath: ['Commands'], text: 'define subcommands with commander' },
      { ...readme, headingPath: ['Options'], text: 'commander option flags' },
      { ...readme, headingPath: ['Display error'], text: 'commander error handling for your own conditions' },
      { teamId: TEAM, title: 'Validation', text: 'validation failures error handling' },
      { teamId: TEAM, title: 'Routes', text: 'nested route path' },
      { teamId: TEAM, title: 'Hooks', text: 'hook runs quickly' },
      { teamId: TEAM, title: 'Plugins', text: 'plugin register encapsulation' },
      { teamId: TEAM, title: 'Logging', text: 'logger level serializers' },
    );
    const question = 'How do I define nested subcommands quickly with commander?';
    const turn = 'How do I trigger that same error handling for my own failures?';
    // "define", "nested", "subcommands" and "quickly" are each in one chunk, "commander" in three,
    // and the answer repeats none of them: by rarity alone "commander" would not be carried.
    const topic = await carriedTopic(docs, READER, turn, asked(question, 'Call .command() [1].'));
    expect(topic).toHaveLength(3);
    expect(topic).toContain('commander');
    // The earlier question was searched as the reader: only what they may open names the topic.
    expect(docs.requests).toContainEqual(
      expect.objectContaining({ reader: READER, query: question, mode: 'lexical' }),
    );
  });
});
