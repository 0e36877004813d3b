import { describe, expect, it } from 'vitest';
import { escapeMrkdwn, markdownToMrkdwn, mrkdwnLink, slackMessageToPlainText } from './mrkdwn.js';

describe('Markdown to Slack mrkdwn', () => {
  it('converts emphasis, links, headings and lists', () => {
    expect(markdownToMrkdwn('**Bold**, __also bold__, *italic*, _italic_ and ~~gone~~')).toBe(
      '*Bold*, *also bold*, _italic_, _italic_ and ~gone~',
    );
    expect(markdownToMrkdwn('See [the policy](https://wiki.example.com/a?b=1&c=2) or <https://x.io>')).toBe(
      'See <https://wiki.example.com/a?b=1&amp;c=2|the policy> or <https://x.io>',
    );
    expect(markdownToMrkdwn('## Travel **rules**\n- one\n* two\n  - nested')).toBe(
      '*Travel rules*\n• one\n• two\n  • nested',
    );
    expect(markdownToMrkdwn('> quoted & kept')).toBe('>quoted &amp; kept');
  });

  it('escapes what Slack reads as commands: no pings or fake links from document text', () => {
    expect(markdownToMrkdwn('Tell <!channel> and <@U123> that 1 < 2 & 3 > 2')).toBe(
      'Tell &lt;!channel&gt; and &lt;@U123&gt; that 1 &lt; 2 &amp; 3 &gt; 2',
    );
  });

  it('leaves code alone but for escaping', () => {
    expect(markdownToMrkdwn('Run `a **b** <c>` now')).toBe('Run `a **b** &lt;c&gt;` now');
    expect(markdownToMrkdwn('```ts\nconst a = **b** < c;\n```')).toBe('```\nconst a = **b** &lt; c;\n```');
  });

  it('does not read arithmetic or snake_case as emphasis', () => {
    expect(markdownToMrkdwn('2 * 3 * 4 and file_name_here')).toBe('2 * 3 * 4 and file_name_here');
  });
});

describe('Markdown to Slack mrkdwn, read in one pass', () => {
  it('reads headings with closing hashes and list items with many spaces', () => {
    expect(markdownToMrkdwn('## Title ##\n# ##\n#######  x')).toBe('*Title*\n\n#######  x');
    expect(markdownToMrkdwn(`-${' '.repeat(40)}spaced item`)).toBe('• spaced item');
    expect(markdownToMrkdwn(`# a${' '.repeat(40_000)}b`)).toBe(`*a${' '.repeat(40_000)}b*`);
  });

  it('closes a code span with a run of its length, and leaves unclosed openers as text', () => {
    expect(markdownToMrkdwn('``a` b``')).toBe('`a` b`');
    expect(markdownToMrkdwn('`unclosed [and <https://x')).toBe('`unclosed [and &lt;https://x');
    expect(markdownToMrkdwn(`${'['.repeat(50_000)}*a* **b`)).toBe(`${'['.repeat(50_000)}_a_ **b`);
  });

  it('reads a link title, and no link where the address has a space', () => {
    expect(markdownToMrkdwn('see [a](https://x.io "T") and [b](https://y.io x)')).toBe(
      'see <https://x.io|a> and [b](https://y.io x)',
    );
  });
});

describe('Slack links', () => {
  it('links http(s) and mailto addresses only, keeping the address intact', () => {
    expect(mrkdwnLink('https://a.io/x|y>z', 'A | B')).toBe('<https://a.io/x%7Cy%3Ez|A | B>');
    expect(mrkdwnLink('javascript:alert(1)', 'Evil <b>')).toBe('Evil &lt;b&gt;');
    expect(mrkdwnLink(null, 'Uploaded notes')).toBe('Uploaded notes');
    expect(escapeMrkdwn('a&b<c>d')).toBe('a&amp;b&lt;c&gt;d');
  });
});

describe("a user's Slack message as a question", () => {
  it("drops the bot's mentions and keeps the rest readable", () => {
    expect(
      slackMessageToPlainText('<@U0BOT> what is   the <#C1|travel> policy &amp; &lt;rule&gt;?', 'U0BOT'),
    ).toBe('what is the #travel policy & <rule>?');
    expect(
      slackMessageToPlainText('<@U0BOT|knowledge> ask <@U0ANNA> about <https://a.io|this> <!here>', 'U0BOT'),
    ).toBe('ask @U0ANNA about this @here');
    expect(slackMessageToPlainText('<@U0BOT>', 'U0BOT')).toBe('');
    expect(slackMessageToPlainText('mail <mailto:a@b.io|a@b.io> &lt;now&gt;', 'U0BOT')).toBe(
      'mail a@b.io <now>',
    );
  });
});
