import type { Element, ElementContent, Root, RootContent } from 'hast';
import { splitCitations } from './citations';

/** The element the plugin makes for `[n]`: markdown never produces <cite>, so it means only this. */
export const CITATION_TAG = 'cite';
export const CITATION_PROPERTY = 'dataCitation';

/**
 * Elements whose text is never turned into citations: code stays code, and a chip (a link or a
 * button) cannot sit inside a link.
 */
const LEAVE_ALONE: ReadonlySet<string> = new Set(['code', 'pre', 'kbd', 'samp', 'a', CITATION_TAG]);

function citationElement(citation: number): Element {
  return {
    type: 'element',
    tagName: CITATION_TAG,
    properties: { [CITATION_PROPERTY]: citation },
    children: [{ type: 'text', value: `[${citation}]` }],
  };
}

function withCitations(children: ElementContent[]): ElementContent[] {
  return children.flatMap((child): ElementContent[] => {
    if (child.type === 'text') {
      return splitCitations(child.value).map((segment) =>
        segment.type === 'text' ? { type: 'text', value: segment.value } : citationElement(segment.citation),
      );
    }
    if (child.type === 'element' && !LEAVE_ALONE.has(child.tagName)) {
      child.children = withCitations(child.children);
    }
    return [child];
  });
}

/**
 * A rehype plugin: every `[n]` in the answer's text nodes becomes a citation element, rendered as a
 * chip by the `cite` component. Text nodes only, so a `[1]` in code, a URL or an attribute is left.
 */
export function rehypeCitations() {
  return (tree: Root): void => {
    tree.children = tree.children.flatMap((child: RootContent): RootContent[] =>
      child.type === 'element' || child.type === 'text' ? withCitations([child]) : [child],
    );
  };
}
