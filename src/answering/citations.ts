import { fenceOf } from '../markdown-fence.js';
import type { SearchHit } from '../retrieval/search-types.js';
import type { Passage } from './answerer.js';

/**
 * A document an answer cites, in the shape the original's web client read from the `sources`
 * line (`file_name` … `page_labels`), plus what a link needs (`title`, `url`, and `document_id`
 * with the cited passage's `chunk_id` for a document without a URL: the web app's page of it,
 * that passage highlighted), a `snippet` of the cited passage (the one the answer quotes),
 * and the `citation` number the answer's text uses for it (`[n]`).
 */
export interface CitedSource {
  /** The name its file was uploaded under (`pino-api.md`), else its title. */
  readonly file_name: string;
  /** The document's address: its URL, else `<source>/<external_id>`; unique among the sources. */
  readonly file_path: string;
  readonly mimetype: string | null;
  /** `YYYY-MM-DD`: when the document was first indexed. */
  readonly creation_date: string;
  /** `YYYY-MM-DD`: the source's last change when it tells one, else the creation date. */
  readonly last_modified_date: string;
  readonly page_labels: string[];
  readonly title: string;
  readonly url: string | null;
  readonly snippet: string;
  readonly citation: number;
  readonly document_id: number;
  /** The cited passage (the document's passage the answer quotes): the web app's page highlights it. */
  readonly chunk_id: number;
}

/** Where a hit's document lives, as the original's `file_path`: its URL, else a stable id. */
export function filePathOf(hit: SearchHit): string {
  return hit.url !== null && hit.url !== '' ? hit.url : `${hit.source}/${hit.externalId}`;
}

/**
 * Numbers ranked hits for citing: one number per document (by `file_path`), given in order of
 * the document's best hit. Two chunks of one document share its number, so an answer citing
 * either cites the one source listed for it, and the numbers in the text always match the list.
 */
export function numberPassages(hits: readonly SearchHit[]): Passage[] {
  const numbers = new Map<string, number>();
  return hits.map((hit) => {
    const path = filePathOf(hit);
    let number = numbers.get(path);
    if (number === undefined) {
      number = numbers.size + 1;
      numbers.set(path, number);
    }
    return { number, hit };
  });
}

/** A citation: `[1]`, `[1, 2]`, `[1-3]`, `[^1]`, `[Source 1]`; `[1][2]` is two of them. */
const CITATION =
  /\[\^?\s*(?:sources?\s*)?(\d{1,3}(?:\s*[-\u2013]\s*\d{1,3})?(?:\s*[,;]\s*(?:sources?\s*)?\d{1,3}(?:\s*[-\u2013]\s*\d{1,3})?)*)\s*\]/gi;
const MAX_RANGE = 20;

/** The numbers an answer cites, each once, in order of first citation. */
export function citedNumbers(text: string): number[] {
  const numbers = new Set<number>();
  for (const match of text.matchAll(CITATION)) {
    for (const part of (match[1] ?? '').split(/[,;]/)) {
      const [from, to] = part
        .replace(/sources?/i, '')
        .split(/[-\u2013]/)
        .map((value) => Number.parseInt(value.trim(), 10));
      if (from === undefined || Number.isNaN(from)) continue;
      const last = to === undefined || Number.isNaN(to) || to < from || to - from > MAX_RANGE ? from : to;
      for (let number = from; number <= last; number += 1) numbers.add(number);
    }
  }
  return [...numbers];
}

/** `[n]` markers taken out, for text whose numbers point at other sources (earlier answers). */
export function withoutCitations(text: string): string {
  return (
    text
      .replace(CITATION, '')
      // From the start of a run of spaces only: from each of its spaces, it was quadratic in the run.
      .replace(/(?<![ \t])[ \t]+([.,;:!?])/g, '$1')
      .replace(/[ \t]{2,}/g, ' ')
      .trim()
  );
}

/**
 * The sources an answer cites, one per document, by citation number; numbers that name no
 * passage (a model's slip) are ignored. Each source's snippet (and `chunk_id`) is the passage of
 * its document the answer quotes (`quotedPassages`).
 */
export function citedSources(answer: string, passages: readonly Passage[]): CitedSource[] {
  const quoted = quotedPassages(answer, passages);
  return citedNumbers(answer)
    .filter((number) => quoted.has(number))
    .sort((a, b) => a - b)
    .map((number) => sourceOf(quoted.get(number) as SearchHit, number));
}

/**
 * For each document's number, its passage the answer quotes: the one holding most of the answer's
 * pairs of adjacent words (an extractive answer's sentences are a passage's own; a model's
 * paraphrase keeps some of them), the best-ranked among equals and when it quotes none. The
 * document's best-ranked passage may be another section than the one the answer comes from.
 */
function quotedPassages(answer: string, passages: readonly Passage[]): Map<number, SearchHit> {
  const answered = new Set(wordPairsOf(withoutCitations(answer)));
  const best = new Map<number, { hit: SearchHit; shared: number }>();
  for (const { number, hit } of passages) {
    const shared = new Set(wordPairsOf(hit.text).filter((pair) => answered.has(pair))).size;
    const known = best.get(number);
    if (known === undefined || shared > known.shared) best.set(number, { hit, shared });
  }
  return new Map([...best].map(([number, { hit }]) => [number, hit]));
}

/** A text's pairs of adjacent words, lower-cased (`"retry after"`), markup and punctuation left out. */
function wordPairsOf(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.slice(1).map((word, index) => `${words[index]} ${word}`);
}

function sourceOf(hit: SearchHit, citation: number): CitedSource {
  const created = isoDate(hit.documentCreatedAt);
  return {
    file_name: hit.fileName ?? hit.title,
    file_path: filePathOf(hit),
    mimetype: hit.mimeType,
    creation_date: created,
    last_modified_date: hit.sourceModifiedAt === null ? created : isoDate(hit.sourceModifiedAt),
    page_labels: [...hit.pageLabels],
    title: hit.title,
    url: hit.url,
    snippet: snippetOf(hit.text),
    citation,
    document_id: hit.documentId,
    chunk_id: hit.chunkId,
  };
}

const SNIPPET_CHARS = 240;

/**
 * The start of a passage on one line, cut at a word near `maxChars`; code fences, only markup
 * on one line, left out.
 */
export function snippetOf(text: string, maxChars = SNIPPET_CHARS): string {
  const flat = text
    .split('\n')
    .filter((line) => fenceOf(line) === undefined)
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (flat.length <= maxChars) return flat;
  const cut = flat.slice(0, maxChars);
  const lastSpace = cut.lastIndexOf(' ');
  return `${(lastSpace > maxChars / 2 ? cut.slice(0, lastSpace) : cut).trimEnd()}\u2026`;
}

function isoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** The longest text held back while it may still become a citation (`[Source 12, 13-15]`). */
const MAX_PENDING_CITATION = 40;
/** What an unfinished citation can hold so far: digits, separators, `^`, the word "source(s)". */
const CITATION_SO_FAR = /^\[[\s\d,;^\-\u2013sourceSOURCE]*$/;

/**
 * Takes citation numbers that name no source out of streamed text, as it streams: a model's slip
 * (`[7]` with five sources) would otherwise point the reader at nothing. A citation split across
 * pieces is held back until it is whole. `removed` lists the numbers taken out, each once.
 */
export class UnknownCitationFilter {
  readonly removed: number[] = [];
  private pending = '';

  constructor(private readonly known: ReadonlySet<number>) {}

  /** The piece's text that is safe to pass on now (possibly empty). */
  push(piece: string): string {
    const text = this.pending + piece;
    const open = text.lastIndexOf('[');
    const tail = open < 0 ? '' : text.slice(open);
    if (
      open >= 0 &&
      !tail.includes(']') &&
      tail.length <= MAX_PENDING_CITATION &&
      CITATION_SO_FAR.test(tail)
    ) {
      // Held from the spaces before the bracket, which go with the citation if it is removed.
      let start = open;
      while (start > 0 && (text[start - 1] === ' ' || text[start - 1] === '\t')) start -= 1;
      this.pending = text.slice(start);
      return this.clean(text.slice(0, start));
    }
    // Trailing spaces wait for what follows: they go with a citation that is removed.
    let end = text.length;
    while (end > 0 && (text[end - 1] === ' ' || text[end - 1] === '\t')) end -= 1;
    this.pending = text.slice(end);
    return this.clean(text.slice(0, end));
  }

  /** Whatever was held back, at the end of the stream. */
  end(): string {
    const rest = this.pending;
    this.pending = '';
    return this.clean(rest);
  }

  private clean(text: string): string {
    if (!text.includes('[')) return text;
    let out = '';
    let from = 0;
    for (const match of text.matchAll(CITATION)) {
      const numbers = citedNumbers(match[0]);
      const kept = numbers.filter((number) => this.known.has(number));
      if (kept.length === numbers.length) continue;
      for (const number of numbers) {
        if (!this.known.has(number) && !this.removed.includes(number)) this.removed.push(number);
      }
      // The spaces before a removed citation go with it (scanned back: a pattern would backtrack).
      let end = match.index;
      while (end > from && (text[end - 1] === ' ' || text[end - 1] === '\t')) end -= 1;
      out += text.slice(from, end);
      if (kept.length > 0) out += ` [${kept.join(', ')}]`;
      from = match.index + match[0].length;
    }
    return out + text.slice(from);
  }
}
