// Searches that warm a search engine up before it is measured, taken from the collection's own
// text rather than from the measured queries: a service serving people has run many searches
// before any one of them, and a warm-up with the measured queries would leave their hits in the
// service's memory, so the first measured pass would not read them as a first search does.
import { seededRandom } from '../../test/helpers/seeded-random.js';
import type { ScifactDocument } from './scifact.js';

/** Words per warm-up search: about a short question's (SciFact's claims have 5 to 20). */
const WORDS = { least: 4, most: 14 };

/**
 * `count` searches, each a run of consecutive words from a document chosen at random (seeded):
 * the same for the same documents, count and seed.
 */
export function warmUpSearches(documents: readonly ScifactDocument[], count: number, seed = 11): string[] {
  const next = seededRandom(seed);
  const searches: string[] = [];
  // Bounded: a collection of empty documents gives fewer searches rather than no end.
  for (let tries = 0; searches.length < count && tries < count * 10 && documents.length > 0; tries++) {
    const document = documents[Math.floor(next() * documents.length)];
    const words = `${document?.title ?? ''} ${document?.text ?? ''}`
      .split(/\s+/)
      .filter((word) => word !== '');
    if (words.length === 0) continue;
    const length = WORDS.least + Math.floor(next() * (WORDS.most - WORDS.least + 1));
    const start = Math.floor(next() * Math.max(1, words.length - length + 1));
    searches.push(words.slice(start, start + length).join(' '));
  }
  return searches;
}
