import type { ValidationIssue } from '../errors.js';
import type { RequestPart } from './validation-errors.js';

/**
 * PostgreSQL cannot store U+0000 in text, nor a lone UTF-16 surrogate in jsonb; JSON allows both.
 * Rather than fail deep in a query, each such string is reported where it is, as a 422.
 */
// Deeper values match no schema of ours (and are never stored); the bound keeps the walk off the stack's edge.
const MAX_DEPTH = 64;

export function unstorableTextIssues(part: RequestPart, value: unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const visit = (node: unknown, loc: (string | number)[], depth: number) => {
    if (typeof node === 'string') {
      const problem = textProblem(node);
      if (problem !== undefined) issues.push({ type: 'string_unicode', loc, msg: problem });
    } else if (Array.isArray(node)) {
      if (depth < MAX_DEPTH) {
        for (const [index, item] of node.entries()) visit(item, [...loc, index], depth + 1);
      }
    } else if (typeof node === 'object' && node !== null && depth < MAX_DEPTH) {
      for (const [key, item] of Object.entries(node)) {
        const keyProblem = textProblem(key);
        if (keyProblem !== undefined)
          issues.push({ type: 'string_unicode', loc: [...loc, key], msg: keyProblem });
        else visit(item, [...loc, key], depth + 1);
      }
    }
  };
  visit(value, [part], 0);
  return issues;
}

function textProblem(text: string): string | undefined {
  if (text.includes('\u0000'))
    return 'Input should be a valid string, the NUL character (U+0000) cannot be stored';
  if (!text.isWellFormed())
    return 'Input should be a valid string, a lone UTF-16 surrogate is not valid Unicode';
  return undefined;
}
