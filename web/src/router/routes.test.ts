import { describe, expect, it } from 'vitest';
import { chatPath, documentPath, matchRoute } from './routes';

describe('matchRoute', () => {
  it('finds each page', () => {
    expect(matchRoute('/')).toEqual({ page: 'ask' });
    expect(matchRoute('/chats/abc-123')).toEqual({ page: 'chat', chatId: 'abc-123' });
    expect(matchRoute('/documents')).toEqual({ page: 'documents' });
    expect(matchRoute('/documents/')).toEqual({ page: 'documents' });
    expect(matchRoute('/documents/42')).toEqual({ page: 'document', documentId: '42' });
    expect(matchRoute('/connectors')).toEqual({ page: 'connectors' });
    expect(matchRoute('/connectors/')).toEqual({ page: 'connectors' });
    expect(matchRoute('/members')).toEqual({ page: 'members' });
    expect(matchRoute('/tokens')).toEqual({ page: 'tokens' });
    expect(matchRoute('/join')).toEqual({ page: 'join' });
    expect(matchRoute('/authorize')).toEqual({ page: 'authorize' });
  });

  it('decodes path segments', () => {
    expect(matchRoute('/chats/a%20b%2Fc')).toEqual({ page: 'chat', chatId: 'a b/c' });
  });

  it('does not know other paths', () => {
    expect(matchRoute('/chats')).toEqual({ page: 'not-found' });
    expect(matchRoute('/documents/1/2')).toEqual({ page: 'not-found' });
    expect(matchRoute('/connectors/wiki')).toEqual({ page: 'not-found' });
    expect(matchRoute('/members/7')).toEqual({ page: 'not-found' });
    expect(matchRoute('/tokens/7')).toEqual({ page: 'not-found' });
    expect(matchRoute('/join/abc')).toEqual({ page: 'not-found' });
    expect(matchRoute('/authorize/x')).toEqual({ page: 'not-found' });
    expect(matchRoute('/connectors/google-drive/callback')).toEqual({
      page: 'connectors',
      callback: 'google-drive',
    });
    expect(matchRoute('/connectors/slack/callback')).toEqual({ page: 'connectors', callback: 'slack' });
    expect(matchRoute('/connectors/wiki/callback')).toEqual({ page: 'not-found' });
    expect(matchRoute('/connectors/slack/callback/x')).toEqual({ page: 'not-found' });
    expect(matchRoute('/chats/%E0%A4%A')).toEqual({ page: 'not-found' });
  });
});

describe('paths', () => {
  it('round-trips through matchRoute', () => {
    expect(matchRoute(chatPath('a b/c'))).toEqual({ page: 'chat', chatId: 'a b/c' });
    expect(documentPath(5, 9)).toBe('/documents/5?passage=9');
  });
});
