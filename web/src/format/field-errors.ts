import type { ValidationIssue } from '../api/types';

/**
 * A 422's problems by form field (its `loc` after `body`), in words a person reads; what names no
 * field of the form stays for a message above it.
 */
export function fieldErrors<Field extends string>(
  issues: readonly ValidationIssue[],
  fields: readonly Field[],
): { byField: Partial<Record<Field, string>>; other: string[] } {
  const byField: Partial<Record<Field, string>> = {};
  const other: string[] = [];
  for (const issue of issues) {
    const [where, name] = issue.loc;
    const field = fields.find((candidate) => where === 'body' && name === candidate);
    if (field === undefined) other.push(issue.msg);
    else
      byField[field] =
        byField[field] === undefined ? issueWords(issue) : `${byField[field]} ${issueWords(issue)}`;
  }
  return { byField, other };
}

/** The validator's wording made plainer where it is known; anything else as the service said it. */
export function issueWords(issue: ValidationIssue): string {
  if (issue.type === 'missing') return 'This field is required.';
  if (issue.type === 'string_too_short') {
    // The service may leave `ctx` out; its message names the number too.
    const minLength = issue.ctx?.min_length ?? issue.msg.match(/\d+/)?.[0];
    if (minLength !== undefined) return `Use at least ${minLength} characters.`;
  }
  return issue.msg;
}
