import { describe, expect, it } from 'vitest';
import { craftZip, deflatedEntry } from '../../../test/fixtures/crafted-zip.js';
import { bodySlices, DOCX_SLICE_BYTES, parseDocx } from './parse-docx.js';

const NAMESPACE = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const LIMITS = { maxUncompressedBytes: 64 * 1024 * 1024 };
const encode = (text: string) => new TextEncoder().encode(text);

function documentXml(body: string): string {
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<!-- made by hand --><w:document xmlns:w="${NAMESPACE}"><w:body>${body}</w:body></w:document>`;
}

function docx(xml: string): Uint8Array {
  return craftZip([
    deflatedEntry(
      '[Content_Types].xml',
      `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
    ),
    deflatedEntry(
      '_rels/.rels',
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
    ),
    deflatedEntry('word/document.xml', xml),
  ]);
}

const paragraph = (text: string, style?: string) =>
  `<w:p w:rsidR="00A1B2C3">${style === undefined ? '' : `<w:pPr><w:pStyle w:val="${style}"/></w:pPr>`}<w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`;

describe('bodySlices', () => {
  it('cuts the body between top-level elements, never inside one, and covers all of it', () => {
    const body = [
      paragraph('one'),
      '<w:p/>',
      `<w:tbl><w:tr><w:tc>${paragraph('a "quoted" > cell')}</w:tc></w:tr></w:tbl>`,
      '<!-- a comment with <w:p> inside -->',
      paragraph('two'),
      '<w:sectPr/>',
    ].join('');
    const bytes = encode(documentXml(body));
    const slices = bodySlices(bytes, 1);
    if (slices === undefined) throw new Error('no slices');
    const text = (start: number, end: number) => new TextDecoder().decode(bytes.subarray(start, end));
    expect(slices.ranges.map(([start, end]) => text(start, end))).toEqual([
      paragraph('one'),
      '<w:p/>',
      `<w:tbl><w:tr><w:tc>${paragraph('a "quoted" > cell')}</w:tc></w:tr></w:tbl>`,
      `<!-- a comment with <w:p> inside -->${paragraph('two')}`,
      '<w:sectPr/>',
    ]);
    expect(text(slices.bodyStart, slices.bodyEnd)).toBe(body);
    // A large target keeps the body in one piece.
    expect(bodySlices(bytes, DOCX_SLICE_BYTES)?.ranges).toEqual([[slices.bodyStart, slices.bodyEnd]]);
  });

  it('declines what it cannot cut safely: no body, a DOCTYPE, tags that do not balance', () => {
    expect(bodySlices(encode(`<w:document xmlns:w="${NAMESPACE}"/>`), 1)).toBeUndefined();
    expect(
      bodySlices(encode(`<!DOCTYPE x [<!ENTITY a "b">]>${documentXml(paragraph('x'))}`), 1),
    ).toBeUndefined();
    expect(bodySlices(encode(documentXml(paragraph('x')).replace('</w:body>', '')), 1)).toBeUndefined();
  });
});

describe('parseDocx', () => {
  it('reads a long body in slices as it reads it whole: same blocks, in order, and the first heading as title', async () => {
    const paragraphs: string[] = [paragraph('The Long Handbook', 'Heading1')];
    let count = 0;
    for (let size = 0; size < 3 * DOCX_SLICE_BYTES; count += 1) {
      if (count % 50 === 0) paragraphs.push(paragraph(`Part ${count / 50}`, 'Heading2'));
      paragraphs.push(
        paragraph(`Paragraph ${count} explains rule ${count * 7} of the handbook in plain words.`),
      );
      size += (paragraphs.at(-1) as string).length;
    }
    const xml = documentXml(paragraphs.join(''));
    const sliced = await parseDocx(docx(xml), LIMITS);
    expect(bodySlices(encode(xml), DOCX_SLICE_BYTES)?.ranges.length).toBeGreaterThanOrEqual(3);
    expect(sliced.title).toBe('The Long Handbook');
    const texts = sliced.blocks.filter((block) => block.kind === 'text').map((block) => block.text);
    expect(texts).toEqual(
      Array.from(
        { length: count },
        (_, index) => `Paragraph ${index} explains rule ${index * 7} of the handbook in plain words.`,
      ),
    );
    const headings = sliced.blocks.filter((block) => block.kind === 'heading');
    expect(headings.map((block) => block.text)).toEqual([
      'The Long Handbook',
      ...Array.from({ length: Math.ceil(count / 50) }, (_, index) => `Part ${index}`),
    ]);
  });
});
