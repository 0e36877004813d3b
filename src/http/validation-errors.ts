import type { ErrorObject } from 'ajv';
import type { ValidationIssue } from '../errors.js';

/** Where fastify found the bad value, named as FastAPI names it in `loc`. */
export type RequestPart = 'body' | 'query' | 'path' | 'header';

const PART_BY_FASTIFY_CONTEXT: Readonly<Record<string, RequestPart>> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

export function requestPartOf(fastifyContext: string | undefined): RequestPart {
  return PART_BY_FASTIFY_CONTEXT[fastifyContext ?? 'body'] ?? 'body';
}

/** Translates ajv's errors into FastAPI's (pydantic 2) validation error list. */
export function toValidationIssues(part: RequestPart, errors: readonly ErrorObject[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    const issue = toIssue(part, error);
    if (issue === undefined) continue;
    const key = JSON.stringify([issue.loc, issue.type]);
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
  }
  return issues;
}

function toIssue(part: RequestPart, error: ErrorObject): ValidationIssue | undefined {
  const loc: (string | number)[] = [part, ...pointerSegments(error.instancePath)];
  const input: unknown = error.data;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { type: 'missing', loc: [...loc, String(params.missingProperty)], msg: 'Field required' };
    case 'type':
      if (error.instancePath === '' && (input === undefined || input === null)) {
        return { type: 'missing', loc, msg: 'Field required', input: null };
      }
      return { ...typeIssue(String(params.type), input), loc, input };
    case 'format':
      return { ...formatIssue(String(params.format)), loc, input };
    case 'minLength':
      return {
        type: 'string_too_short',
        loc,
        input,
        msg: `String should have at least ${params.limit} character${params.limit === 1 ? '' : 's'}`,
        ctx: { min_length: params.limit },
      };
    case 'maxLength':
      return {
        type: 'string_too_long',
        loc,
        input,
        msg: `String should have at most ${params.limit} character${params.limit === 1 ? '' : 's'}`,
        ctx: { max_length: params.limit },
      };
    case 'minimum':
      return {
        type: 'greater_than_equal',
        loc,
        input,
        msg: `Input should be greater than or equal to ${params.limit}`,
        ctx: { ge: params.limit },
      };
    case 'maximum':
      return {
        type: 'less_than_equal',
        loc,
        input,
        msg: `Input should be less than or equal to ${params.limit}`,
        ctx: { le: params.limit },
      };
    case 'minItems':
      return {
        type: 'too_short',
        loc,
        input,
        msg: `List should have at least ${params.limit} item${params.limit === 1 ? '' : 's'} after validation, not ${Array.isArray(input) ? input.length : 0}`,
        ctx: { field_type: 'List', min_length: params.limit },
      };
    case 'maxItems':
      return {
        type: 'too_long',
        loc,
        input: Array.isArray(input) ? `[${input.length} items]` : input,
        msg: `List should have at most ${params.limit} item${params.limit === 1 ? '' : 's'} after validation, not ${Array.isArray(input) ? input.length : 0}`,
        ctx: { field_type: 'List', max_length: params.limit },
      };
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).map((value) => `'${String(value)}'`);
      const last = allowed.pop();
      return {
        type: 'enum',
        loc,
        input,
        msg: `Input should be ${allowed.length > 0 ? `${allowed.join(', ')} or ${last}` : last}`,
        ctx: { expected: allowed.length > 0 ? `${allowed.join(', ')} or ${last}` : last },
      };
    }
    case 'pattern':
      return {
        type: 'string_pattern_mismatch',
        loc,
        input,
        msg: `String should match pattern '${params.pattern}'`,
        ctx: { pattern: params.pattern },
      };
    default:
      return { type: 'value_error', loc, input, msg: `Value error, ${error.message ?? 'invalid value'}` };
  }
}

function typeIssue(expected: string, input: unknown): Pick<ValidationIssue, 'type' | 'msg'> {
  const type = expected.split(',').find((name) => name !== 'null') ?? expected;
  switch (type) {
    case 'string':
      return { type: 'string_type', msg: 'Input should be a valid string' };
    case 'integer':
      if (typeof input === 'string') {
        return {
          type: 'int_parsing',
          msg: 'Input should be a valid integer, unable to parse string as an integer',
        };
      }
      if (typeof input === 'number' && Number.isFinite(input)) {
        return {
          type: 'int_from_float',
          msg: 'Input should be a valid integer, got a number with a fractional part',
        };
      }
      return { type: 'int_type', msg: 'Input should be a valid integer' };
    case 'number':
      return typeof input === 'string'
        ? { type: 'float_parsing', msg: 'Input should be a valid number, unable to parse string as a number' }
        : { type: 'float_type', msg: 'Input should be a valid number' };
    case 'boolean':
      return typeof input === 'string'
        ? { type: 'bool_parsing', msg: 'Input should be a valid boolean, unable to interpret input' }
        : { type: 'bool_type', msg: 'Input should be a valid boolean' };
    case 'array':
      return { type: 'list_type', msg: 'Input should be a valid list' };
    case 'object':
      return { type: 'dict_type', msg: 'Input should be a valid dictionary' };
    default:
      return { type: `${type}_type`, msg: `Input should be a valid ${type}` };
  }
}

function formatIssue(format: string): Pick<ValidationIssue, 'type' | 'msg'> {
  switch (format) {
    case 'date-time':
      return {
        type: 'datetime_from_date_parsing',
        msg: 'Input should be a valid datetime or date, invalid date or time format',
      };
    case 'date':
      return {
        type: 'date_from_datetime_parsing',
        msg: 'Input should be a valid date or datetime, invalid date format',
      };
    case 'uri':
    case 'http-url':
      return { type: 'url_parsing', msg: 'Input should be a valid URL' };
    default:
      return { type: 'value_error', msg: `Value error, not a valid ${format}` };
  }
}

/** `/files/0/sizeBytes` → `['files', 0, 'sizeBytes']`, array positions as numbers. */
function pointerSegments(pointer: string): (string | number)[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((segment) => (/^(0|[1-9]\d*)$/.test(segment) ? Number(segment) : segment));
}
