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
import { CONFLUENCE_STORAGE_MIME_TYPE, isSupportedMimeType, parseDocument } from './parse-document.js';
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
    expect(textsOf(parsed)).toContain('# rotate the deploy key\nrotate-key --service payments');
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
      'if (a < b && c) {\n  deploy();\n}',
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
      '# this is a comment, not a heading\n\necho "hi"',
      'h2 Lists',
      'Done item',
      'Star item continued on the next line',
      'Numbered item',
      'Quoted text',
      'Tool: jq; Use: JSON',
      'Escaped *stars* and 3 * 4.',
      'indented code',
    ]);
  });

  it('keeps an unclosed fence to the end, and takes a leading # heading as the title', async () => {
    const parsed = await parseText('text/markdown', '# Title\n\n~~~\ncode that never closes\n## still code');
    expect(parsed.title).toBe('Title');
    expect(outline(parsed)).toEqual(['h1 Title', 'code that never closes\n## still code']);
  });

  it('reads the fixture generator’s setext and code blocks', async () => {
    const parsed = await parseDocument({
      mimeType: 'text/markdown',
      bytes: generateMarkdown({ blocks: [{ heading: 'setext:Summary', level: 2 }, { code: '# x\n# y' }] }),
    });
    expect(outline(parsed)).toEqual(['h2 Summary', '# x\n# y']);
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
    expect((await failureOf(parseText('', 'x'))).reason).toBe('unsupported_type');
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
    const started = performance.now();
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
    expect(performance.now() - started).toBeLessThan(1_000);
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
    expect(outline(parsed)).toEqual(['h2 Title', 'h1 a#', 'h1 Tabbed', 'h1 #', '####### seven', '# code']);
  });

  it('reads a heading line of 40,000 spaces, and no heading where a line separator breaks it', async () => {
    const started = performance.now();
    const parsed = await parseText('text/markdown', `# a${' '.repeat(40_000)}b\n\n# c\u2028d`);
    expect(performance.now() - started).toBeLessThan(500);
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
});
