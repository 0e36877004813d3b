import { describe, expect, it } from 'vitest';
import { wikiConfigBody } from './wiki';

describe('wikiConfigBody', () => {
  it('sends the fields under the names POST /v1/wiki/config takes, trimmed', () => {
    expect(
      wikiConfigBody({
        site: ' https://acme.atlassian.net ',
        email: ' ann@acme.com ',
        apiToken: ' ATATT-token\n',
        spaceKey: ' ENG ',
      }),
    ).toEqual({
      wikiBaseUrl: 'https://acme.atlassian.net',
      wikiUsername: 'ann@acme.com',
      wikiApiToken: 'ATATT-token',
      wikiSpaceKey: 'ENG',
    });
  });

  it("leaves an empty site out (the service's own wiki) and keeps an empty e-mail (a Data Center token)", () => {
    const body = wikiConfigBody({ site: '  ', email: '', apiToken: 'pat', spaceKey: 'OPS' });
    expect(body).toEqual({ wikiUsername: '', wikiApiToken: 'pat', wikiSpaceKey: 'OPS' });
    expect('wikiBaseUrl' in body).toBe(false);
  });

  it('takes a site typed without its scheme as https, and keeps a given scheme', () => {
    const form = { email: 'ann@acme.com', apiToken: 't', spaceKey: 'ENG' };
    expect(wikiConfigBody({ ...form, site: 'acme.atlassian.net' }).wikiBaseUrl).toBe(
      'https://acme.atlassian.net',
    );
    expect(wikiConfigBody({ ...form, site: 'http://wiki.internal:8090/confluence' }).wikiBaseUrl).toBe(
      'http://wiki.internal:8090/confluence',
    );
  });
});
