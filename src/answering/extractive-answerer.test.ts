import { describe, expect, it } from 'vitest';
import { FakeTeamSearch, hitOf } from '../../test/fakes/fake-team-search.js';
import type { ConversationTurn, Passage } from './answerer.js';
import { numberPassages } from './citations.js';
import { ExtractiveAnswerer, NOT_FOUND_ANSWER, withCitation } from './extractive-answerer.js';

const analyzer = new FakeTeamSearch();

async function answer(
  question: string,
  passages: readonly Passage[],
  options: {
    history?: ConversationTurn[];
    topic?: string[];
    limits?: { maxSentences?: number; maxWords?: number };
    /** The team's collection, when a test needs its terms to weigh what they weigh there. */
    collection?: FakeTeamSearch;
  } = {},
) {
  const answerer = new ExtractiveAnswerer(options.collection ?? analyzer, options.limits);
  const pieces: string[] = [];
  for await (const piece of answerer.answer({
    teamId: 1,
    question,
    history: options.history ?? [],
    topic: options.topic ?? [],
    passages,
    signal: new AbortController().signal,
  })) {
    pieces.push(piece);
  }
  const answered = pieces.join('');
  // A section's answer opens with its heading (`#### …`); `text` is what follows it.
  const heading = /^#### (.*)\n\n/.exec(answered);
  return {
    pieces,
    answered,
    heading: heading?.[1],
    text: heading === null ? answered : answered.slice(heading[0].length),
  };
}

function passagesOf(...documents: { title: string; text: string; url?: string }[]) {
  return numberPassages(documents.map((document, index) => hitOf(document, index)));
}

const handbook = {
  title: 'Employee handbook',
  url: 'https://intranet/handbook',
  text: [
    '# Working here',
    'Our office opens at 8am on weekdays. The canteen serves lunch from noon.',
    'Every employee gets 25 days of paid holiday each year. Unused holiday days can be carried over, up to 5 days.',
    'Parking permits are issued by facilities.',
  ].join('\n\n'),
};
const expenses = {
  title: 'Expenses policy',
  url: 'https://intranet/expenses',
  text: 'Submit expense receipts within 30 days of purchase. Holiday travel is never reimbursed by the company.',
};

describe('ExtractiveAnswerer', () => {
  it('answers with the sentences that match the question, each cited, nothing unrelated', async () => {
    const { text } = await answer(
      'How many days of paid holiday do employees get?',
      passagesOf(handbook, expenses),
    );
    expect(text).toContain('Every employee gets 25 days of paid holiday each year [1].');
    expect(text).not.toContain('canteen');
    expect(text).not.toContain('Parking');
  });

  it('groups sentences by source, in reading order, and cites each with its own number', async () => {
    const { text, pieces } = await answer(
      'Are holiday days carried over, and is holiday travel reimbursed?',
      passagesOf(handbook, expenses),
    );
    expect(pieces.length).toBeGreaterThan(1);
    const carried = text.indexOf('Unused holiday days can be carried over, up to 5 days [1].');
    const travel = text.indexOf('Holiday travel is never reimbursed by the company [2].');
    expect(carried).toBeGreaterThanOrEqual(0);
    expect(travel).toBeGreaterThanOrEqual(0);
    // One paragraph per source.
    expect(text.split('\n\n')).toHaveLength(2);
  });

  it('leads with the best sentence, even from a later source', async () => {
    const travel = { title: 'Travel', text: 'Holiday travel is not reimbursed.' };
    const { text } = await answer('Is holiday travel reimbursed?', passagesOf(handbook, travel));
    expect(text.startsWith('Holiday travel is not reimbursed [2].')).toBe(true);
  });

  it('prefers the sentence holding the kind of answer the question word asks for', async () => {
    const history = {
      title: 'History',
      text: [
        'The company was founded by engineers who wanted better tools for the founding team.',
        'The company was founded in 1998 in a garage.',
        'It was founded with a loan from Ada Lovelace Bank.',
      ].join(' '),
    };
    const when = await answer('When was the company founded?', passagesOf(history), {
      limits: { maxSentences: 1 },
    });
    expect(when.text).toBe('The company was founded in 1998 in a garage [1].');
    const howMany = {
      title: 'Staff',
      text: 'Engineers at the company write the tools. The company employs 240 engineers.',
    };
    const many = await answer('How many engineers does the company employ?', passagesOf(howMany), {
      limits: { maxSentences: 1 },
    });
    expect(many.text).toBe('The company employs 240 engineers [1].');
  });

  it('lends a sentence that opens with a pronoun the subject of the one before it', async () => {
    const art = {
      title: 'Art',
      text: 'The most famous work of the period is the Bayeux Tapestry, a tapestry of wool. It was commissioned by Bishop Odo.',
    };
    const { text } = await answer('Who commissioned the Bayeux Tapestry?', passagesOf(art));
    expect(text.startsWith('It was commissioned by Bishop Odo [1].')).toBe(true);
  });

  it('lends a sentence that goes on from the one before ("Indeed, …") that sentence’s subject', async () => {
    const art = {
      title: 'Art',
      text: 'Work on the Bayeux Tapestry began in 1070. Indeed, the embroidery was finished in 1077.',
    };
    const { text } = await answer('When was the Bayeux Tapestry finished?', passagesOf(art), {
      limits: { maxSentences: 1 },
    });
    expect(text).toBe('Indeed, the embroidery was finished in 1077 [1].');
  });

  it('reads a sentence under a heading as about what the heading names', async () => {
    const caret = {
      ...hitOf(
        { title: 'semver', text: 'Allows changes that do not modify the left-most non-zero element.' },
        0,
      ),
      headingPath: ['Ranges', 'Caret ranges'],
    };
    const { text } = await answer('What do caret ranges allow?', numberPassages([caret]));
    expect(text).toBe('Allows changes that do not modify the left-most non-zero element [1].');
  });

  it('says nothing was found when a name the question asks about is in no passage', async () => {
    const { text } = await answer('How many days of holiday do Contoso employees get?', passagesOf(handbook));
    expect(text).toBe(NOT_FOUND_ANSWER);
  });

  it('forgives one spelling mistake in a name the question asks about', async () => {
    const papers = {
      title: 'History of complexity theory',
      text: 'Juris Hartmanis published his seminal paper in 1965. Turing machines came first.',
    };
    const { text } = await answer('When did Hatmanis publish his seminal paper?', passagesOf(papers));
    expect(text).toBe('Juris Hartmanis published his seminal paper in 1965 [1].');
    const elsewhere = await answer('When did Hoffmann publish his seminal paper?', passagesOf(papers));
    expect(elsewhere.text).toBe(NOT_FOUND_ANSWER);
  });

  it('forgives a short misspelt word inside a longer name the passage spells with the rest in place', async () => {
    const city = {
      title: 'Inland Empire',
      text: 'San Bernardino was founded by Mormon settlers in 1851. The city grew with the railway.',
    };
    const { text } = await answer('When was Sand Bernardino founded?', passagesOf(city));
    expect(text.startsWith('San Bernardino was founded by Mormon settlers in 1851 [1].')).toBe(true);
    const logic = {
      title: 'Puzzles',
      text: 'Raymond Smullyan wrote books of logic puzzles in 1978.',
    };
    const other = await answer('When did Raymond Sullivan write books of logic puzzles?', passagesOf(logic));
    expect(other.text).toBe(NOT_FOUND_ANSWER);
  });

  it('reads British and American spellings of a word alike', async () => {
    const town = {
      title: 'The old town',
      text: 'The old town has a market hall and a castle. A fountain stands at the centre of the old town.',
    };
    const { text } = await answer('What is at the center of the old town?', passagesOf(town));
    expect(text.startsWith('A fountain stands at the centre of the old town [1].')).toBe(true);
  });

  it('takes "in 911" for the year a "when" question asks for', async () => {
    const duchy = {
      title: 'The duchy',
      text: 'The duchy, which the Normans formed by treaty, was a great fief of France. The duchy, which began in 911 as a fiefdom, was established by treaty with the king.',
    };
    const { text } = await answer('When was the duchy founded?', passagesOf(duchy));
    expect(
      text.startsWith(
        'The duchy, which began in 911 as a fiefdom, was established by treaty with the king [1].',
      ),
    ).toBe(true);
  });

  it('leads with a sentence naming what the question asks about over one that only shares its other words', async () => {
    const districts = {
      title: 'Business districts',
      text: 'Most of them are located in northern San Diego.',
    };
    const city = {
      title: 'Dyrrachium',
      text: 'Dyrrachium lay on the Adriatic coast, where the Normans landed.',
    };
    const { text } = await answer('Where was Dyrrachium located?', passagesOf(districts, city));
    expect(text.startsWith('Dyrrachium lay on the Adriatic coast, where the Normans landed [2].')).toBe(true);
  });

  it('ranks a document that never names what the question asks about below one that does', async () => {
    const rival = {
      title: 'Company news',
      text: 'Fabrikam moved its headquarters to Leeds in 2019. Sales rose that year.',
    };
    const history = {
      title: 'Our history',
      text: 'Contoso began as a small family workshop by the old docks of Hull. Years later, the headquarters moved to York in 2015.',
    };
    const { text } = await answer('When did Contoso move its headquarters?', passagesOf(rival, history));
    expect(text.startsWith('Years later, the headquarters moved to York in 2015 [2].')).toBe(true);
  });

  it('reads every sentence of a document as about the name its title gives', async () => {
    const news = { title: 'Travel news', text: 'Contoso staff praised the new lounge.' };
    const policy = {
      title: 'Contoso travel policy',
      text: 'Business class is booked for flights over 8 hours.',
    };
    const { text } = await answer(
      'On which flights do Contoso staff get business class?',
      passagesOf(news, policy),
    );
    expect(text.startsWith('Business class is booked for flights over 8 hours [2].')).toBe(true);
  });

  it('matches a question word with an everyday synonym in the sentence', async () => {
    const glossary = {
      title: 'Glossary',
      text: 'The shared drive for contracts is huge. The shared drive for contracts is called Vault.',
    };
    const { text } = await answer(
      'What is the name of the shared drive for contracts?',
      passagesOf(glossary),
      {
        limits: { maxSentences: 1 },
      },
    );
    expect(text).toBe('The shared drive for contracts is called Vault [1].');
  });

  it('answers a statement (a claim) with its closest evidence', async () => {
    const study = {
      title: 'Study',
      text: 'We followed 2,000 adults for ten years. Regular coffee drinking was associated with a lower risk of type 2 diabetes.',
    };
    const { text } = await answer(
      'Coffee consumption reduces the risk of developing diabetes',
      passagesOf(study),
    );
    expect(text).toContain('lower risk of type 2 diabetes [1].');
  });

  it('keeps code a fenced block, lines intact, with the citation outside it', async () => {
    const readme = {
      title: 'README',
      text: [
        'To install the package, run the following commands:',
        'npm install --save semver\nnpx semver --help',
        'The tilde allows patch updates.',
      ].join('\n\n'),
    };
    const { text } = await answer('How do I install the semver package?', passagesOf(readme));
    expect(text).toContain(
      'To install the package, run the following commands [1]:\n\n```\nnpm install --save semver\nnpx semver --help\n```',
    );
    const code = text.slice(text.indexOf('```'), text.lastIndexOf('```') + 3);
    expect(code).not.toMatch(/\[\d+\]/);
  });

  it('answers a "how do I" question with the one-line command its passage introduces, fenced', async () => {
    const readme = {
      title: 'semver',
      text: [
        '# semver',
        'The semantic versioner for npm.',
        '## Install',
        'Install it with:',
        'npm install semver',
        '## Usage',
        'Versions are compared by their major, minor and patch numbers.',
      ].join('\n\n'),
    };
    const { text } = await answer('How do I install semver?', passagesOf(readme));
    expect(text.startsWith('Install it with [1]:\n\n```\nnpm install semver\n```')).toBe(true);
  });

  it('answers with a code block alone as a fence followed by its citation', async () => {
    const snippet = {
      title: 'Snippet',
      text: 'const semver = require("semver");\nsemver.satisfies("1.2.3", "~1.2.0");',
    };
    const { text } = await answer('semver satisfies', passagesOf(snippet));
    expect(text).toBe(
      '```\nconst semver = require("semver");\nsemver.satisfies("1.2.3", "~1.2.0");\n```\n[1]',
    );
  });

  it('keeps a list a list when a chosen sentence introduces it', async () => {
    const ranges = {
      title: 'Ranges',
      text: [
        'The version range operators are the following:',
        'Tilde allows patch-level changes',
        'Caret allows changes that do not modify the major version',
        'Hyphen ranges are inclusive',
      ].join('\n\n'),
    };
    const { text } = await answer('What version range operators are there?', passagesOf(ranges), {
      limits: { maxSentences: 1 },
    });
    expect(text).toBe(
      [
        'The version range operators are the following [1]:',
        '',
        '- Tilde allows patch-level changes',
        '- Caret allows changes that do not modify the major version',
        '- Hyphen ranges are inclusive',
      ].join('\n'),
    );
  });

  it('says plainly that nothing was found when there are no passages', async () => {
    expect((await answer('What is the capital of Mongolia?', [])).text).toBe(NOT_FOUND_ANSWER);
  });

  it('says nothing was found when no sentence shares the question’s meaningful terms', async () => {
    const { text } = await answer('Which vaccines does the travel clinic recommend?', passagesOf(handbook));
    expect(text).toBe(NOT_FOUND_ANSWER);
  });

  it('leaves out a sentence that repeats or rephrases one already chosen', async () => {
    const repeated = {
      title: 'Handbook, part 2',
      text: 'Every employee gets 25 days of paid holiday each year.',
    };
    const rephrased = { title: 'Summary', text: 'Employees get 25 days of paid holiday.' };
    const { text } = await answer(
      'How many days of paid holiday do employees get?',
      passagesOf(handbook, repeated, rephrased),
    );
    expect(text.match(/25 days of paid holiday/g)).toHaveLength(1);
  });

  it('keeps two sentences that share the question’s words but say different things', async () => {
    const complexity = {
      title: 'Graph isomorphism',
      text: [
        'The polynomial hierarchy does not collapse: graph isomorphism is not NP-complete.',
        'If graph isomorphism is NP-complete, the polynomial hierarchy collapses to its second level.',
      ].join(' '),
    };
    const { text } = await answer(
      'What follows for the polynomial hierarchy if graph isomorphism is NP-complete?',
      passagesOf(complexity),
    );
    expect(text).toContain('is not NP-complete [1].');
    expect(text).toContain('collapses to its second level [1].');
  });

  it('once the passages answer the question, leads with the sentence that answers it, though it shares few of its words', async () => {
    const cooperative = {
      title: 'Cooperative',
      text: [
        'Growers sign the cooperative charter again at the town hall every year.',
        'Kyneton signed it in 1911.',
      ].join(' '),
    };
    const { text } = await answer(
      'When did the Kyneton growers sign the cooperative charter at the town hall?',
      passagesOf(cooperative),
      { limits: { maxSentences: 1 } },
    );
    expect(text).toBe('Kyneton signed it in 1911 [1].');
  });

  it('keeps to the length limits', async () => {
    const many = {
      title: 'Holiday FAQ',
      text: [
        'Holiday requests need approval from your manager.',
        'Holiday requests over ten days need sign-off by HR.',
        'Holiday requests in December need two weeks of notice.',
        'Holiday requests abroad need a travel form.',
        'Cancelled holiday requests need nothing more.',
      ].join(' '),
    };
    const { text } = await answer('What do holiday requests need?', passagesOf(many), {
      limits: { maxSentences: 3 },
    });
    expect(text.match(/\[1\]/g)).toHaveLength(3);

    const long = { title: 'Long', text: `Holiday ${'words '.repeat(200)}end.` };
    const cut = await answer('holiday', passagesOf(long), { limits: { maxWords: 20 } });
    expect(cut.text.split(/\s+/).length).toBeLessThanOrEqual(22);
  });

  it('prefers the sentence of the higher-ranked passage when two match equally', async () => {
    const first = { title: 'Current policy', text: 'Remote work is allowed two days per week.' };
    const second = { title: 'Old policy', text: 'Remote work is allowed one day per week.' };
    const { text } = await answer('remote work days per week', passagesOf(first, second), {
      limits: { maxSentences: 1 },
    });
    expect(text).toBe('Remote work is allowed two days per week [1].');
  });

  it('matches a follow-up together with the topic it continues', async () => {
    const { text } = await answer('And can they be carried over?', passagesOf(handbook), {
      history: [
        { role: 'user', content: 'How many holiday days do employees get?' },
        { role: 'assistant', content: 'Every employee gets 25 days [1].' },
      ],
      topic: ['holiday'],
    });
    expect(text).toContain('carried over');
  });

  it('answers a question with its own subject as a second turn as it does alone', async () => {
    const passages = passagesOf(handbook, expenses);
    const question = 'When does the office open on weekdays?';
    const alone = await answer(question, passages);
    const second = await answer(question, passages, {
      history: [
        { role: 'user', content: 'Within how many days must expense receipts be submitted?' },
        { role: 'assistant', content: 'Submit expense receipts within 30 days of purchase [2].' },
      ],
    });
    expect(alone.text).toContain('Our office opens at 8am on weekdays [1].');
    expect(second.text).toBe(alone.text);
  });
});

describe('ExtractiveAnswerer on documentation (sections under headings)', () => {
  const section = (title: string, headingPath: string[], text: string) => ({ title, headingPath, text });
  const documented = (...sections: ReturnType<typeof section>[]) =>
    numberPassages(sections.map((item, index) => hitOf(item, index)));

  it('ranks a section by what its prose says more than by the names its code repeats (a grammar)', async () => {
    const grammar = section(
      'semver',
      ['semver', 'Range Grammar'],
      [
        'Here is a grammar for ranges, for the benefit of parser authors:',
        '',
        '```bnf',
        "caret ::= '^' version",
        "tilde ::= '~' version",
        'primitive ::= caret | tilde | version',
        '```',
      ].join('\n'),
    );
    const prose = section(
      'semver',
      ['semver', 'Advanced ranges'],
      'A caret version differs in what it allows: changes that do not modify the left-most non-zero element, where a tilde version allows patch-level changes.',
    );
    const install = section(
      'semver',
      ['semver', 'Install'],
      'Install semver with npm to compare version strings.',
    );
    const { text } = await answer(
      'How does a caret version differ from a tilde version?',
      documented(install, prose, grammar),
    );
    expect(text.startsWith('A caret version differs in what it allows')).toBe(true);
  });

  it('reads a section cut into two chunks as one: the answer may sit in its lower-ranked part', async () => {
    const compression = (text: string, chunk: number) => ({
      ...hitOf({ title: 'ws', headingPath: ['ws', 'WebSocket compression'], text, documentId: 7 }, chunk),
    });
    const passages = numberPassages([
      compression(
        'ws supports the permessage-deflate extension, which enables the client and server to negotiate a compression algorithm and its parameters. See the docs for more options on compression.',
        0,
      ),
      hitOf(
        {
          title: 'Server',
          headingPath: ['Server', 'Options'],
          text: 'The server options set the port and the host.',
        },
        5,
      ),
      compression(
        'The extension is disabled by default on the server and enabled by default on the client. It adds a significant overhead in terms of performance and memory consumption.',
        1,
      ),
    ]);
    const { text } = await answer('Is compression turned on by default?', passages);
    expect(text.startsWith('The extension is disabled by default on the server')).toBe(true);
    // Both parts are one section of one document: one citation number.
    expect(text).not.toContain('[2]');
  });

  it('answers a how-to question with one section: the sentence that answers, then the section with its code', async () => {
    const passages = documented(
      section(
        'API',
        ['API', 'Child loggers'],
        [
          'Child loggers inherit the bindings of their parent.',
          '',
          'Create a child logger with logger.child(bindings), passing the bindings it adds:',
          '',
          '```js',
          "const child = logger.child({ module: 'db' })",
          '```',
        ].join('\n'),
      ),
      section(
        'Transports',
        ['Transports'],
        'A worker thread runs each transport. Child processes are not used.',
      ),
    );
    const { text } = await answer('How do I create a child logger?', passages);
    // Led by the sentence that answers, the section follows in order with its code, cited once.
    expect(text.startsWith('Create a child logger with logger.child(bindings)')).toBe(true);
    expect(text).toContain("```js\nconst child = logger.child({ module: 'db' })\n```");
    expect(text).toContain('Child loggers inherit the bindings of their parent.');
    // Nothing of another passage is stitched on.
    expect(text).not.toContain('transport');
    expect(text).not.toContain('[2]');
  });

  it('leads with the sentence holding what the section heading and title do not already say', async () => {
    // lru-cache's README, "Storage Bounds Safety" (ISC), shortened.
    const passages = documented(
      section(
        'lru-cache',
        ['lru-cache', 'Storage Bounds Safety'],
        [
          'At initial object creation, storage is allocated for max items. Either maxSize or ttl must be set if max is not specified.',
          '',
          'If neither max nor maxSize are set, then ttl tracking must be enabled. Note that, even when tracking item ttl, items are not preemptively deleted when they become stale, unless ttlAutopurge is enabled. Instead, they are only purged the next time the key is requested.',
          '',
          'If you truly wish to use a cache that is bound only by TTL expiration, consider using a Map object, and calling setTimeout to delete entries when they expire. It will perform much better than an LRU cache.',
        ].join('\n'),
      ),
    );
    // "lru-cache" is what every sentence of it is about; "stale" and "deleted" tell them apart.
    const { text } = await answer(
      'Are stale entries in lru-cache deleted as soon as their TTL passes?',
      passages,
    );
    expect(text.slice(0, 74)).toBe(
      'Note that, even when tracking item ttl, items are not preemptively deleted',
    );
  });

  it("lifts a section whose heading names what is asked above search's top passage that only repeats a word", async () => {
    const grammar = section(
      'Grammar',
      ['Grammar'],
      'caret ::= "^" partial. The caret operator, the caret partial, and the caret sign.',
    );
    const caret = section(
      'Ranges',
      ['Ranges', 'Caret ranges'],
      'Allows changes that do not modify the left-most non-zero element: ^1.2.3 is >=1.2.3 <2.0.0.',
    );
    const tilde = section(
      'Ranges',
      ['Ranges', 'Tilde ranges'],
      'Allows patch-level changes: ~1.2.3 is >=1.2.3 <1.3.0.',
    );
    // Search ranked the grammar first (it repeats "caret"); the headings say which section is about caret ranges.
    const { text } = await answer('What do caret ranges allow?', documented(grammar, caret, tilde));
    expect(text.startsWith('Allows changes that do not modify the left-most non-zero element')).toBe(true);
    expect(text).toContain('[2]');
  });

  it('lifts a section with a sentence that says what is asked above one that repeats a word of it in every line', async () => {
    const versioning = section(
      'Routes',
      ['Routes', 'Version constraints'],
      [
        'Requests are routed by their Accept-Version header.',
        'A route declares the versions it will accept, and a request whose Accept-Version matches none is not found.',
        'Set a Vary header on the Accept-Version value of each request so caches keep versions apart.',
      ].join(' '),
    );
    const bodyLimit = section(
      'Server',
      ['Server', 'bodyLimit'],
      [
        '+ Default: `1048576` (1MiB)',
        '',
        'Defines the maximum payload, in bytes, the server is allowed to accept.',
        'A larger body is refused with a 413.',
      ].join('\n'),
    );
    const hooks = section(
      'Hooks',
      ['Hooks', 'onSend'],
      'The onSend hook may change the payload of a request before it is sent.',
    );
    // Search ranked the versioning section first: it repeats "accept" and "request".
    const { text } = await answer(
      'What is the largest request payload the server will accept?',
      documented(versioning, hooks, bodyLimit),
    );
    expect(
      text.startsWith('Defines the maximum payload, in bytes, the server is allowed to accept [3].'),
    ).toBe(true);
    // The labelled value is a fact of the section, not a fragment to drop.
    expect(text).toContain('Default: `1048576` (1MiB)');
  });

  it('prefers a section of the document the question names (a package) over another sharing its other words', async () => {
    const server = hitOf(
      {
        title: 'Server',
        fileName: 'fastify-Server.md',
        headingPath: ['Server', 'Symbol.asyncDispose'],
        text: 'Closing the server after each test suits unit tests, where the process must end cleanly once the tests fail or pass.',
      },
      0,
    );
    const commander = hitOf(
      {
        title: 'Commander.js',
        fileName: 'commander-Readme.md',
        headingPath: ['Commander.js', 'Override exit and output handling'],
        text: 'By default Commander calls process.exit when it detects errors. You can override this with exitOverride, which throws a CommanderError instead.',
      },
      1,
    );
    const { text } = await answer(
      'In unit tests, how do I stop commander from ending the process when parsing fails?',
      numberPassages([server, commander]),
    );
    expect(text).toContain('exitOverride');
    expect(text).not.toContain('[1]');
  });

  it('prefers the document whose title names more of the question when two name some of it', async () => {
    // Both titles name the package; one also names what is asked about ("RetryHandler": retry).
    const pipelining = hitOf(
      {
        title: 'Undici',
        fileName: 'undici-README.md',
        headingPath: ['Undici', 'Pipelining'],
        text: 'Undici automatically pipelines HTTP requests again when retrying them after a failed connection. Undici will not retry the first remaining requests in the prior pipeline.',
      },
      0,
    );
    const retryHandler = hitOf(
      {
        title: 'Class: RetryHandler',
        fileName: 'undici-RetryHandler.md',
        headingPath: ['Class: RetryHandler'],
        text: 'A handler class that implements the retry logic for a request: a failed HTTP request is sent again automatically.',
      },
      1,
    );
    const { text } = await answer(
      'How can I automatically retry failed HTTP requests with undici?',
      numberPassages([pipelining, retryHandler]),
    );
    expect(text).toMatch(/^A handler class that implements the retry logic for a request.*\[2\]/);
  });

  it('does not count a section less for its title when its headings name what the other title names', async () => {
    // "Child loggers" names "child logger"; the API reference's title does not, but the headings
    // its msgPrefix section sits under do: it is as much about child loggers.
    const msgPrefix = hitOf(
      {
        title: 'API',
        fileName: 'pino-api.md',
        headingPath: ['API', 'logger.child(bindings, [options]) => logger', 'options.msgPrefix (String)'],
        text: 'The msgPrefix property allows you to specify a prefix for every message of the child logger. By default, the parent prefix is inherited.',
      },
      0,
    );
    const childLoggers = hitOf(
      {
        title: 'Child loggers',
        fileName: 'pino-child-loggers.md',
        headingPath: ['Child loggers'],
        text: 'Every child logger has the bindings of its parent. Use a child logger to add a field to every line.',
      },
      1,
    );
    const { text } = await answer(
      'How do I put a prefix in front of every message of a pino child logger?',
      numberPassages([msgPrefix, childLoggers]),
    );
    expect(text).toMatch(/^The msgPrefix property allows you to specify a prefix.*\[1\]/);
  });

  it('answers from the section whose prose says what is asked, under its heading, over examples of code alone ranked above it', async () => {
    const mockAgent = { title: 'Class: MockAgent', fileName: 'undici-MockAgent.md' };
    const example = (what: string, index: number) =>
      hitOf(
        {
          ...mockAgent,
          headingPath: [
            'Class: MockAgent',
            'MockAgent.enableNetConnect([host])',
            `Example - Allow requests matching a host ${what} to make real requests`,
          ],
          text: `\`\`\`js\nconst mockAgent = new MockAgent()\nmockAgent.enableNetConnect(${what})\nawait request('http://example.com')\n\`\`\``,
        },
        index,
      );
    const disableNetConnect = hitOf(
      {
        ...mockAgent,
        headingPath: ['Class: MockAgent', 'MockAgent.disableNetConnect()'],
        text: 'This method causes all requests to throw when requests are not matched in a MockAgent intercept.\n\nReturns: `void`',
      },
      2,
    );
    const { heading, text } = await answer(
      'During tests, how do I make undici fail any request that does not match a mock?',
      numberPassages([example("'example.com'", 0), example('/example/', 1), disableNetConnect]),
    );
    expect(heading).toBe('MockAgent.disableNetConnect()');
    expect(text.startsWith('This method causes all requests to throw')).toBe(true);
  });

  it('weighs a term the question repeats more when choosing the section ("every message… messages from child loggers")', async () => {
    const api = { title: 'API', fileName: 'pino-api.md', documentId: 3, externalId: 'pino-api.md' };
    const bindings = hitOf(
      {
        ...api,
        headingPath: ['API', 'logger.child(bindings)', 'bindings (Object)'],
        text: 'Key-value pairs to tag each log line output, including the lines of the returned child logger, every time.',
      },
      0,
    );
    const msgPrefix = hitOf(
      {
        ...api,
        headingPath: ['API', 'logger.child(bindings)', 'msgPrefix (String)'],
        text: 'The msgPrefix property puts a prefix before every message of the child logger.',
      },
      1,
    );
    const { text } = await answer(
      'How do I put a tag before every message on each line, including the messages of child loggers: all messages?',
      numberPassages([bindings, msgPrefix]),
    );
    expect(text).toMatch(/^The msgPrefix property puts a prefix before every message/);
  });

  it('reads a labelled value ("Default: 5") with the sentence its line begins with', async () => {
    const options = section(
      'RetryHandler',
      ['RetryHandler', 'RetryOptions'],
      // As the Markdown reader stores a list of options: an item a paragraph, its marks gone.
      [
        'maxRetries number (optional) - Maximum number of retries. Default: 5',
        'minTimeout number (optional) - Minimum number of milliseconds to wait before retrying. Default: 500',
        'retryAfter boolean (optional) - It enables automatic retry after the Retry-After header is received. Default: true',
      ].join('\n\n'),
    );
    const { text } = await answer('How many times does it try by default?', documented(options), {
      topic: ['retry'],
    });
    expect(text.startsWith('maxRetries number (optional) - Maximum number of retries [1]. Default: 5')).toBe(
      true,
    );
  });

  it('answers a short follow-up from the topic it continues ("How often?")', async () => {
    const passages = documented(
      section(
        'Espresso machine care',
        ['Espresso machine care'],
        'Descale the espresso machine every two months with citric acid. Clean the basket daily.',
      ),
    );
    const { text } = await answer('How often?', passages, {
      history: [
        { role: 'user', content: 'How do I descale the espresso machine?' },
        { role: 'assistant', content: 'Descale it with citric acid [1].' },
      ],
      topic: ['descale', 'espresso', 'machine'],
    });
    expect(text).toContain('every two months');
  });

  it('does not open a follow-up with the sentence an earlier answer of the chat opened with', async () => {
    const heartbeat = section(
      'ws',
      ['ws', 'How to detect broken connections?'],
      [
        'Sometimes the link between the server and the client breaks without either side noticing the connection is gone.',
        'Your clients might as well lose their connection without knowing it: call terminate() on the client to close it at once.',
      ].join(' '),
    );
    const question = 'And a client connection that breaks?';
    const alone = await answer(question, documented(heartbeat));
    expect(alone.heading).toBe('How to detect broken connections?');
    expect(alone.text.startsWith('Sometimes the link')).toBe(true);
    const { text } = await answer(question, documented(heartbeat), {
      history: [
        { role: 'user', content: 'How can a server notice that a client connection broke?' },
        // The earlier answer as the chat keeps it: under its section's heading.
        { role: 'assistant', content: alone.answered },
      ],
      topic: ['server'],
    });
    expect(text.startsWith('Your clients might as well lose their connection')).toBe(true);

    // A lead too long for the answer was shown cut short: it is still the one the asker read.
    const limits = { maxWords: 14 };
    const cut = await answer(question, documented(heartbeat), { limits });
    const shown = cut.text.split(' [1]')[0] ?? '';
    expect(shown.split(' ')).toHaveLength(14);
    const after = await answer(question, documented(heartbeat), {
      limits,
      history: [
        { role: 'user', content: 'How can a server notice that a client connection broke?' },
        { role: 'assistant', content: cut.answered },
      ],
      topic: ['server'],
    });
    expect(after.text.startsWith('Your clients might')).toBe(true);
  });

  it('says "not found", naming what it looked for, when the passages lack what the question is about', async () => {
    const passages = documented(
      section(
        'Styles',
        ['Styles', 'Modifiers'],
        'bold: make the text bold. dim: make the text dim. italic: make the text italic.',
      ),
    );
    // In the team's collection "make" and "text" are everywhere, "chalk" in a few chunks, "blink" nowhere.
    const collection = new FakeTeamSearch().add(
      ...Array.from({ length: 20 }, (_, index) => ({
        teamId: 1,
        title: `Page ${index}`,
        text: index < 3 ? 'make the text red with chalk' : 'make the text fit',
      })),
    );
    const { text } = await answer('How do I make text blink with chalk?', passages, { collection });
    expect(text.startsWith(NOT_FOUND_ANSWER)).toBe(true);
    expect(text).toContain('blink');
    expect(text).not.toMatch(/\[\d\]/);
  });

  it('says "not found" when what is asked is spread over unrelated sections, none about it', async () => {
    const size = section('Cache', ['Cache', 'Size'], 'Entries are evicted once the cache holds max entries.');
    const persistence = section(
      'Cache',
      ['Cache', 'Persistence'],
      'Nothing is written to disk by the cache itself.',
    );
    const shutdown = section(
      'Server',
      ['Server', 'Shutdown'],
      'A restart drops every connection; clients survive it by reconnecting.',
    );
    // Alone, each section holds a word or two of the question; together they hold most of it.
    const { text } = await answer(
      'How do I make the cache save its entries to disk so they survive a restart?',
      documented(size, persistence, shutdown),
    );
    expect(text.startsWith(NOT_FOUND_ANSWER)).toBe(true);
    expect(text).not.toMatch(/\[\d\]/);
    // Asked about what one section holds, that section answers.
    const answered = await answer(
      'Does the cache write its entries to disk?',
      documented(persistence, size, shutdown),
    );
    expect(answered.text).toContain('Nothing is written to disk by the cache itself');
  });

  it('says "not found" for a name of several words whose words no one section holds together', async () => {
    const secrets = section(
      'Config',
      ['Config', 'Secrets'],
      'Keep secrets out of the repository: load them at startup from .env.',
    );
    const lambda = section(
      'Deploy',
      ['Deploy', 'AWS Lambda'],
      'On AWS Lambda, set variables in the function settings.',
    );
    const manager = section(
      'Tools',
      ['Tools', 'Manager'],
      'A process manager restarts the app when .env changes.',
    );
    const { text } = await answer(
      'How do I fetch secrets from AWS Secrets Manager at startup?',
      documented(secrets, lambda, manager),
    );
    expect(text).toBe(`${NOT_FOUND_ANSWER} Nothing in them is about AWS Secrets Manager.`);
    // A name the documents hold whole is answered.
    const answered = await answer(
      'Where do I set variables on AWS Lambda?',
      documented(lambda, secrets, manager),
    );
    expect(answered.text).toContain('set variables in the function settings');
  });

  it('answers what documentation names only as the context of the question ("on our CI server") when the collection names it elsewhere', async () => {
    const passages = documented(
      section(
        'chalk',
        ['API', 'supportsColor'],
        'Colors are detected automatically. Where chalk prints no colors on a server, force them on with the environment variable FORCE_COLOR=1.',
      ),
    );
    // "CI" is in the team's collection (another package's README), though in no passage found.
    const collection = new FakeTeamSearch().add(
      { teamId: 1, title: 'ws', text: 'The CI runs the tests on every push.' },
      { teamId: 1, title: 'chalk', text: 'chalk prints colors; force them on a server with FORCE_COLOR.' },
    );
    const { text } = await answer(
      'chalk prints no colors on our CI server. How do I force them on?',
      passages,
      {
        collection,
      },
    );
    expect(text).toContain('FORCE_COLOR=1');
    // A name the collection never holds is what the question is about: nothing answers it.
    const kubernetes = await answer('Which Kubernetes namespace forces colors on?', passages, { collection });
    expect(kubernetes.text.startsWith(NOT_FOUND_ANSWER)).toBe(true);
  });

  it("keeps a section's paragraphs apart: sentences of one paragraph run on, another paragraph starts a new one", async () => {
    const passages = documented(
      section(
        'Features',
        ['Features'],
        [
          'Modular: pick what you need.',
          '',
          'Immutable: the date you pass is never changed. Each call returns a new one instead.',
        ].join('\n'),
      ),
    );
    const { text } = await answer('Is the date I pass changed?', passages);
    expect(text).toBe(
      'Immutable: the date you pass is never changed [1]. Each call returns a new one instead.\n\nModular: pick what you need.',
    );
  });

  it('shows what follows the sentence that answers (its list, its code) before going back to the start of its section', async () => {
    const readme = [
      'A modern toolset for manipulating dates in a browser and Node.js.',
      '',
      'It works with every bundler and supports tree-shaking.',
      '',
      'Each function returns a new date instead of modifying the one you pass:',
      '',
      '```js',
      'const next = addDays(today, 1) // today is unchanged',
      '```',
    ].join('\n');
    // An untitled introduction (no heading of its own) of a document named by its file.
    const intro = hitOf(
      { title: 'README', fileName: 'date-fns-README.md', headingPath: [], text: readme },
      0,
    );
    const docs = hitOf({ title: 'README', headingPath: ['Docs'], text: 'See the documentation site.' }, 1);
    const { text } = await answer(
      'Does date-fns modify the Date I pass to its functions?',
      numberPassages([intro, docs]),
    );
    expect(
      text.startsWith('Each function returns a new date instead of modifying the one you pass [1]:'),
    ).toBe(true);
    expect(text.indexOf('const next = addDays(today, 1)')).toBeLessThan(text.indexOf('A modern toolset'));
  });
});

describe('withCitation', () => {
  it('puts the citation before the end mark, or after a sentence without one', () => {
    expect(withCitation('Holidays are 25 days.', 2)).toBe('Holidays are 25 days [2].');
    expect(withCitation('25 days a year', 1)).toBe('25 days a year [1]');
    expect(withCitation('Run the following:', 1)).toBe('Run the following [1]:');
  });
});
