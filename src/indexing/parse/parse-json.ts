import { FileFailure, type ParsedDocument } from '../document.js';
import { BlockCollector } from './blocks.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * JSON as `path: value` pairs, `; `-separated: an array's elements are one text block each;
 * an object's keys holding arrays of objects become headings over one block per element, and
 * its other keys are flattened (nested keys dotted, arrays of scalars comma-joined).
 */
export function parseJson(text: string): ParsedDocument {
  let value: Json;
  try {
    value = JSON.parse(text) as Json;
  } catch (error) {
    throw new FileFailure('parse_error', `invalid JSON: ${(error as Error).message}`, { cause: error });
  }
  const collector = new BlockCollector();
  if (Array.isArray(value)) {
    for (const element of value) collector.text(describe(element));
  } else if (isObject(value)) {
    let pending: string[] = [];
    for (const [key, child] of Object.entries(value)) {
      if (Array.isArray(child) && child.some(isObject)) {
        collector.text(pending.join('; '));
        pending = [];
        collector.heading(1, key);
        for (const element of child) collector.text(describe(element));
      } else {
        pending.push(...flatten(child, key));
      }
    }
    collector.text(pending.join('; '));
  } else {
    collector.text(describe(value));
  }
  return { blocks: collector.blocks };
}

function describe(value: Json): string {
  return isObject(value) || Array.isArray(value) ? flatten(value, '').join('; ') : scalar(value);
}

function flatten(value: Json, path: string): string[] {
  const at = (key: string) => (path === '' ? key : `${path}.${key}`);
  if (Array.isArray(value)) {
    if (!value.some((element) => isObject(element) || Array.isArray(element))) {
      const joined = value.map(scalar).filter((part) => part !== '');
      return joined.length === 0 ? [] : [`${path === '' ? 'values' : path}: ${joined.join(', ')}`];
    }
    return value.flatMap((element, index) => flatten(element, at(String(index))));
  }
  if (isObject(value)) return Object.entries(value).flatMap(([key, child]) => flatten(child, at(key)));
  const text = scalar(value);
  if (text === '') return [];
  return [path === '' ? text : `${path}: ${text}`];
}

function scalar(value: Json): string {
  return value === null || typeof value === 'object' ? '' : String(value);
}

function isObject(value: Json | undefined): value is { [key: string]: Json } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
