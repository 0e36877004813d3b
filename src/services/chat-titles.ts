const TITLE_LENGTH = 80;

/** A chat's title: its first message, on one line, cut at a word near 80 characters. */
export function titleFrom(messages: readonly { readonly content: string }[]): string {
  const text = (messages[0]?.content ?? '').replace(/\s+/g, ' ').trim();
  if (text.length <= TITLE_LENGTH) return text;
  const cut = text.slice(0, TITLE_LENGTH);
  const lastSpace = cut.lastIndexOf(' ');
  return `${(lastSpace > TITLE_LENGTH / 2 ? cut.slice(0, lastSpace) : cut).trimEnd()}…`;
}
