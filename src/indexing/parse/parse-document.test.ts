import { Document, HeadingLevel, Packer, Paragraph } from 'docx';
import { describe, expect, it } from 'vitest';
import { craftZip, deflatedEntry } from '../../../test/fixtures/crafted-zip.js';
import {
  corruptDocx,
  corruptPdf,
  generateConfluenceStorage,
  generateCsv,
  generateDocx,
  generateDocxBomb,
  generateHtml,
  generateJson,
  generateMarkdown,
  generatePdf,
  generateScannedPdf,
  HANDBOOK_BLOCKS,
  loadFixtureFiles,
} from '../../../test/fixtures/documents.js';
import { type Block, FileFailure, type ParsedDocument } from '../document.js';
import { capTitle, titleFromText } from './document-title.js';
import {
  CONFLUENCE_STORAGE_MIME_TYPE,
  isSupportedMimeType,
  parseDocument,
  resolveMimeType,
} from './parse-document.js';
import { inflateZipEntry, readZipDirectory } from './zip-guard.js';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const encode = (text: string) => new TextEncoder().encode(text);
const parseText = (mimeType: string, text: string, fileName?: string) =>
  parseDocument({ mimeType, bytes: encode(text), ...(fileName === undefined ? {} : { fileName }) });

const headingsOf = (parsed: ParsedDocument) =>
  parsed.blocks.filter((block) => block.kind === 'heading').map((block) => block.text);
const textsOf = (parsed: ParsedDocument) =>
  parsed.blocks.filter((block) => block.kind === 'text').map((block) => block.text);
const outline = (parsed: ParsedDocument) =>
  parsed.blocks.map((block: Block) =>
    block.kind === 'heading' ? `h${block.level} ${block.text}` : block.text,
  );

async function failureOf(promise: Promise<unknown>): Promise<FileFailure> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof FileFailure) return error;
    throw error;
  }
  throw new Error('expected a FileFailure');
}

/** This process's CPU time so far, in ms: unlike the wall clock, other processes' load does not stretch it. */
function cpuMilliseconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

describe('parseDocument on the generated fixture of every format', async () => {
  const fixtures = await loadFixtureFiles();
  it.each(fixtures.map((fixture) => [fixture.name, fixture] as const))(
    '%s: its headings and its known phrase',
    async (_, fixture) => {
      const parsed = await parseDocument(fixture);
      expect(headingsOf(parsed)).toEqual(fixture.headings);
      expect(textsOf(parsed).some((text) => text.includes(fixture.phrase))).toBe(true);
      for (const block of parsed.blocks) expect(block.text).not.toBe('');
    },
  );
});

describe('PDF', () => {
  it('reads text per page, headings by font size, and the title from the metadata', async () => {
    const bytes = await generatePdf({
      title: 'Field Guide',
      pages: [
        [
          { heading: 'Birds', level: 1 },
          'Robins sing at dawn.',
          { heading: 'Waders', level: 2 },
          'Herons stand still.',
        ],
        [
          'Herons also fly slowly over the marsh, and this paragraph is long enough to wrap onto a second line of text.',
        ],
        [{ heading: 'Mammals', level: 1 }, 'Foxes hunt at night.'],
      ],
    });
    const parsed = await parseDocument({ mimeType: 'application/pdf', bytes });
    expect(parsed.title).toBe('Field Guide');
    expect(parsed.blocks).toEqual([
      { kind: 'heading', level: 1, text: 'Birds', page: 1 },
      { kind: 'text', text: 'Robins sing at dawn.', page: 1 },
      { kind: 'heading', level: 2, text: 'Waders', page: 1 },
      { kind: 'text', text: 'Herons stand still.', page: 1 },
      {
        kind: 'text',
        text: 'Herons also fly slowly over the marsh, and this paragraph is long enough to wrap onto a second line of text.',
        page: 2,
      },
      { kind: 'heading', level: 1, text: 'Mammals', page: 3 },
      { kind: 'text', text: 'Foxes hunt at night.', page: 3 },
    ]);
  });

  it('leaves the caller’s bytes usable', async () => {
    const bytes = await generatePdf({ pages: [['Only one line.']] });
    await parseDocument({ mimeType: 'application/pdf', bytes });
    expect((await parseDocument({ mimeType: 'application/pdf', bytes })).blocks).toHaveLength(1);
  });

  it('fails a corrupt PDF and a scan without text as parse_error', async () => {
    const corrupt = await failureOf(parseDocument({ mimeType: 'application/pdf', bytes: corruptPdf() }));
    expect(corrupt.reason).toBe('parse_error');
    expect(corrupt.status).toBe('failed');
    const scanned = await failureOf(
      parseDocument({ mimeType: 'application/pdf', bytes: await generateScannedPdf() }),
    );
    expect(scanned).toMatchObject({
      reason: 'parse_error',
      message: expect.stringContaining('no extractable text'),
    });
  });
});

describe('DOCX', () => {
  it('keeps Word heading levels, list items and header-row tables', async () => {
    const bytes = await generateDocx({ title: 'Handbook 2024', blocks: HANDBOOK_BLOCKS });
    const parsed = await parseDocument({ mimeType: DOCX, bytes });
    expect(parsed.title).toBe('Handbook 2024');
    expect(outline(parsed)).toEqual([
      'h1 Handbook 2024',
      'h1 Employee Handbook',
      'This handbook explains how the team works together.',
      'h2 Travel Policy',
      'Book flights at least fourteen days ahead. Economy class is the default for trips under six hours.',
      'Keep every receipt for expense claims.',
      'Submit claims within thirty days.',
      'h3 Approvals',
      'Managers approve trips that cost more than two thousand euros.',
      'h2 Security',
      'Laptops encrypt their disks and lock after five idle minutes.',
      '# rotate the deploy key rotate-key --service payments',
      'System: Payments; Owner: Ada Lovelace; Rotation: Every 90 days',
      'System: Search, internal; Owner: Grace Hopper',
    ]);
  });

  it('fails a corrupt DOCX as parse_error', async () => {
    const failure = await failureOf(parseDocument({ mimeType: DOCX, bytes: corruptDocx() }));
    expect(failure.reason).toBe('parse_error');
    expect(failure.message).toMatch(/DOCX/);
  });
});

describe('HTML', () => {
  it('reads headings, paragraphs, list items, table rows and code; drops scripts, styles and comments', async () => {
    const parsed = await parseDocument({
      mimeType: 'text/html',
      bytes: generateHtml({ title: 'Handbook', blocks: HANDBOOK_BLOCKS }),
    });
    expect(parsed.title).toBe('Handbook');
    expect(outline(parsed)).toContain('h3 Approvals');
    expect(textsOf(parsed)).toContain('Keep every receipt for expense claims.');
    expect(textsOf(parsed)).toContain('```\n# rotate the deploy key\nrotate-key --service payments\n```');
    expect(textsOf(parsed)).toContain('System: Search, internal; Owner: Grace Hopper');
    const all = parsed.blocks.map((block) => block.text).join('\n');
    expect(all).not.toMatch(/tracking|font-family|hidden-style|comment/);
  });

  it('decodes entities, collapses whitespace and falls back on a leading <h1> for the title', async () => {
    const parsed = await parseText(
      'text/html',
      `<body><h1>Caf&eacute; &amp; Bar</h1><p>It&#8217;s&nbsp;open
         <b>late</b>,<br>every&#x20;day &hearts; &unknownentity;</p>
         <ul><li>Tea<ul><li>Green</li></ul></li><li>Coffee</li></ul>
         <div>Loose <span>inline</span> text<p>then a paragraph</p></div></body>`,
    );
    expect(parsed.title).toBe('Café & Bar');
    expect(outline(parsed)).toEqual([
      'h1 Café & Bar',
      'It’s open late, every day ♥ &unknownentity;',
      'Tea',
      'Green',
      'Coffee',
      'Loose inline text',
      'then a paragraph',
    ]);
  });

  it('survives sloppy HTML: unclosed tags, stray brackets, tables without rows', async () => {
    const parsed = await parseText(
      'text/html',
      '<p>one<p>two < three<table><td>cell a<td>cell b</table><h2>Head</h2><p>after',
    );
    expect(outline(parsed)).toEqual(['one', 'two < three', 'cell a | cell b', 'h2 Head', 'after']);
  });
});

describe('Confluence storage format', () => {
  it('keeps panels, code bodies and link titles; drops macro parameters and emoticons', async () => {
    const parsed = await parseDocument({
      mimeType: CONFLUENCE_STORAGE_MIME_TYPE,
      bytes: generateConfluenceStorage({
        blocks: [
          { heading: 'Deploys', level: 1 },
          { paragraph: 'Deploys happen on Tuesdays.' },
          {
            table: [
              ['Service', 'Owner'],
              ['billing', 'Ada'],
            ],
          },
        ],
        panelText: 'Never deploy on Fridays.',
        code: 'if (a < b && c) {\n  deploy();\n}',
        linkedPageTitle: 'Release Calendar',
      }),
    });
    expect(outline(parsed)).toEqual([
      'h1 Deploys',
      'Deploys happen on Tuesdays.',
      'Service: billing; Owner: Ada',
      'Never deploy on Fridays.',
      '```\nif (a < b && c) {\n  deploy();\n}\n```',
      'See Release Calendar for more.',
    ]);
    const all = parsed.blocks.map((block) => block.text).join('\n');
    expect(all).not.toMatch(/Panel title parameter|typescript|smile/);
  });

  it('reads task lists, layouts, link bodies, dates and nested macros', async () => {
    const parsed = await parseText(
      CONFLUENCE_STORAGE_MIME_TYPE,
      `<ac:layout><ac:layout-section ac:type="two_equal"><ac:layout-cell>
        <h2>Checklist</h2>
        <ac:task-list><ac:task><ac:task-id>1</ac:task-id><ac:task-status>incomplete</ac:task-status>
          <ac:task-body>Rotate the <strong>keys</strong></ac:task-body></ac:task></ac:task-list>
        <p>Due <time datetime="2024-05-01" /> per <ac:link><ri:user ri:account-id="123" /><ac:plain-text-link-body><![CDATA[the owner]]></ac:plain-text-link-body></ac:link>.</p>
        <ac:structured-macro ac:name="expand"><ac:parameter ac:name="title">Details</ac:parameter>
          <ac:rich-text-body><ac:structured-macro ac:name="note"><ac:rich-text-body><p>Nested note.</p></ac:rich-text-body></ac:structured-macro></ac:rich-text-body>
        </ac:structured-macro>
        <ac:structured-macro ac:name="toc" />
      </ac:layout-cell></ac:layout-section></ac:layout>`,
    );
    expect(outline(parsed)).toEqual([
      'h2 Checklist',
      'Rotate the keys',
      'Due 2024-05-01 per the owner.',
      'Nested note.',
    ]);
  });
});

describe('Markdown', () => {
  it('reads ATX and setext headings, keeps fenced code whole, drops link definitions', async () => {
    const parsed = await parseText(
      'text/markdown',
      [
        '---',
        'title: "Ops Guide"',
        '---',
        '# Operations',
        '',
        'Read this **first**, then [the wiki](https://wiki.example.com) and ![diagram][image1].',
        'A second line of the same paragraph with `inline_code` and snake_case_names.',
        '',
        'Setext Heading',
        '==============',
        '',
        '```bash',
        '# this is a comment, not a heading',
        '',
        'echo "hi"',
        '```',
        '',
        '## Lists ##',
        '',
        '- [x] Done item',
        '* Star item',
        '  continued on the next line',
        '1. Numbered item',
        '',
        '> Quoted text',
        '',
        '| Tool | Use |',
        '| ---- | --- |',
        '| jq   | JSON |',
        '',
        'Escaped \\*stars\\* and 3 \\* 4.',
        '',
        '***',
        '',
        '    indented code',
        '',
        '[image1]: <data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA>',
      ].join('\n'),
    );
    expect(parsed.title).toBe('Ops Guide');
    expect(outline(parsed)).toEqual([
      'h1 Operations',
      'Read this first, then the wiki and diagram. A second line of the same paragraph with inline_code and snake_case_names.',
      'h1 Setext Heading',
      '```bash\n# this is a comment, not a heading\n\necho "hi"\n```',
      'h2 Lists',
      'Done item',
      'Star item continued on the next line',
      'Numbered item',
      'Quoted text',
      'Tool: jq; Use: JSON',
      'Escaped *stars* and 3 * 4.',
      '```\nindented code\n```',
    ]);
  });

  it('keeps an unclosed fence to the end, and takes a leading # heading as the title', async () => {
    const parsed = await parseText('text/markdown', '# Title\n\n~~~\ncode that never closes\n## still code');
    expect(parsed.title).toBe('Title');
    expect(outline(parsed)).toEqual(['h1 Title', '```\ncode that never closes\n## still code\n```']);
  });

  it('reads the fixture generator’s setext and code blocks', async () => {
    const parsed = await parseDocument({
      mimeType: 'text/markdown',
      bytes: generateMarkdown({ blocks: [{ heading: 'setext:Summary', level: 2 }, { code: '# x\n# y' }] }),
    });
    expect(outline(parsed)).toEqual(['h2 Summary', '```ts\n# x\n# y\n```']);
  });
});

describe('plain text', () => {
  it('splits paragraphs at blank lines and joins their lines', async () => {
    const parsed = await parseText(
      'text/plain',
      '\uFEFFFirst line\r\nstill first.\r\n\r\n  \r\nSecond\tparagraph.\n\n\n',
    );
    expect(parsed).toEqual({
      blocks: [
        { kind: 'text', text: 'First line still first.' },
        { kind: 'text', text: 'Second paragraph.' },
      ],
    });
  });

  it('reads bytes that are not UTF-8 as Windows-1252, and honours a declared charset', async () => {
    const latin1 = Uint8Array.from([0x43, 0x61, 0x66, 0xe9, 0x20, 0x80, 0x35]);
    expect(textsOf(await parseDocument({ mimeType: 'text/plain', bytes: latin1 }))).toEqual(['Café €5']);
    const declared = await parseDocument({
      mimeType: 'text/plain; charset=ISO-8859-15',
      bytes: Uint8Array.from([0xa4]),
    });
    expect(textsOf(declared)).toEqual(['€']);
  });

  it('drops characters no database can store and invisible ones', async () => {
    const parsed = await parseText('text/plain', 'nul\u0000byte zero\u200Bwidth soft\u00ADhyphen');
    expect(textsOf(parsed)).toEqual(['nulbyte zerowidth softhyphen']);
  });
});

describe('CSV', () => {
  it('reads RFC 4180 quoting and makes each row read on its own', async () => {
    const bytes = generateCsv([
      ['Name', 'Quote', 'Team'],
      ['Ada', 'She said "hi", then left', 'Core'],
      ['Grace', 'Line one\nline two', ''],
      ['', '', ''],
      ['Linus', '', 'Kernel', 'extra'],
    ]);
    const parsed = await parseDocument({ mimeType: 'text/csv; charset=utf-8', bytes });
    expect(textsOf(parsed)).toEqual([
      'Name: Ada; Quote: She said "hi", then left; Team: Core',
      'Name: Grace; Quote: Line one line two',
      'Name: Linus; Team: Kernel; Column 4: extra',
    ]);
  });

  it('joins values when the first row is data, and reads tab-separated files', async () => {
    expect(textsOf(await parseText('text/csv', '2024,12.5,ok\n2025,13,fine'))).toEqual([
      '2024 | 12.5 | ok',
      '2025 | 13 | fine',
    ]);
    expect(textsOf(await parseText('text/tab-separated-values', 'Key\tValue\nport\t8080'))).toEqual([
      'Key: port; Value: 8080',
    ]);
  });
});

describe('JSON', () => {
  it('makes one block per array element, with dotted paths', async () => {
    const parsed = await parseDocument({
      mimeType: 'application/json',
      bytes: generateJson([
        { id: 1, owner: { name: 'Ada', emails: ['a@x.io', 'b@x.io'] }, empty: null },
        'plain',
      ]),
    });
    expect(textsOf(parsed)).toEqual(['id: 1; owner.name: Ada; owner.emails: a@x.io, b@x.io', 'plain']);
  });

  it('turns keys holding arrays of objects into headings over their elements', async () => {
    const parsed = await parseText(
      'application/json',
      JSON.stringify({
        version: 2,
        meta: { source: 'hr' },
        people: [{ name: 'Ada' }, { name: 'Grace' }],
        tail: true,
      }),
    );
    expect(outline(parsed)).toEqual([
      'version: 2; meta.source: hr',
      'h1 people',
      'name: Ada',
      'name: Grace',
      'tail: true',
    ]);
  });

  it('fails invalid JSON as parse_error', async () => {
    const failure = await failureOf(parseText('application/json', '{"a": [1, 2'));
    expect(failure.reason).toBe('parse_error');
    expect(failure.message).toMatch(/^invalid JSON/);
  });
});

describe('type dispatch', () => {
  it('ignores parameters and case, and uses the extension when the type says nothing', async () => {
    expect(textsOf(await parseText('TEXT/Markdown; charset="utf-8"', '# A\n\nb'))).toEqual(['b']);
    expect(outline(await parseText('application/octet-stream', '# A\n\nb', 'notes.MD'))).toEqual([
      'h1 A',
      'b',
    ]);
    expect(outline(await parseText('', '<h2>X</h2>', 'page.htm'))).toEqual(['h2 X']);
    expect(textsOf(await parseText('application/ld+json', '{"a": 1}'))).toEqual(['a: 1']);
  });

  it('refuses other types as unsupported_type', async () => {
    const failure = await failureOf(parseText('image/png', 'PNG'));
    expect(failure).toMatchObject({ reason: 'unsupported_type', status: 'skipped' });
    expect((await failureOf(parseText('application/octet-stream', 'x', 'archive.zip'))).reason).toBe(
      'unsupported_type',
    );
    // Untyped and unnamed, the content decides: bytes that are no text and no known signature.
    const binary = parseDocument({ mimeType: '', bytes: Uint8Array.of(0x7f, 0x45, 0x4c, 0x46, 0, 1, 0xff) });
    expect((await failureOf(binary)).reason).toBe('unsupported_type');
  });

  it('says which types it reads', () => {
    expect(isSupportedMimeType('application/pdf')).toBe(true);
    expect(isSupportedMimeType(`${CONFLUENCE_STORAGE_MIME_TYPE}; charset=UTF-8`)).toBe(true);
    expect(isSupportedMimeType('text/csv')).toBe(true);
    expect(isSupportedMimeType('application/vnd.google-apps.document')).toBe(false);
    expect(isSupportedMimeType('application/msword')).toBe(false);
    expect(isSupportedMimeType('application/octet-stream')).toBe(false);
    expect(isSupportedMimeType('application/octet-stream', 'report.pdf')).toBe(true);
  });
});

describe('DOCX archives that are not what they claim', () => {
  it('fails a zip bomb declaring its gigabyte as too_large, one hiding it as unsafe_archive', async () => {
    const declared = generateDocxBomb({ inflatedMiB: 1024, declare: 'actual' });
    const hidden = generateDocxBomb({ inflatedMiB: 1024, declare: 'small' });
    expect(declared.length).toBeLessThan(2 * 1024 * 1024);
    const started = cpuMilliseconds();
    expect(await failureOf(parseDocument({ mimeType: DOCX, bytes: declared }))).toMatchObject({
      reason: 'too_large',
      status: 'skipped',
      message: /^the DOCX file is too large: word\/document\.xml inflates to 1073742\d+ bytes/,
    });
    expect(await failureOf(parseDocument({ mimeType: DOCX, bytes: hidden }))).toMatchObject({
      reason: 'unsafe_archive',
      status: 'failed',
      message: /^the DOCX file is unsafe to open: word\/document\.xml inflates to more than the 65536 bytes/,
    });
    // Refused on what the archive says, and at what it declared: nothing near a gigabyte inflated.
    expect(cpuMilliseconds() - started).toBeLessThan(1_000);
  });

  it('inflates to at most the cap it is given', async () => {
    const bytes = await generateDocx({ blocks: HANDBOOK_BLOCKS });
    expect(
      (await failureOf(parseDocument({ mimeType: DOCX, bytes, maxUncompressedBytes: 4096 }))).reason,
    ).toBe('too_large');
  });

  it('never inflates pictures: a broken one does not stop the text', async () => {
    const original = await generateDocx({ blocks: HANDBOOK_BLOCKS });
    const limits = { maxUncompressedBytes: 1024 * 1024 };
    const parts = readZipDirectory(original, limits).map((entry) =>
      deflatedEntry(entry.name, inflateZipEntry(original, entry)),
    );
    const picture = { name: 'word/media/image1.png', data: new Uint8Array(64).fill(0xff), method: 8 };
    const bytes = craftZip([...parts, { ...picture, uncompressedSize: 4096, crc32: 0 }]);
    const parsed = await parseDocument({ mimeType: DOCX, bytes });
    expect(outline(parsed)).toEqual(outline(await parseDocument({ mimeType: DOCX, bytes: original })));
  });
});

describe('Markdown read by linear scans (issue 10)', () => {
  it('reads ATX headings as the regular expression did: closing hashes, tabs, empty ones', async () => {
    const parsed = await parseText(
      'text/markdown',
      ['## Title ##   ', '# a#', '#\tTabbed', '# #', '####### seven', '    # code'].join('\n\n'),
    );
    expect(outline(parsed)).toEqual([
      'h2 Title',
      'h1 a#',
      'h1 Tabbed',
      'h1 #',
      '####### seven',
      '```\n# code\n```',
    ]);
  });

  it('reads a heading line of 40,000 spaces, and no heading where a line separator breaks it', async () => {
    const started = cpuMilliseconds();
    const parsed = await parseText('text/markdown', `# a${' '.repeat(40_000)}b\n\n# c\u2028d`);
    expect(cpuMilliseconds() - started).toBeLessThan(500);
    expect(outline(parsed)).toEqual(['h1 a b', '# c d']);
  });

  it('keeps unclosed openers as text; a code span closes at the next run of its length', async () => {
    const openers = ['[![', '_a ', '~~a ', '<http:a ', '**a '].map((opener) => opener.repeat(5_000)).join('');
    const unclosed = `x${'`'.repeat(20_000)}x ${openers.trim()}`;
    const parsed = await parseText(
      'text/markdown',
      [
        '`a` ``b`` `c`` and ```d``',
        '[a](b(c)d) [a](b(c [](x) [a][] ![](y) <http://a b> <HTTP://x>',
        '**a __b** c__ *a**b* x*y*z _a_b a_b_ _c_ ~~a~~ ~~ b~~',
        unclosed,
      ].join('\n\n'),
    );
    expect(outline(parsed)).toEqual([
      'a b `c and ```d',
      'a [a](b(c [](x) a <http://a b> HTTP://x',
      'a _b c_ a**b x*y*z a_b a_b c a ~~ b~~',
      unclosed,
    ]);
  });

  it('reads list items and table delimiters whatever their spaces', async () => {
    const parsed = await parseText(
      'text/markdown',
      [`-${' '.repeat(30_000)}spaced item`, '', 'a | b', ` |  :--- | ---: | `, 'x | y'].join('\n'),
    );
    expect(outline(parsed)).toEqual(['spaced item', 'a: x; b: y']);
  });

  it('keeps a code span as written: its stars, underscores and brackets are not markup', async () => {
    const parsed = await parseText(
      'text/markdown',
      'For example, `DEBUG=*,-connect:*` includes all but `connect:*`; `__proto__`, `[a](b)` and `~~x~~` too.',
    );
    expect(outline(parsed)).toEqual([
      'For example, DEBUG=*,-connect:* includes all but connect:*; __proto__, [a](b) and ~~x~~ too.',
    ]);
  });
});

/** A DOCX whose core properties (File > Properties) and paragraphs say different things. */
async function docxWithProperties(options: { title?: string; paragraphs: Paragraph[] }): Promise<Uint8Array> {
  const document = new Document({
    ...(options.title === undefined ? {} : { title: options.title }),
    creator: 'fixtures',
    sections: [{ children: options.paragraphs }],
  });
  return new Uint8Array(await Packer.toBuffer(document));
}

describe('the title a document gives itself', () => {
  it('Markdown: the first level-1 heading, ATX or setext, wherever it is; front matter first', async () => {
    const later = await parseText(
      'text/markdown',
      'Some intro.\n\n## Setup\n\nSteps.\n\n# Real **Title**\n\nBody.',
    );
    expect(later.title).toBe('Real Title');
    const setext = await parseText(
      'text/markdown',
      'Preface line.\n\nThe Setext Title\n================\n\nBody.',
    );
    expect(setext.title).toBe('The Setext Title');
    const anchored = await parseText(
      'text/markdown',
      '<a id="top"></a>\n\n# <a name="t"></a>Guide to <b>Things</b>\n',
    );
    expect(anchored.title).toBe('Guide to Things');
    const fronted = await parseText('text/markdown', '---\ntitle: From Front Matter\n---\n# Heading\n');
    expect(fronted.title).toBe('From Front Matter');
    expect((await parseText('text/markdown', '## Only level two\n\nText.')).title).toBeUndefined();
  });

  it('HTML: <title>, else the first <h1> wherever it is', async () => {
    const titled = generateHtml({ title: 'Page Title', blocks: [{ heading: 'Heading One', level: 1 }] });
    expect((await parseDocument({ mimeType: 'text/html', bytes: titled })).title).toBe('Page Title');
    const untitled = await parseText(
      'text/html',
      '<p>Intro first.</p><h2>Part</h2><h1>Main <em>Heading</em></h1>',
    );
    expect(untitled.title).toBe('Main Heading');
  });

  it('PDF: the metadata title, but not a print driver’s placeholder; then the leading heading', async () => {
    const pages = [[{ heading: 'Annual Report', level: 1 as const }, 'Revenue grew.']];
    const placeholder = await generatePdf({ title: 'Microsoft Word - draft3.docx', pages });
    expect((await parseDocument({ mimeType: 'application/pdf', bytes: placeholder })).title).toBe(
      'Annual Report',
    );
    const titled = await generatePdf({ title: 'Report 2024', pages });
    expect((await parseDocument({ mimeType: 'application/pdf', bytes: titled })).title).toBe('Report 2024');
  });

  it('DOCX: the core properties title (docProps/core.xml), else the first Heading 1', async () => {
    const paragraphs = () => [
      new Paragraph({ text: 'Introduction', heading: HeadingLevel.HEADING_1 }),
      new Paragraph('Budgets are due in March.'),
    ];
    const titled = await docxWithProperties({ title: 'Quarterly Review', paragraphs: paragraphs() });
    const parsed = await parseDocument({ mimeType: DOCX, bytes: titled });
    expect(parsed.title).toBe('Quarterly Review');
    expect(textsOf(parsed)).toEqual(['Budgets are due in March.']);
    const untitled = await docxWithProperties({ paragraphs: paragraphs() });
    expect((await parseDocument({ mimeType: DOCX, bytes: untitled })).title).toBe('Introduction');
  });
});

describe('raw HTML inside Markdown', () => {
  it('drops tags, comments, scripts and styles from the text, keeping what elements say', async () => {
    const parsed = await parseText(
      'text/markdown',
      [
        '<a id="install"></a>',
        '## Install <a name="x"></a>',
        '',
        'Run it<br>then wait<br/>a while. It is <b>bold</b> and <span class="x">spanned</span>.',
        '',
        '<!-- a comment',
        'spanning lines, not content -->',
        '',
        '<div align="center">',
        '  <img src="logo.png" alt="Logo">',
        '  <p>Centered <i>words</i></p>',
        '</div>',
        '',
        'Before <!-- inline note --> after.',
        '',
        '<script>',
        'var tracking = "not content";',
        '</script>',
        '<style>.hidden { color: red; }</style>',
        '',
        '| key | value |',
        '|-----|-------|',
        '| <b>a</b> | one<br>two |',
        '',
        'Paragraph text',
        '<!--',
        'hidden',
        '',
        'more hidden',
        '-->',
        'Visible again.',
      ].join('\n'),
    );
    expect(outline(parsed)).toEqual([
      'h2 Install',
      'Run it then wait a while. It is bold and spanned.',
      'Centered words',
      'Before after.',
      'key: a; value: one two',
      'Paragraph text',
      'Visible again.',
    ]);
  });

  it('keeps what only looks like HTML: code, generics, comparisons, escaped brackets; decodes entities', async () => {
    const parsed = await parseText(
      'text/markdown',
      [
        'Write `<br>` and `a &amp; b` in code. A List<String> or Map<K, V>, and x < y > z.',
        '',
        'Escaped \\<b>tag\\</b>, AT&amp;T, caf&eacute; &lt;b&gt; and an unclosed <b tag.',
        '',
        '```html',
        '<div class="kept">code</div>',
        '```',
      ].join('\n'),
    );
    expect(textsOf(parsed)).toEqual([
      'Write <br> and a &amp; b in code. A List<String> or Map<K, V>, and x < y > z.',
      'Escaped <b>tag</b>, AT&T, café <b> and an unclosed <b tag.',
      '```html\n<div class="kept">code</div>\n```',
    ]);
  });
});

describe('files labelled with a type that says nothing', () => {
  it('resolves the type to store from the extension before the bytes are read', () => {
    expect(resolveMimeType('application/octet-stream', 'notes.md')).toBe('text/markdown');
    expect(resolveMimeType('', 'Report.PDF')).toBe('application/pdf');
    expect(resolveMimeType('application/octet-stream', 'page.htm')).toBe('text/html');
    expect(resolveMimeType('application/octet-stream', 'table.tsv')).toBe('text/tab-separated-values');
    expect(resolveMimeType('binary/octet-stream', 'data.json')).toBe('application/json');
    expect(resolveMimeType('application/zip', 'letter.docx')).toBe(DOCX);
    expect(resolveMimeType('text/plain', 'readme.md')).toBe('text/markdown');
    // What a multipart part without a Content-Type arrives as.
    expect(resolveMimeType('text/plain', 'scan.pdf')).toBe('application/pdf');
    expect(resolveMimeType('text/plain', 'notes.txt')).toBe('text/plain');
    // A useful label is kept as sent, parameters and all.
    expect(resolveMimeType('text/plain; charset=windows-1252', 'old.txt')).toBe(
      'text/plain; charset=windows-1252',
    );
    expect(resolveMimeType('application/pdf', 'x.bin')).toBe('application/pdf');
    // No extension: the content will decide. An extension no parser reads: refused.
    expect(resolveMimeType('application/octet-stream', 'README')).toBe('application/octet-stream');
    expect(resolveMimeType('application/octet-stream', 'random.bin')).toBeUndefined();
    expect(resolveMimeType('application/zip', 'archive.zip')).toBeUndefined();
    expect(resolveMimeType('image/png', 'logo.png')).toBeUndefined();
  });

  it('reads them by extension, else by content, and says what they were read as', async () => {
    const octet = 'application/octet-stream';
    const pdf = await generatePdf({ title: 'Sniffed', pages: [['A PDF without a type.']] });
    const docx = await generateDocx({ blocks: [{ paragraph: 'A DOCX without a type.' }] });
    const html = encode(
      '<!DOCTYPE html><html><head><title>Sniffed Page</title></head><body><p>Hi.</p></body></html>',
    );
    const cases: [Uint8Array, string | undefined, string][] = [
      [pdf, undefined, 'application/pdf'],
      [pdf, 'download.bin', 'application/pdf'],
      [docx, 'attachment', DOCX],
      [html, undefined, 'text/html'],
      [encode('# Notes\n\nPlain words.'), 'notes.md', 'text/markdown'],
      [encode('Just some text,\nno name.'), 'README', 'text/plain'],
    ];
    for (const [bytes, fileName, mimeType] of cases) {
      const parsed = await parseDocument({
        mimeType: octet,
        bytes,
        ...(fileName === undefined ? {} : { fileName }),
      });
      expect(parsed.mimeType, `${fileName} as ${mimeType}`).toBe(mimeType);
      expect(parsed.blocks.length, fileName).toBeGreaterThan(0);
    }
    expect((await parseDocument({ mimeType: octet, bytes: html })).title).toBe('Sniffed Page');
    // A labelled file keeps its label: nothing to report, unless text/plain hid a format.
    expect((await parseText('text/plain', 'labelled')).mimeType).toBeUndefined();
    expect((await parseText('text/markdown', '# M', 'm.txt')).mimeType).toBeUndefined();
    expect((await parseText('text/plain', 'a,b\n1,2', 'table.csv')).mimeType).toBe('text/csv');
    // Text under an extension no parser reads stays unsupported; so do bytes that are not text.
    expect((await failureOf(parseText(octet, 'text', 'archive.zip'))).reason).toBe('unsupported_type');
    const binary = parseDocument({ mimeType: octet, bytes: Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0, 0) });
    expect((await failureOf(binary)).reason).toBe('unsupported_type');
  });
});

describe('empty files', () => {
  it('skips a file of no bytes or only whitespace as empty, whatever its format', async () => {
    const utf16Spaces = Uint8Array.of(0xff, 0xfe, 0x20, 0x00, 0x00, 0x30, 0x0a, 0x00);
    const cases: [string, Uint8Array][] = [
      ['text/plain', new Uint8Array(0)],
      ['text/markdown', encode('  \n\t\r\n ')],
      ['text/markdown', encode('\uFEFF\n\n')],
      ['text/plain', utf16Spaces],
      ['application/json', encode('\n')],
      ['text/csv', encode('')],
      ['application/pdf', new Uint8Array(0)],
      [DOCX, encode('   ')],
      ['application/octet-stream', new Uint8Array(0)],
    ];
    for (const [mimeType, bytes] of cases) {
      const failure = await failureOf(parseDocument({ mimeType, bytes }));
      expect(failure, `${mimeType} of ${bytes.length} bytes`).toMatchObject({
        reason: 'empty',
        status: 'skipped',
      });
    }
    // Text with nothing to index but something in it is not empty: it keeps its own outcome.
    expect((await failureOf(parseText('application/json', '  [1, '))).reason).toBe('parse_error');
    // And a type no parser reads is unsupported before it is empty.
    expect((await failureOf(parseDocument({ mimeType: 'image/png', bytes: new Uint8Array(0) }))).reason).toBe(
      'unsupported_type',
    );
  });
});

describe('a title from the text, for a JSON document without one', () => {
  it('takes its own title, else the first heading or paragraph, without marks, HTML or front matter', () => {
    expect(titleFromText('Preface.\n\n## Part\n\n# The **Real** Title\n')).toBe('The Real Title');
    expect(titleFromText('---\ntitle: Front\n---\nBody.')).toBe('Front');
    expect(
      titleFromText(
        '\n\n  experimental investigation of the aerodynamics of a\nwing in a slipstream .\n\n  an experimental study',
      ),
    ).toBe('experimental investigation of the aerodynamics of a wing in a slipstream .');
    expect(titleFromText('## **Setup** guide\n\nSteps.')).toBe('Setup guide');
    expect(titleFromText('<!-- generated -->\n<a id="x"></a>\n\nFirst *real* line.')).toBe(
      'First real line.',
    );
    expect(titleFromText('---\nauthor: me\n---\nAfter the front matter.')).toBe('After the front matter.');
    expect(titleFromText(' \n\t\n')).toBeUndefined();
    expect(titleFromText('')).toBeUndefined();
  });

  it('cuts a long one at a word, within 200 characters', () => {
    const long = titleFromText(`${'word '.repeat(100)}end`);
    expect(long?.length).toBeLessThanOrEqual(200);
    expect(long).toMatch(/^word word .* word…$/);
    expect(capTitle('x'.repeat(300))).toBe(`${'x'.repeat(199)}…`);
    expect(capTitle(`${'a'.repeat(198)}😀😀`).endsWith('a…')).toBe(true);
  });
});
