import { lazy, Suspense } from 'react';
import type { CitedSource } from '../api/types';

const loadRenderer = () => import('./SafeMarkdown');

/**
 * The Markdown renderer (react-markdown, remark-gfm, micromark: a third of the app's JavaScript)
 * is a chunk of its own, so the first page loads without it; the ask page calls `preloadAnswerRenderer`
 * to fetch it before the first answer needs it (as a question is typed, or a chat's history opens;
 * the documents pages never load it).
 */
const SafeMarkdown = lazy(() => loadRenderer().then((module) => ({ default: module.SafeMarkdown })));

export function preloadAnswerRenderer(): void {
  void loadRenderer();
}

/**
 * An answer rendered as safe Markdown. Until the renderer has arrived the text is shown as it is,
 * plain text (never HTML), so no answer waits for it.
 */
export function AnswerMarkdown({ text, sources }: { text: string; sources: readonly CitedSource[] }) {
  return (
    <Suspense fallback={<p className="answer-plain">{text}</p>}>
      <SafeMarkdown text={text} sources={sources} />
    </Suspense>
  );
}
