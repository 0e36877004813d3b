import { describe, expect, it } from 'vitest';
import type { ScimUserFields } from '../db/repositories/scim.js';
import { ServiceError } from '../errors.js';
import type { ScimGroupFields } from './scim-attributes.js';
import { ScimError } from './scim-error.js';
import { parseScimFilter } from './scim-filter.js';
import { patchScimGroup, patchScimUser } from './scim-patch.js';

const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

const ann: ScimUserFields = {
  userName: 'ann@acme.com',
  externalId: '00u1',
  active: true,
  displayName: 'Ann Lee',
  givenName: 'Ann',
  familyName: 'Lee',
};

const patch = (...operations: unknown[]) => ({ schemas: [PATCH_OP], Operations: operations });

/** The scimType (and status code) a call was refused with. */
function refusal(work: () => unknown): { code: string; scimType: string | undefined } {
  try {
    work();
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    return { code: error.code, scimType: error instanceof ScimError ? error.scimType : undefined };
  }
  throw new Error('expected a refusal');
}

describe('patchScimUser', () => {
  it("reads Okta's deactivation: replace without a path, a value of attributes", () => {
    expect(patchScimUser(ann, patch({ op: 'replace', value: { active: false } }))).toEqual({
      ...ann,
      active: false,
    });
  });

  it("reads Entra ID's: a capitalised op, a path, the boolean as text", () => {
    const body = { Operations: [{ op: 'Replace', path: 'active', value: 'False' }] };
    expect(patchScimUser(ann, body).active).toBe(false);
    expect(
      patchScimUser({ ...ann, active: false }, patch({ op: 'Replace', path: 'active', value: 'True' }))
        .active,
    ).toBe(true);
  });

  it("applies Entra ID's attribute replacements in order, e-mails included", () => {
    const next = patchScimUser(
      ann,
      patch(
        { op: 'Replace', path: 'displayName', value: 'Ann Smith' },
        { op: 'Replace', path: 'name.givenName', value: 'Annie' },
        { op: 'Replace', path: 'name.familyName', value: 'Smith' },
        { op: 'Replace', path: 'emails[type eq "work"].value', value: 'ann.smith@acme.com' },
        { op: 'Replace', path: 'externalId', value: 'e-42' },
        { op: 'Replace', path: 'userName', value: 'Ann.Smith@Acme.com' },
        { op: 'Add', path: 'title', value: 'Engineer' },
        {
          op: 'Add',
          path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department',
          value: 'R&D',
        },
      ),
    );
    expect(next).toEqual({
      userName: 'ann.smith@acme.com',
      externalId: 'e-42',
      active: true,
      displayName: 'Ann Smith',
      givenName: 'Annie',
      familyName: 'Smith',
    });
  });

  it('takes paths with the core schema URN, dotted names and complex values without a path', () => {
    const next = patchScimUser(
      ann,
      patch(
        { op: 'replace', path: 'urn:ietf:params:scim:schemas:core:2.0:User:displayName', value: 'A. Lee' },
        { op: 'replace', value: { 'name.givenName': 'Anna', NAME: { familyName: 'Li' }, EXTERNALID: 'x' } },
      ),
    );
    expect(next).toMatchObject({
      displayName: 'A. Lee',
      givenName: 'Anna',
      familyName: 'Li',
      externalId: 'x',
    });
  });

  it('removes optional attributes and refuses removing required ones', () => {
    expect(
      patchScimUser(ann, patch({ op: 'remove', path: 'displayName' }, { op: 'remove', path: 'name' })),
    ).toEqual({ ...ann, displayName: null, givenName: null, familyName: null });
    expect(refusal(() => patchScimUser(ann, patch({ op: 'remove', path: 'userName' })))).toEqual({
      code: 'bad_request',
      scimType: 'mutability',
    });
    expect(refusal(() => patchScimUser(ann, patch({ op: 'remove' })))).toEqual({
      code: 'bad_request',
      scimType: 'noTarget',
    });
  });

  it('refuses what it cannot read with the RFC 7644 scimType', () => {
    const cases: [unknown, string][] = [
      [{ Operations: [] }, 'invalidSyntax'],
      [{}, 'invalidSyntax'],
      ['text', 'invalidSyntax'],
      [patch({ op: 'move', path: 'active', value: true }), 'invalidSyntax'],
      [patch({ op: 'replace', path: 'active' }), 'invalidSyntax'],
      [patch({ op: 'replace', path: 'active', value: 'maybe' }), 'invalidValue'],
      [patch({ op: 'replace', path: 'userName', value: 'not an address' }), 'invalidValue'],
      [patch({ op: 'replace', path: 'displayName', value: 42 }), 'invalidValue'],
    ];
    for (const [body, scimType] of cases) {
      expect(
        refusal(() => patchScimUser(ann, body)),
        JSON.stringify(body),
      ).toEqual({ code: 'bad_request', scimType });
    }
  });
});

describe('patchScimGroup', () => {
  const eng: ScimGroupFields = { displayName: 'eng@acme.com', externalId: null, memberIds: ['a', 'b'] };

  it('adds and removes members by value lists (Okta)', () => {
    const added = patchScimGroup(
      eng,
      patch({ op: 'add', path: 'members', value: [{ value: 'c' }, { value: 'a' }] }),
    );
    expect(added.memberIds).toEqual(['a', 'b', 'c']);
    const removed = patchScimGroup(added, patch({ op: 'remove', path: 'members', value: [{ value: 'a' }] }));
    expect(removed.memberIds).toEqual(['b', 'c']);
  });

  it("removes one member by Entra ID's filter path, and every member without a value", () => {
    expect(patchScimGroup(eng, patch({ op: 'Remove', path: 'members[value eq "A"]' })).memberIds).toEqual([
      'b',
    ]);
    expect(patchScimGroup(eng, patch({ op: 'remove', path: 'members' })).memberIds).toEqual([]);
  });

  it("renames, with a path or Okta's value holding the id, and replaces members", () => {
    expect(
      patchScimGroup(eng, patch({ op: 'replace', path: 'displayName', value: 'ops@acme.com' })).displayName,
    ).toBe('ops@acme.com');
    const okta = patchScimGroup(
      eng,
      patch({ op: 'replace', value: { id: 'group-id', displayName: 'Ops', externalId: 'ops@acme.com' } }),
    );
    expect(okta).toEqual({ displayName: 'Ops', externalId: 'ops@acme.com', memberIds: ['a', 'b'] });
    expect(
      patchScimGroup(eng, patch({ op: 'replace', path: 'members', value: [{ value: 'z' }] })).memberIds,
    ).toEqual(['z']);
  });

  it('refuses a member without an id, a filter path to add, and removing the name', () => {
    expect(
      refusal(() => patchScimGroup(eng, patch({ op: 'add', path: 'members', value: [{ display: 'x' }] }))),
    ).toEqual({ code: 'bad_request', scimType: 'invalidValue' });
    expect(
      refusal(() =>
        patchScimGroup(eng, patch({ op: 'add', path: 'members[value eq "c"]', value: [{ value: 'c' }] })),
      ),
    ).toEqual({ code: 'bad_request', scimType: 'invalidPath' });
    expect(refusal(() => patchScimGroup(eng, patch({ op: 'remove', path: 'displayName' })))).toEqual({
      code: 'bad_request',
      scimType: 'mutability',
    });
  });
});

describe('parseScimFilter', () => {
  const attributes = ['userName', 'externalId'] as const;

  it('reads equality on the attributes offered, named in any case or with their schema', () => {
    expect(parseScimFilter('userName eq "ann@acme.com"', attributes)).toEqual({
      attribute: 'userName',
      value: 'ann@acme.com',
    });
    expect(parseScimFilter('USERNAME EQ "Ann@Acme.com"', attributes)?.attribute).toBe('userName');
    expect(parseScimFilter('externalId eq "a \\"quoted\\" id"', attributes)).toEqual({
      attribute: 'externalId',
      value: 'a "quoted" id',
    });
    expect(
      parseScimFilter('urn:ietf:params:scim:schemas:core:2.0:User:userName eq "a@b.co"', attributes)
        ?.attribute,
    ).toBe('userName');
    expect(parseScimFilter(undefined, attributes)).toBeUndefined();
  });

  it('refuses other operators, attributes and compound filters as invalidFilter', () => {
    for (const filter of [
      'userName co "ann"',
      'title eq "x"',
      'userName eq "a" and active eq true',
      'userName eq',
    ]) {
      expect(
        refusal(() => parseScimFilter(filter, attributes)),
        filter,
      ).toEqual({
        code: 'bad_request',
        scimType: 'invalidFilter',
      });
    }
  });
});
