import { describe, expect, it } from 'vitest';
import { isWebUrl, markdownUrlTransform, safeLinkUrl } from './safe-url';

describe('safeLinkUrl', () => {
  it('keeps http, https and mailto links', () => {
    expect(safeLinkUrl('https://example.com/a?b=c#d')).toBe('https://example.com/a?b=c#d');
    expect(safeLinkUrl('http://example.com')).toBe('http://example.com/');
    expect(safeLinkUrl('mailto:ann@example.com')).toBe('mailto:ann@example.com');
    expect(safeLinkUrl('  HTTPS://Example.com/x ')).toBe('https://example.com/x');
  });

  it('refuses every other scheme, however it is spelled', () => {
    for (const url of [
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      ' javascript:alert(1)',
      'java\nscript:alert(1)',
      'java\tscript:alert(1)',
      'vbscript:msgbox(1)',
      'data:text/html,<script>alert(1)</script>',
      'file:///etc/passwd',
      'blob:https://example.com/uuid',
    ]) {
      expect(safeLinkUrl(url), url).toBe('');
    }
  });

  it('refuses relative and malformed URLs', () => {
    expect(safeLinkUrl('/v1/auth/tokens')).toBe('');
    expect(safeLinkUrl('#top')).toBe('');
    expect(safeLinkUrl('')).toBe('');
    expect(safeLinkUrl('http://')).toBe('');
  });
});

describe('markdownUrlTransform', () => {
  it('filters links and drops every image source', () => {
    expect(markdownUrlTransform('https://example.com', 'href')).toBe('https://example.com/');
    expect(markdownUrlTransform('javascript:alert(1)', 'href')).toBe('');
    expect(markdownUrlTransform('https://attacker.example/?d=secret', 'src')).toBe('');
  });
});

describe('isWebUrl', () => {
  it('is true only for http and https', () => {
    expect(isWebUrl('https://wiki.example.com/page')).toBe(true);
    expect(isWebUrl('mailto:a@b.c')).toBe(false);
    expect(isWebUrl('upload/notes.md')).toBe(false);
    expect(isWebUrl(null)).toBe(false);
  });
});
