import { describe, expect, it } from 'vitest';
import type { DrivePermission } from '../../adapters/google-drive/google-drive.js';
import { driveAccess } from './drive-access.js';

const ANN = 'ann@example.com';

const owner: DrivePermission = { type: 'user', emailAddress: ANN, role: 'owner' };

describe('driveAccess', () => {
  it('gives a user grant to that e-mail, whatever its role', () => {
    const access = driveAccess(
      [
        owner,
        { type: 'user', emailAddress: 'bob@example.com', role: 'reader' },
        { type: 'user', emailAddress: 'cy@other.org', role: 'commenter' },
        { type: 'user', emailAddress: 'dee@example.com', role: 'writer' },
      ],
      ANN,
    );

    expect(access).toEqual({
      team: false,
      emails: [ANN, 'bob@example.com', 'cy@other.org', 'dee@example.com'],
      domains: [],
      groups: [],
    });
  });

  it('puts a group grant among the groups, not the e-mails', () => {
    const access = driveAccess(
      [owner, { type: 'group', emailAddress: 'Sales@Example.com', role: 'reader' }],
      ANN,
    );

    expect(access).toEqual({ team: false, emails: [ANN], domains: [], groups: ['sales@example.com'] });
  });

  it('gives a discoverable domain grant to that domain', () => {
    const access = driveAccess(
      [owner, { type: 'domain', domain: 'Example.com', role: 'reader', allowFileDiscovery: true }],
      ANN,
    );

    expect(access).toEqual({ team: false, emails: [ANN], domains: ['example.com'], groups: [] });
  });

  it('gives nothing for a link-only domain grant, nor one that does not say', () => {
    const access = driveAccess(
      [
        owner,
        { type: 'domain', domain: 'example.com', role: 'reader', allowFileDiscovery: false },
        { type: 'domain', domain: 'other.org', role: 'writer' },
      ],
      ANN,
    );

    expect(access).toEqual({ team: false, emails: [ANN], domains: [], groups: [] });
  });

  it('gives a discoverable anyone grant to the whole team', () => {
    const access = driveAccess([owner, { type: 'anyone', role: 'reader', allowFileDiscovery: true }], ANN);

    expect(access).toEqual({ team: true, emails: [ANN], domains: [], groups: [] });
  });

  it('gives nothing for a link-only anyone grant, nor one that does not say', () => {
    expect(driveAccess([owner, { type: 'anyone', role: 'reader', allowFileDiscovery: false }], ANN)).toEqual({
      team: false,
      emails: [ANN],
      domains: [],
      groups: [],
    });
    expect(driveAccess([owner, { type: 'anyone', role: 'reader' }], ANN)).toEqual({
      team: false,
      emails: [ANN],
      domains: [],
      groups: [],
    });
  });

  it('keeps the explicit users beside a link-only grant', () => {
    const access = driveAccess(
      [
        { type: 'anyone', role: 'reader', allowFileDiscovery: false },
        { type: 'user', emailAddress: 'bob@example.com', role: 'reader' },
      ],
      ANN,
    );

    expect(access.emails).toEqual([ANN, 'bob@example.com']);
    expect(access.team).toBe(false);
  });

  it('always lets the indexing user in, even when no grant names them (a shared drive reached through a group)', () => {
    const access = driveAccess(
      [
        { type: 'group', emailAddress: 'eng@example.com', role: 'organizer' },
        { type: 'user', emailAddress: 'bob@example.com', role: 'reader' },
      ],
      ANN,
    );

    expect(access).toEqual({
      team: false,
      emails: [ANN, 'bob@example.com'],
      domains: [],
      groups: ['eng@example.com'],
    });
  });

  it('lets the indexing user alone in when the permissions could not be read, never everyone', () => {
    expect(driveAccess(undefined, ANN)).toEqual({ team: false, emails: [ANN], domains: [], groups: [] });
  });

  it('lets nobody in with neither permissions nor an indexing user', () => {
    expect(driveAccess(undefined, null)).toEqual({ team: false, emails: [], domains: [], groups: [] });
  });

  it('reads the grants without an indexing user', () => {
    expect(driveAccess([{ type: 'user', emailAddress: 'bob@example.com', role: 'reader' }], null)).toEqual({
      team: false,
      emails: ['bob@example.com'],
      domains: [],
      groups: [],
    });
  });

  it('lower-cases, sorts and de-duplicates', () => {
    const access = driveAccess(
      [
        { type: 'user', emailAddress: 'Zed@Example.com', role: 'reader' },
        { type: 'user', emailAddress: 'ANN@example.com', role: 'owner' },
        { type: 'user', emailAddress: 'zed@example.com', role: 'writer' },
        { type: 'domain', domain: 'B.example', role: 'reader', allowFileDiscovery: true },
        { type: 'domain', domain: 'a.example', role: 'reader', allowFileDiscovery: true },
        { type: 'domain', domain: 'b.example', role: 'writer', allowFileDiscovery: true },
      ],
      'Ann@Example.COM',
    );

    expect(access).toEqual({
      team: false,
      emails: [ANN, 'zed@example.com'],
      domains: ['a.example', 'b.example'],
      groups: [],
    });
  });

  it('skips user and group grants without an address, and domain grants without a domain', () => {
    const access = driveAccess(
      [
        { type: 'user', role: 'reader' },
        { type: 'group', role: 'reader' },
        { type: 'domain', role: 'reader', allowFileDiscovery: true },
      ],
      ANN,
    );

    expect(access).toEqual({ team: false, emails: [ANN], domains: [], groups: [] });
  });
});
