import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { beginAuthorization, finishAuthorization } from './oauth-flow';

/** sessionStorage's interface over a Map (tests run in Node). */
class MemoryStorage implements Storage {
  private readonly items = new Map<string, string>();
  get length(): number {
    return this.items.size;
  }
  clear(): void {
    this.items.clear();
  }
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  key(index: number): string | null {
    return [...this.items.keys()][index] ?? null;
  }
  removeItem(key: string): void {
    this.items.delete(key);
  }
  setItem(key: string, value: string): void {
    this.items.set(key, value);
  }
}

const GOOGLE = {
  authorizeUrl: 'https://accounts.google.example/o/oauth2/v2/auth?hd=acme.example',
  params: { client_id: 'web-id', response_type: 'code' },
  pkce: true,
};

describe('the OAuth round trip of the Connectors page', () => {
  it('sends an S256 challenge of a fresh verifier and a fresh state, and gets the verifier back once', async () => {
    const storage = new MemoryStorage();
    const url = new URL(await beginAuthorization('google-drive', GOOGLE, storage));
    expect(url.origin + url.pathname).toBe('https://accounts.google.example/o/oauth2/v2/auth');
    expect(url.searchParams.get('hd')).toBe('acme.example');
    expect(url.searchParams.get('client_id')).toBe('web-id');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    const state = url.searchParams.get('state') ?? '';
    expect(state).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const back = new URLSearchParams({ code: '4/0Acode', state });
    const outcome = finishAuthorization('google-drive', back, storage);
    if (outcome.kind !== 'code') throw new Error(outcome.message);
    expect(outcome.code).toBe('4/0Acode');
    // The challenge Google saw is the hash of the verifier the token request will send.
    expect(
      createHash('sha256')
        .update(outcome.verifier ?? '')
        .digest('base64url'),
    ).toBe(url.searchParams.get('code_challenge'));
    // Used once: the same answer again (a reload, a replay) connects nothing.
    expect(finishAuthorization('google-drive', back, storage).kind).toBe('refused');

    const second = new URL(await beginAuthorization('google-drive', GOOGLE, storage));
    expect(second.searchParams.get('state')).not.toBe(state);
  });

  it("refuses an answer to another tab's request, a denial and a missing code, in words", async () => {
    const storage = new MemoryStorage();
    await beginAuthorization(
      'slack',
      { authorizeUrl: 'https://slack.example/authorize', params: {}, pkce: false },
      storage,
    );
    expect(
      finishAuthorization('slack', new URLSearchParams({ code: 'c', state: 'forged' }), storage),
    ).toEqual({
      kind: 'refused',
      message:
        'Slack was not connected: this answer does not belong to a request from this tab. Connect again.',
    });

    const denied = new URL(
      await beginAuthorization(
        'slack',
        { authorizeUrl: 'https://slack.example/authorize', params: {}, pkce: false },
        storage,
      ),
    );
    expect(denied.searchParams.has('code_challenge')).toBe(false);
    const state = denied.searchParams.get('state') ?? '';
    expect(
      finishAuthorization('slack', new URLSearchParams({ error: 'access_denied', state }), storage),
    ).toEqual({
      kind: 'refused',
      message: 'Slack was not connected: access was not allowed.',
    });

    const noCode = new URL(await beginAuthorization('google-drive', GOOGLE, storage));
    const outcome = finishAuthorization(
      'google-drive',
      new URLSearchParams({ state: noCode.searchParams.get('state') ?? '' }),
      storage,
    );
    expect(outcome).toEqual({
      kind: 'refused',
      message: 'Google Drive was not connected: it sent no authorization code.',
    });
  });
});
