import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countJsonlRecords, documentFromLine, type JsonlRecord, readJsonlDocuments } from './read-jsonl.js';

describe('documentFromLine', () => {
  it('reads the BEIR corpus shape, mapping _id to external_id', () => {
    expect(
      documentFromLine('{"_id":"4983","title":"White matter","text":"Diffusion.","metadata":{}}', ''),
    ).toEqual({ external_id: '4983', title: 'White matter', text: 'Diffusion.', metadata: {} });
  });

  it('reads the upload shape, with url and metadata, and puts the prefix in front of the id', () => {
    expect(
      documentFromLine(
        '{"external_id":"faq-1","title":"FAQ","text":"Body","url":"https://x.example/1","metadata":{"team":"hr"}}',
        'intranet/',
      ),
    ).toEqual({
      external_id: 'intranet/faq-1',
      title: 'FAQ',
      text: 'Body',
      url: 'https://x.example/1',
      metadata: { team: 'hr' },
    });
  });

  it('titles a document with an empty or missing title by its id (without the prefix)', () => {
    expect(documentFromLine('{"_id":7,"title":"  ","text":"x"}', 'p:')).toMatchObject({
      external_id: 'p:7',
      title: '7',
    });
    expect(documentFromLine('{"_id":"a","text":"x"}', '')).toMatchObject({ title: 'a' });
  });

  it('shortens a title past the service limit rather than refusing the line', () => {
    const document = documentFromLine(JSON.stringify({ _id: 'a', title: 't'.repeat(3000), text: 'x' }), '');
    expect(typeof document === 'object' && document.title.length).toBe(2048);
  });

  it('says what is wrong with a bad line', () => {
    expect(documentFromLine('{"_id": "1", "tit', '')).toMatch(/^not JSON/);
    expect(documentFromLine('[1, 2]', '')).toBe('not a JSON object');
    expect(documentFromLine('{"title":"t","text":"x"}', '')).toMatch(/no "external_id"/);
    expect(documentFromLine('{"_id":"","text":"x"}', '')).toMatch(/empty/);
    expect(documentFromLine('{"_id":"1","title":"t"}', '')).toMatch(/"text" is missing/);
    expect(documentFromLine('{"_id":"1","text":""}', '')).toBe('"text" is empty');
    expect(documentFromLine('{"_id":"1","text":"x","title":5}', '')).toMatch(/"title"/);
    expect(documentFromLine('{"_id":"1","text":"x","metadata":[1]}', '')).toMatch(/"metadata"/);
    expect(documentFromLine('{"_id":"1","text":"x","url":42}', '')).toMatch(/"url"/);
    expect(documentFromLine(JSON.stringify({ _id: 'i'.repeat(513), text: 'x' }), '')).toMatch(
      /longer than 512/,
    );
  });
});

describe('readJsonlDocuments and countJsonlRecords', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'read-jsonl-'));
  });
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('streams documents with their line numbers: blank lines ignored, bad and repeated lines invalid', async () => {
    const file = path.join(folder, 'mixed.jsonl');
    await writeFile(
      file,
      [
        '\uFEFF{"_id":"1","title":"One","text":"first"}',
        '',
        '   ',
        '{"_id":"2","title":"Two","text":"second"}',
        'not json',
        '{"_id":"1","title":"One again","text":"repeat"}',
        '{"_id":"3","title":"Three","text":"no newline at the end"}',
      ].join('\r\n'),
    );
    const records: JsonlRecord[] = [];
    for await (const record of readJsonlDocuments(file, { externalIdPrefix: '' })) records.push(record);
    expect(records.map((record) => [record.kind, record.line])).toEqual([
      ['document', 1],
      ['document', 4],
      ['invalid', 5],
      ['invalid', 6],
      ['document', 7],
    ]);
    expect(records[3]).toMatchObject({ id: '1', message: 'external_id "1" is also on line 1' });
    expect(await countJsonlRecords(file)).toBe(5);
  });

  it('counts lines across read chunks', async () => {
    const file = path.join(folder, 'large.jsonl');
    const line = JSON.stringify({ _id: 'x', text: 'y'.repeat(5000) });
    await writeFile(file, `${Array.from({ length: 500 }, () => line).join('\n')}\n\n`);
    expect(await countJsonlRecords(file)).toBe(500);
  });
});
