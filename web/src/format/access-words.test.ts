import { describe, expect, it } from 'vitest';
import type { DocumentAccess } from '../api/types';
import { accessWords } from './access-words';

const access = (change: Partial<DocumentAccess>): DocumentAccess => ({
  team: false,
  emails: [],
  domains: [],
  groups: [],
  ...change,
});

describe('accessWords', () => {
  it('says the whole team, whatever else is listed', () => {
    expect(accessWords(access({ team: true }), 'ann@corp.example')).toBe('Everyone in the team');
    expect(accessWords(access({ team: true, emails: ['ann@corp.example'] }), 'ann@corp.example')).toBe(
      'Everyone in the team',
    );
  });

  it('names up to two people, then how many more', () => {
    expect(accessWords(access({ emails: ['ann@corp.example'] }), 'carl@corp.example')).toBe(
      'ann@corp.example',
    );
    expect(accessWords(access({ emails: ['ann@corp.example', 'bob@corp.example'] }), undefined)).toBe(
      'ann@corp.example, bob@corp.example',
    );
    expect(
      accessWords(
        access({ emails: ['ann@corp.example', 'bob@corp.example', 'cy@corp.example', 'di@corp.example'] }),
        'eve@corp.example',
      ),
    ).toBe('ann@corp.example, bob@corp.example and 2 more');
  });

  it('names everyone when asked to', () => {
    expect(
      accessWords(
        access({ emails: ['ann@corp.example', 'bob@corp.example', 'cy@corp.example'] }),
        undefined,
        Infinity,
      ),
    ).toBe('ann@corp.example, bob@corp.example, cy@corp.example');
  });

  it('says "only you" when the viewer alone may open it, whatever the case of the e-mail', () => {
    expect(accessWords(access({ emails: ['ann@corp.example'] }), 'ann@corp.example')).toBe('only you');
    expect(accessWords(access({ emails: ['ann@corp.example'] }), 'Ann@Corp.Example')).toBe('only you');
  });

  it('says "you" first among others', () => {
    expect(
      accessWords(access({ emails: ['ann@corp.example', 'bob@corp.example'] }), 'bob@corp.example'),
    ).toBe('you, ann@corp.example');
    expect(
      accessWords(
        access({ emails: ['ann@corp.example', 'bob@corp.example', 'cy@corp.example'] }),
        'cy@corp.example',
      ),
    ).toBe('you, ann@corp.example and 1 more');
    expect(
      accessWords(access({ emails: ['ann@corp.example'], domains: ['corp.example'] }), 'ann@corp.example'),
    ).toBe('you, anyone at corp.example');
  });

  it('says domains and groups', () => {
    expect(accessWords(access({ domains: ['corp.example'] }), 'ann@corp.example')).toBe(
      'anyone at corp.example',
    );
    expect(
      accessWords(
        access({
          emails: ['ann@corp.example'],
          domains: ['corp.example', 'other.example'],
          groups: ['all@corp.example'],
        }),
        'bob@corp.example',
      ),
    ).toBe('ann@corp.example, anyone at corp.example, anyone at other.example, group all@corp.example');
    expect(accessWords(access({ groups: ['everyone@corp.example'] }), undefined)).toBe(
      'group everyone@corp.example',
    );
  });

  it('says "no one" for an empty list', () => {
    expect(accessWords(access({}), 'ann@corp.example')).toBe('no one');
  });
});
