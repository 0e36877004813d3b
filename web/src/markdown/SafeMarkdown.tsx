import { type ComponentProps, type ReactNode, useMemo } from 'react';
import Markdown, { type Components, type ExtraProps } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import type { CitedSource } from '../api/types';
import { CitationChip } from './CitationChip';
import { CITATION_PROPERTY, rehypeCitations } from './rehype-citations';
import { markdownUrlTransform } from './safe-url';

interface SafeMarkdownProps {
  text: string;
  /** The answer's sources, which its `[n]` chips describe and open. */
  sources: readonly CitedSource[];
}

const remarkPlugins = [remarkGfm];
const rehypePlugins = [rehypeCitations];

/** A link that survived the URL filter opens in a new tab; one that did not is its text alone. */
function AnswerLink({ href, children }: ComponentProps<'a'> & ExtraProps) {
  if (href === undefined || href === '') return <span>{children}</span>;
  return (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {children}
    </a>
  );
}

/** An image is never loaded (it could be anywhere, and its URL could carry data out): its alt text only. */
function ImageAsText({ alt }: ComponentProps<'img'> & ExtraProps) {
  return (
    <span className="answer-image">{alt === undefined || alt === '' ? '[image]' : `[image: ${alt}]`}</span>
  );
}

/** A task list's box, as text: a disabled checkbox would be a form control without a label. */
function TaskBox({ checked, type }: ComponentProps<'input'> & ExtraProps) {
  if (type !== 'checkbox') return null;
  return <span className="task-box">{checked === true ? '☑ ' : '☐ '}</span>;
}

/** A table may be wider than a phone: it scrolls, and a keyboard can scroll it too. */
function ScrollingTable({ children }: ComponentProps<'table'> & ExtraProps) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be focusable to be scrolled by keyboard
    <div className="table-scroll" tabIndex={0}>
      <table>{children}</table>
    </div>
  );
}

/** The answer's headings sit under the page's h1 and the answer itself: two levels down. */
type HeadingProps = { children?: ReactNode };
const AnswerH3 = ({ children }: HeadingProps) => <h3>{children}</h3>;
const AnswerH4 = ({ children }: HeadingProps) => <h4>{children}</h4>;
const AnswerH5 = ({ children }: HeadingProps) => <h5>{children}</h5>;
const AnswerH6 = ({ children }: HeadingProps) => <h6>{children}</h6>;

function markdownComponents(sources: readonly CitedSource[]): Components {
  const byCitation = new Map(sources.map((source) => [source.citation, source]));
  return {
    a: AnswerLink,
    img: ImageAsText,
    input: TaskBox,
    table: ScrollingTable,
    h1: AnswerH3,
    h2: AnswerH4,
    h3: AnswerH5,
    h4: AnswerH6,
    h5: AnswerH6,
    h6: AnswerH6,
    cite({ node, children }) {
      const citation = node?.properties[CITATION_PROPERTY];
      if (typeof citation !== 'number') return <cite>{children}</cite>;
      return <CitationChip citation={citation} source={byCitation.get(citation)} />;
    },
  };
}

/**
 * An answer as Markdown (GFM), safely: raw HTML is shown as text, never parsed; links only to
 * http(s) and mailto (reference definitions go through the same filter); no image is loaded; code
 * stays code; `[n]` outside code becomes a citation chip. A document quoted into an answer can
 * neither run script nor make the browser request another origin.
 */
export function SafeMarkdown({ text, sources }: SafeMarkdownProps) {
  const components = useMemo(() => markdownComponents(sources), [sources]);
  return (
    <Markdown
      remarkPlugins={remarkPlugins}
      rehypePlugins={rehypePlugins}
      urlTransform={markdownUrlTransform}
      components={components}
    >
      {text}
    </Markdown>
  );
}
