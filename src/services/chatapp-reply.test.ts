import { describe, expect, it } from 'vitest';
import { answerReply, plainReply } from './chatapp-reply.js';

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

  it('cut a long notification text before escaping, so no entity is split', () => {
    const reply = answerReply(`${'a'.repeat(2998)}<!channel>`, []);
    expect(reply.text.endsWith('…')).toBe(true);
    expect(controlSequences(reply.text)).toEqual([]);
    expect(reply.text).not.toMatch(/&[a-z]*…$/);
  });
});
