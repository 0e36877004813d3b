import { describe, expect, it } from 'vitest';
import { sourceTarget } from './source-target';

describe('sourceTarget', () => {
  it('opens a web URL in a new tab', () => {
    expect(sourceTarget({ url: 'https://wiki.example.com/x', document_id: 3 })).toEqual({
      kind: 'web',
      href: 'https://wiki.example.com/x',
    });
  });

  it("opens the app's document page for a source without a web URL", () => {
    expect(sourceTarget({ url: null, document_id: 7 })).toEqual({ kind: 'app', href: '/documents/7' });
    expect(sourceTarget({ url: 'javascript:alert(1)', document_id: 7 })).toEqual({
      kind: 'app',
      href: '/documents/7',
    });
  });

  it('opens the document page at the cited passage when the source names it', () => {
    expect(sourceTarget({ url: null, document_id: 7, chunk_id: 42 })).toEqual({
      kind: 'app',
      href: '/documents/7?passage=42',
    });
    expect(sourceTarget({ url: 'https://wiki.example.com/x', document_id: 7, chunk_id: 42 })).toEqual({
      kind: 'web',
      href: 'https://wiki.example.com/x',
    });
    expect(sourceTarget({ url: null, document_id: 7, chunk_id: null })).toEqual({
      kind: 'app',
      href: '/documents/7',
    });
  });

  it('has nowhere to go without either', () => {
    expect(sourceTarget({ url: null })).toBeUndefined();
    expect(sourceTarget({ url: 'javascript:alert(1)', document_id: null })).toBeUndefined();
  });
});
