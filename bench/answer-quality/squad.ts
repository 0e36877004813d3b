// The SQuAD 2.0 subset the answer-quality benchmark reads, and SQuAD's way of matching an answer.
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** Where the subset is unless BENCH_SQUAD_DIR or --squad says otherwise. */
export const DEFAULT_SQUAD_DIR = '/work/shared/datasets/squad-subset';

export interface SquadParagraph {
  /** `<article index>-<paragraph index>`: the uploaded document's external id. */
  readonly id: string;
  /** The article's title, underscores as spaces. */
  readonly title: string;
  readonly text: string;
}

export interface SquadQuestion {
  readonly id: string;
  readonly article: string;
  /** The paragraph it was written from. */
  readonly paragraphId: string;
  readonly question: string;
  /** The gold answers as given (several annotators; often repeated). */
  readonly answers: readonly string[];
}

export interface Squad {
  readonly articles: readonly string[];
  readonly paragraphs: readonly SquadParagraph[];
  /** The answerable questions, in file order. */
  readonly questions: readonly SquadQuestion[];
}

interface SquadFile {
  data: {
    title: string;
    paragraphs: {
      context: string;
      qas: { id: string; question: string; is_impossible?: boolean; answers: { text: string }[] }[];
    }[];
  }[];
}

export function loadSquad(directory: string): Squad {
  const file = JSON.parse(readFileSync(path.join(directory, 'dev-subset.json'), 'utf8')) as SquadFile;
  const articles: string[] = [];
  const paragraphs: SquadParagraph[] = [];
  const questions: SquadQuestion[] = [];
  file.data.forEach((article, articleIndex) => {
    const title = article.title.replace(/_/g, ' ');
    articles.push(title);
    article.paragraphs.forEach((paragraph, paragraphIndex) => {
      const id = `${articleIndex}-${paragraphIndex}`;
      paragraphs.push({ id, title, text: paragraph.context });
      for (const qa of paragraph.qas) {
        if (qa.is_impossible === true || qa.answers.length === 0) continue;
        questions.push({
          id: qa.id,
          article: title,
          paragraphId: id,
          question: qa.question.trim(),
          answers: qa.answers.map((answer) => answer.text),
        });
      }
    });
  });
  return { articles, paragraphs, questions };
}

/**
 * SQuAD's normalisation as the figures read it: lower case, punctuation (any script's) and the
 * articles a/an/the replaced by spaces, spaces collapsed. (SQuAD's own script deletes ASCII
 * punctuation instead, joining "1,000" and splitting nothing at a dash; the two differ by about one
 * point here.)
 */
export function normalizeAnswer(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\s]/gu, ' ')
    .replace(/\b(?:a|an|the)\b/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Whether one of the gold answers appears, normalised, as whole words in the normalised text. */
export function holdsAnswer(text: string, answers: readonly string[]): boolean {
  const haystack = ` ${normalizeAnswer(text)} `;
  return answers.some((answer) => {
    const needle = normalizeAnswer(answer);
    return needle !== '' && haystack.includes(` ${needle} `);
  });
}

/**
 * `[n]` citation markers taken out: they are not part of what the answer says. Only markers
 * naming the answer's sources (their `citation` numbers) are: a default the answer quotes,
 * "Default: [429, 500, 502, 503, 504]", is what it says.
 */
export function withoutMarkers(text: string, citations: ReadonlySet<number>): string {
  return text.replace(/\s?\[(\d{1,3}(?:\s*[,-]\s*\d{1,3})*)\]/g, (marker, numbers: string) =>
    numbers.split(/\s*[,-]\s*/).every((cited) => citations.has(Number(cited))) ? '' : marker,
  );
}

/** Whitespace-separated words. */
export function words(text: string): number {
  return text.split(/\s+/).filter((word) => /[\p{L}\p{N}]/u.test(word)).length;
}
