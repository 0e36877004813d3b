import { describe, expect, it } from 'vitest';
import { TEAM_ACCESS } from '../../access.js';
import type { WikiReadRestriction } from '../../adapters/wiki/wiki-client.js';
import { wikiPageAccess } from './wiki-access.js';

function level(
  contentId: string,
  emails: readonly (string | undefined)[] = [],
  groups: readonly string[] = [],
): WikiReadRestriction {
  return {
    contentId,
    users: emails.map((email, index) => ({ id: `user-${contentId}-${index}`, email })),
    groups,
  };
}

describe('wikiPageAccess', () => {
  it('gives an unrestricted page, at every level, to the whole team', () => {
    expect(wikiPageAccess([])).toEqual(TEAM_ACCESS);
    expect(wikiPageAccess([level('1'), level('2'), level('3')])).toEqual(TEAM_ACCESS);
  });

  it('gives a page restricted on itself to the users and groups it names, lower-cased and sorted', () => {
    expect(
      wikiPageAccess([level('1'), level('2', ['Bob@Example.com', 'ann@example.com'], ['Engineering'])]),
    ).toEqual({
      team: false,
      emails: ['ann@example.com', 'bob@example.com'],
      domains: [],
      groups: ['engineering'],
    });
  });

  it('applies an ancestor’s restriction to an unrestricted page below it', () => {
    expect(wikiPageAccess([level('1', ['ann@example.com']), level('2'), level('3')])).toEqual({
      team: false,
      emails: ['ann@example.com'],
      domains: [],
      groups: [],
    });
  });

  it('keeps only who passes every restricted level', () => {
    const access = wikiPageAccess([
      level('1', ['ann@example.com', 'BOB@example.com', 'carol@example.com'], ['staff', 'admins']),
      level('2'),
      level('3', ['bob@example.com', 'ann@example.com', 'dave@example.com'], ['Staff']),
    ]);
    expect(access).toEqual({
      team: false,
      emails: ['ann@example.com', 'bob@example.com'],
      domains: [],
      groups: ['staff'],
    });
  });

  it('lets no one in when the restricted levels have no one in common', () => {
    expect(wikiPageAccess([level('1', ['ann@example.com']), level('2', ['bob@example.com'])])).toEqual({
      team: false,
      emails: [],
      domains: [],
      groups: [],
    });
  });

  it('never opens a page whose restriction names only users without a visible e-mail', () => {
    const access = wikiPageAccess([level('1', [undefined, undefined])]);
    expect(access).toEqual({ team: false, emails: [], domains: [], groups: [] });
  });

  it('keeps the e-mails it has when some users hide theirs', () => {
    const access = wikiPageAccess([level('1', [undefined, 'ann@example.com', ' '])]);
    expect(access.emails).toEqual(['ann@example.com']);
    expect(access.team).toBe(false);
  });

  it('restricts a level that names groups only', () => {
    const access = wikiPageAccess([level('1', [], ['confluence-administrators']), level('2')]);
    expect(access).toEqual({
      team: false,
      emails: [],
      domains: [],
      groups: ['confluence-administrators'],
    });
  });

  it('leaves out someone named at one level who passes another only through a group', () => {
    const access = wikiPageAccess([level('1', ['ann@example.com']), level('2', [], ['staff'])]);
    expect(access).toEqual({ team: false, emails: [], domains: [], groups: [] });
  });
});
