import { passageBlocks, shortenCode } from '../format/passage-blocks';
import { Highlighted } from './Highlighted';

interface PassageTextProps {
  text: string;
  /** The query's words, marked in prose and code alike (a search for a command finds it in code). */
  terms?: readonly string[];
  /** The whole passage marked: the one a citation points at. */
  cited?: boolean;
  /** Long code blocks show their first lines and how many more there are (a search result). */
  shortenCode?: boolean;
}

function Words({ text, terms, cited }: { text: string; terms: readonly string[]; cited: boolean }) {
  if (cited) return <mark>{text}</mark>;
  return <Highlighted text={text} terms={terms} />;
}

/**
 * A stored passage: its prose as text (line breaks kept) and its fenced code blocks as code. Nothing
 * in it is parsed as Markdown or HTML, so a document cannot put markup on the page.
 */
export function PassageText({
  text,
  terms = [],
  cited = false,
  shortenCode: shorten = false,
}: PassageTextProps) {
  return (
    <div className="passage-body">
      {passageBlocks(text).map((block, index) => {
        if (block.kind === 'prose') {
          return (
            // biome-ignore lint/suspicious/noArrayIndexKey: blocks have no identity beyond their place in the passage
            <p key={index} className="passage-text">
              <Words text={block.text} terms={terms} cited={cited} />
            </p>
          );
        }
        const { shown, hiddenLines } = shorten
          ? shortenCode(block.code)
          : { shown: block.code, hiddenLines: 0 };
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: as above
          <div key={index} className="passage-code">
            <pre>
              <code className={block.language === '' ? undefined : `language-${block.language}`}>
                <Words text={shown} terms={terms} cited={cited} />
              </code>
            </pre>
            {hiddenLines === 0 ? null : (
              <p className="passage-code-more muted">
                … {hiddenLines === 1 ? '1 more line' : `${hiddenLines} more lines`}
              </p>
            )}
          </div>
        );
      })}
    </div>
  );
}
