import { convert } from 'html-to-text';

export type MarkupToken =
  | {
      readonly type: 'open';
      /** Lower-cased, prefix kept (`ac:structured-macro`). */
      readonly name: string;
      readonly attributes: ReadonlyMap<string, string>;
      readonly selfClosing: boolean;
    }
  | { readonly type: 'close'; readonly name: string }
  | { readonly type: 'text'; readonly text: string };

/**
 * `html` reads `<script>`, `<style>`, `<textarea>` and `<title>` as raw text, as browsers do;
 * `xml` (Confluence storage format) has no such elements but relies on CDATA sections.
 */
export type MarkupDialect = 'html' | 'xml';

const RAW_TEXT_ELEMENTS: ReadonlySet<string> = new Set(['script', 'style', 'textarea', 'title']);
/** Raw text whose content is dropped rather than read. */
const DROPPED_RAW_TEXT: ReadonlySet<string> = new Set(['script', 'style', 'textarea']);

/**
 * A forgiving tokenizer for HTML and XHTML: it never throws, and whatever it cannot read as
 * markup it passes on as text. Entities are decoded in text and attribute values; CDATA is text.
 * It builds no tree: the block walker only needs tags in order, and a tree would not survive
 * the unclosed tags of real-world HTML any better.
 */
export function tokenizeMarkup(
  markup: string,
  dialect: MarkupDialect,
  visit: (token: MarkupToken) => void,
): void {
  const length = markup.length;
  let index = 0;
  while (index < length) {
    const next = markup.indexOf('<', index);
    if (next < 0) {
      visit({ type: 'text', text: decodeEntities(markup.slice(index)) });
      return;
    }
    if (next > index) visit({ type: 'text', text: decodeEntities(markup.slice(index, next)) });
    index = next;
    if (markup.startsWith('<!--', index)) {
      index = skipPast(markup, '-->', index + 4);
    } else if (markup.startsWith('<![CDATA[', index)) {
      const end = markup.indexOf(']]>', index + 9);
      visit({ type: 'text', text: markup.slice(index + 9, end < 0 ? length : end) });
      index = end < 0 ? length : end + 3;
    } else if (markup.startsWith('<!', index) || markup.startsWith('<?', index)) {
      index = skipPast(markup, '>', index + 2);
    } else if (markup[index + 1] === '/' && isNameStart(markup.charCodeAt(index + 2))) {
      const nameEnd = scanName(markup, index + 2);
      visit({ type: 'close', name: markup.slice(index + 2, nameEnd).toLowerCase() });
      index = skipPast(markup, '>', nameEnd);
    } else if (isNameStart(markup.charCodeAt(index + 1))) {
      const tag = readOpenTag(markup, index + 1);
      visit({ type: 'open', name: tag.name, attributes: tag.attributes, selfClosing: tag.selfClosing });
      index = tag.end;
      if (dialect === 'html' && !tag.selfClosing && RAW_TEXT_ELEMENTS.has(tag.name)) {
        index = readRawText(markup, tag.name, index, visit);
      }
    } else {
      visit({ type: 'text', text: '<' });
      index += 1;
    }
  }
}

function readRawText(
  markup: string,
  name: string,
  from: number,
  visit: (token: MarkupToken) => void,
): number {
  const closing = new RegExp(`</${name}[\\s>/]`, 'ig');
  closing.lastIndex = from;
  const match = closing.exec(markup);
  const end = match === null ? markup.length : match.index;
  if (!DROPPED_RAW_TEXT.has(name)) visit({ type: 'text', text: decodeEntities(markup.slice(from, end)) });
  visit({ type: 'close', name });
  return match === null ? markup.length : skipPast(markup, '>', end + 2);
}

function readOpenTag(
  markup: string,
  from: number,
): { name: string; attributes: Map<string, string>; selfClosing: boolean; end: number } {
  const nameEnd = scanName(markup, from);
  const name = markup.slice(from, nameEnd).toLowerCase();
  const attributes = new Map<string, string>();
  let index = nameEnd;
  while (index < markup.length) {
    index = skipWhitespace(markup, index);
    const char = markup[index];
    if (char === undefined) break;
    if (char === '>') return { name, attributes, selfClosing: false, end: index + 1 };
    if (char === '/' && markup[index + 1] === '>')
      return { name, attributes, selfClosing: true, end: index + 2 };
    if (char === '/') {
      index += 1;
      continue;
    }
    let attributeEnd = index;
    while (attributeEnd < markup.length && !/[\s=/>]/.test(markup[attributeEnd] ?? '')) attributeEnd += 1;
    // A stray quote or `=` would otherwise never be consumed.
    if (attributeEnd === index) attributeEnd += 1;
    const attributeName = markup.slice(index, attributeEnd).toLowerCase();
    index = skipWhitespace(markup, attributeEnd);
    let value = '';
    if (markup[index] === '=') {
      index = skipWhitespace(markup, index + 1);
      const quote = markup[index];
      if (quote === '"' || quote === "'") {
        const close = markup.indexOf(quote, index + 1);
        const valueEnd = close < 0 ? markup.length : close;
        value = markup.slice(index + 1, valueEnd);
        index = valueEnd + 1;
      } else {
        let valueEnd = index;
        while (valueEnd < markup.length && !/[\s>]/.test(markup[valueEnd] ?? '')) valueEnd += 1;
        value = markup.slice(index, valueEnd);
        index = valueEnd;
      }
    }
    if (!attributes.has(attributeName)) attributes.set(attributeName, decodeEntities(value));
  }
  return { name, attributes, selfClosing: false, end: markup.length };
}

function isNameStart(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

function scanName(markup: string, from: number): number {
  let index = from;
  while (index < markup.length && !/[\s/>]/.test(markup[index] ?? '')) index += 1;
  return index;
}

function skipWhitespace(markup: string, from: number): number {
  let index = from;
  while (index < markup.length && /\s/.test(markup[index] ?? '')) index += 1;
  return index;
}

function skipPast(markup: string, terminator: string, from: number): number {
  const end = markup.indexOf(terminator, from);
  return end < 0 ? markup.length : end + terminator.length;
}

const ENTITY = /&(?:#(\d{1,8})|#[xX]([0-9a-fA-F]{1,7})|([A-Za-z][A-Za-z0-9]{1,31}));/g;
const COMMON_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00A0',
};
const namedEntityCache = new Map<string, string>();
const NAMED_ENTITY_CACHE_LIMIT = 4096;

/** Numeric and named character references (the full HTML set, through html-to-text's decoder). */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(
    ENTITY,
    (whole, decimal: string | undefined, hex: string | undefined, name?: string) => {
      if (name !== undefined) return COMMON_ENTITIES[name] ?? decodeNamedEntity(whole);
      const code = decimal !== undefined ? Number.parseInt(decimal, 10) : Number.parseInt(hex ?? '', 16);
      const valid = code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
      return valid ? String.fromCodePoint(code) : '\uFFFD';
    },
  );
}

function decodeNamedEntity(reference: string): string {
  const cached = namedEntityCache.get(reference);
  if (cached !== undefined) return cached;
  // html-to-text parses with htmlparser2, which knows every named reference of the HTML standard.
  const decoded = convert(reference, { wordwrap: false });
  if (namedEntityCache.size < NAMED_ENTITY_CACHE_LIMIT) namedEntityCache.set(reference, decoded);
  return decoded;
}
