import type { ValidationIssue } from '../errors.js';
import type { RequestPart } from './validation-errors.js';

// Deeper values match no schema of ours (and are never stored); the bound keeps the walk off the stack's edge.
const MAX_DEPTH = 64;

/**
 * PostgreSQL cannot store U+0000 in text, nor a lone UTF-16 surrogate in jsonb; JSON allows both.
 * Rather than fail deep in a query, each such string is reported where it is, as a 422.
 * Every request body passes through here, so the walk allocates only when it finds something.
 */
export function unstorableTextIssues(part: RequestPart, value: unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const path: (string | number)[] = [part];
  const report = (problem: string) => issues.push({ type: 'string_unicode', loc: [...path], msg: problem });
  const visit = (node: unknown, depth: number) => {
    if (typeof node === 'string') {
      const problem = textProblem(node);
      if (problem !== undefined) report(problem);
      return;
    }
    if (typeof node !== 'object' || node === null || depth >= MAX_DEPTH) return;
    if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index++) {
        path.push(index);
        visit(node[index], depth + 1);
        path.pop();
      }
      return;
    }
    for (const key in node) {
      if (!Object.hasOwn(node, key)) continue;
      path.push(key);
      const keyProblem = textProblem(key);
      if (keyProblem !== undefined) report(keyProblem);
      else visit((node as Record<string, unknown>)[key], depth + 1);
      path.pop();
    }
  };
  visit(value, 0);
  return issues;
}

function textProblem(text: string): string | undefined {
  if (text.includes('\u0000'))
    return 'Input should be a valid string, the NUL character (U+0000) cannot be stored';
  if (!text.isWellFormed())
    return 'Input should be a valid string, a lone UTF-16 surrogate is not valid Unicode';
  return undefined;
}
