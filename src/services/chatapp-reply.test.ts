import { describe, expect, it } from 'vitest';
import type { CitedSource } from '../answering/citations.js';
import { answerReply, plainReply, replySourceOf } from './chatapp-reply.js';

const HOSTILE = [
  'Ask <!channel> and <!here>',
  'ping <@U0ADMIN> and <#C0GENERAL>',
  'sign in at <https://evil.example/login|SSO portal>',
  'tom & jerry > everyone',
].join('. ');

/** Every `<…>` Slack would read as a mention, a broadcast or a link. */
function controlSequences(text: string): string[] {
  return text.match(/<[^>]*>/g) ?? [];
}

/** The lines a reply lists under `Sources:`. */
function sourceLines(sources: Parameters<typeof answerReply>[1]): string[] {
  const texts = answerReply('An answer [1].', sources).blocks.flatMap((block) =>
    block.type === 'section' ? [block.text.text] : [],
  );
  const [, listed = ''] = texts.join('\n').split('Sources:\n');
  return listed.split('\n');
}

describe('Slack replies', () => {
  it('escape document text in the notification text as in the blocks', () => {
    const reply = answerReply(HOSTILE, [
      { title: 'Runbook <!channel>', url: 'https://wiki.example.com/runbook' },
    ]);
    expect(controlSequences(reply.text)).toEqual([]);
    expect(reply.text).toContain('&lt;!channel&gt;');
    expect(reply.text).toContain('&lt;@U0ADMIN&gt;');
    expect(reply.text).toContain('&lt;https://evil.example/login|SSO portal&gt;');
    expect(reply.text).toContain('tom &amp; jerry &gt; everyone');
    const blocks = JSON.stringify(reply.blocks);
    expect(blocks).not.toContain('<!channel>');
    expect(blocks).not.toContain('<@U0ADMIN>');
    expect(blocks).not.toContain('<https://evil.example');
    // Our own source link is the one control sequence, with its title escaped.
    expect(blocks).toContain('<https://wiki.example.com/runbook|Runbook &lt;!channel&gt;>');
  });

  it('escape plain replies too', () => {
    const reply = plainReply('Nothing for <!everyone> here & now');
    expect(reply.text).toBe('Nothing for &lt;!everyone&gt; here &amp; now');
    expect(controlSequences(JSON.stringify(reply.blocks))).toEqual([]);
  });

  it("link a source without a URL to the web app's page of its cited passage, its title and file name escaped", () => {
    const cited: CitedSource = {
      file_name: 'q&a <draft>.md',
      file_path: 'upload/q&a <draft>.md',
      mimetype: 'text/markdown',
      creation_date: '2026-11-27',
      last_modified_date: '2026-11-27',
      page_labels: [],
      title: 'Q&A <for> everyone',
      url: null,
      snippet: 'Questions and answers.',
      citation: 1,
      document_id: 42,
      chunk_id: 4242,
    };
    expect(sourceLines([replySourceOf(cited, 'https://knowledge.example.com')])).toEqual([
      '<https://knowledge.example.com/documents/42?passage=4242|Q&amp;A &lt;for&gt; everyone (q&amp;a &lt;draft&gt;.md)>',
    ]);
    // One with a URL of its own keeps it; a file named as its title is named once.
    const linked = { ...cited, url: 'https://wiki.example.com/qa', file_name: cited.title };
    expect(sourceLines([replySourceOf(linked, 'https://knowledge.example.com')])).toEqual([
      '<https://wiki.example.com/qa|Q&amp;A &lt;for&gt; everyone>',
    ]);
  });

  it("keep a source's file name when its title is too long to show whole", () => {
    const [line = ''] = sourceLines([{ title: 'Minutes '.repeat(40), fileName: 'minutes-2026-11.md' }]);
    expect(line).toMatch(/^Minutes .*… \(minutes-2026-11\.md\)$/);
    expect(line.length).toBeLessThanOrEqual(150);
  });

  it('cut a long notification text before escaping, so no entity is split', () => {
    const reply = answerReply(`${'a'.repeat(2998)}<!channel>`, []);
    expect(reply.text.endsWith('…')).toBe(true);
    expect(controlSequences(reply.text)).toEqual([]);
    expect(reply.text).not.toMatch(/&[a-z]*…$/);
  });
});
