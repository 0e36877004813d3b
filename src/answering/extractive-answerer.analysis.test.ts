import { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import { hitOf } from '../../test/fakes/fake-team-search.js';
import { analyzeTexts } from '../db/repositories/search.js';
import { sqlConnection } from '../db/sql-connection.js';
import type { SearchHit } from '../retrieval/search-types.js';
import { numberPassages } from './citations.js';
import { ExtractiveAnswerer } from './extractive-answerer.js';

// With PostgreSQL's own English analysis (as `TeamSearch.analyze` runs it), where the fake's
// word splitting would hide how a name is read.
const database = new PGlite();
const sql = sqlConnection(database);
const answerer = new ExtractiveAnswerer({
  analyze: (texts) => analyzeTexts(sql, texts),
  termStatistics: async (_teamId, terms) => ({
    chunks: 1,
    documentFrequencies: new Map(terms.map((term) => [term, 1])),
  }),
});

afterAll(() => database.close());

async function answer(
  question: string,
  text: string,
  section: { title?: string; headingPath?: readonly string[]; topic?: readonly string[] } = {},
): Promise<string> {
  let answered = '';
  const { title = 'Transport', headingPath = [], topic = [] } = section;
  for await (const piece of answerer.answer({
    teamId: 1,
    question,
    history: [],
    topic,
    passages: numberPassages([hitOf({ title, text, headingPath }, 0)]),
    signal: new AbortController().signal,
  })) {
    answered += piece;
  }
  // A section's answer opens with its heading; what follows it is checked here.
  return answered.replace(/^#### .*\n\n/, '');
}

/** The answer from several passages, best first: the section heading it opens with, and the rest. */
async function answerFrom(
  question: string,
  hits: readonly SearchHit[],
): Promise<{ heading: string | undefined; text: string }> {
  let answered = '';
  for await (const piece of answerer.answer({
    teamId: 1,
    question,
    history: [],
    topic: [],
    passages: numberPassages(hits),
    signal: new AbortController().signal,
  })) {
    answered += piece;
  }
  const heading = /^#### (.*)\n\n/.exec(answered);
  return {
    heading: heading?.[1],
    text: heading === null ? answered : answered.slice(heading[0].length),
  };
}

describe('ExtractiveAnswerer with PostgreSQL’s analysis', () => {
  it('reads a name written with a slash ("V/Line") as the one word the analyser makes of it', async () => {
    const text = await answer(
      'What entity owns V/Line?',
      'Major operators include Metro Trains Melbourne and V/Line, which is now owned by the Victorian Government.',
    );
    expect(text).toContain('owned by the Victorian Government [1].');
  });

  it('reads a hyphenated name and the same name spelled apart alike', async () => {
    const text = await answer(
      'What craft were the Port-Royal monks known for?',
      'Several monks of Port-Royal fled to the hills and founded a school. At Port Royal, a craft of bookbinding had developed.',
    );
    expect(text.startsWith('At Port Royal, a craft of bookbinding had developed [1].')).toBe(true);
  });

  it('does not match the noun that only says which kind of answer is asked ("which year")', async () => {
    const text = await answer(
      'In which year did the newspaper define the southern region?',
      'Each year in spring, the southern region has about 10,000 earthquakes. In 1900, the Times defined the southern region as seven counties.',
    );
    expect(text.startsWith('In 1900, the Times defined the southern region as seven counties [1].')).toBe(
      true,
    );
  });

  it('scores a labelled value with its sentence: a short "Default:" line alone does not outscore the line that answers', async () => {
    // As the Markdown reader stores a list of options: an item a paragraph, its marks gone.
    const options = [
      'retryAfter boolean (optional) - It enables automatic retry after the Retry-After header is received from the server that answered the request. Default: true',
      "methods string[] (optional) - Array of HTTP methods to retry. Default: ['GET', 'HEAD']",
      'statusCodes number[] (optional) - Array of HTTP status codes to retry. Default: [429, 503]',
    ].join('\n\n');
    // "head" is a form of "header": in a value of three words it outscored the line saying "header".
    const text = await answer('Does it honour the Retry-After header?', options, {
      title: 'Class: RetryHandler',
      headingPath: ['Class: RetryHandler', 'RetryOptions'],
    });
    expect(text).toMatch(/^retryAfter boolean \(optional\) - It enables automatic retry/);
  });

  it('answers "how many…" with the line giving the count of what it counts, worded otherwise ("retries" for "attempts")', async () => {
    const options = [
      'maxRetries number (optional) - Maximum number of retries. Default: 5',
      'maxTimeout number (optional) - Maximum number of milliseconds to wait before retrying. Default: 30000',
      'timeoutFactor number (optional) - Factor to multiply the timeout by for each retry attempt. Default: 2',
      'statusCodes number[] (optional) - Array of HTTP status codes to retry. Default: [429, 503]',
    ].join('\n\n');
    const text = await answer('How many attempts does it make by default?', options, {
      title: 'Class: RetryHandler',
      headingPath: ['Class: RetryHandler', 'RetryOptions'],
      topic: ['How can I automatically retry failed HTTP requests?'],
    });
    expect(text).toMatch(/^maxRetries number \(optional\) - Maximum number of retries/);
  });

  // As semver's README lists its ranges, the list's marks gone.
  const caretRanges = [
    'Ranges can also be written with a caret.',
    '^1.2.3 := >=1.2.3 <2.0.0-0',
    '^1.2.3-beta.2 := >=1.2.3-beta.2 <2.0.0-0 Note that prereleases of 1.2.3 are allowed too.',
  ].join('\n\n');
  const caretSection = { title: 'semver', headingPath: ['Advanced Range Syntax', 'Caret Ranges'] };

  it('reads a short line stating what one thing equals ("^1.2.3 := …") as whole, not as a fragment', async () => {
    const text = await answer('What does ^1.2.3 mean?', caretRanges, caretSection);
    expect(text.startsWith('^1.2.3 := >=1.2.3 <2.0.0-0 [1]')).toBe(true);
  });

  it('goes on with a longer line that says more than the short one shown, though it repeats its terms', async () => {
    const text = await answer('What does ^1.2.3 mean?', caretRanges, caretSection);
    expect(text).toContain('Note that prereleases of 1.2.3 are allowed too.');
  });

  it('does not count a section less for another title naming a word that weighs less than what its headings name', async () => {
    // "errors out" names the Errors guide's title; the pluginTimeout entry's heading names the
    // plugin asked about, which that title does not.
    const errors = hitOf(
      {
        title: 'Errors',
        fileName: 'fastify-Errors.md',
        headingPath: ['Errors', 'Error codes'],
        text: 'Each error has a code that says which check failed. The list below gives them all.',
      },
      0,
    );
    const pluginTimeout = hitOf(
      {
        title: 'Server',
        fileName: 'fastify-Server.md',
        headingPath: ['Server', 'pluginTimeout'],
        text: 'The maximum amount of time in milliseconds in which a plugin can load. If not, ready will complete with an Error.',
      },
      1,
    );
    const { heading, text } = await answerFrom(
      'How long does Fastify give a plugin to load before ready() errors out?',
      [errors, pluginTimeout],
    );
    expect(heading).toBe('pluginTimeout');
    expect(text).toContain('The maximum amount of time in milliseconds in which a plugin can load');
  });

  it('reads "how long" as asking for a time', async () => {
    const loading = hitOf(
      {
        title: 'Server',
        headingPath: ['Server', 'Plugin loading'],
        text: 'Plugins load in the order they are registered. Wait for ready() before the server listens.',
      },
      0,
    );
    const pluginTimeout = hitOf(
      {
        title: 'Server',
        headingPath: ['Server', 'pluginTimeout'],
        text: 'The maximum amount of time in milliseconds in which a plugin can load.',
      },
      1,
    );
    const { heading } = await answerFrom('How long does a plugin get to load?', [loading, pluginTimeout]);
    expect(heading).toBe('pluginTimeout');
  });

  it('prefers the document whose title names the kind of thing a "which…" question asks for', async () => {
    // "Which … hook": the Hooks guide lists hooks; the server's clientErrorHandler entry names
    // "client" in its heading, as the question does, but is no hook.
    const clientErrorHandler = hitOf(
      {
        title: 'Server',
        fileName: 'fastify-Server.md',
        headingPath: ['Server', 'clientErrorHandler'],
        text: 'The handler writes a response body to the socket of the client before the connection closes.',
      },
      0,
    );
    const onSend = hitOf(
      {
        title: 'Hooks',
        fileName: 'fastify-Hooks.md',
        headingPath: ['Hooks', 'onSend'],
        text: 'With the onSend hook you can rewrite the payload before it is sent.',
      },
      1,
    );
    const { heading } = await answerFrom(
      'Which Fastify hook lets me rewrite the response body just before it goes to the client?',
      [clientErrorHandler, onSend],
    );
    expect(heading).toBe('onSend');
  });
});
