import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserTestsEnabled, DESKTOP, PHONE } from '../helpers/browser.js';
import {
  type BrowserService,
  createAccount,
  type FileToUpload,
  openFromMainNav,
  startBrowserService,
  uploadAndWait,
} from '../helpers/browser-service.js';

/** Twenty lines of code: a search result shows the first eight and says how many more there are. */
const PARSER_LINES = Array.from(
  { length: 20 },
  (_, index) => `const step${String(index + 1).padStart(2, '0')} = parserTable.next();`,
);
/** A line no phone is wide enough for, without a space to wrap at. */
const LONG_CODE_LINE = `const checksum = "${'f0e1d2c3b4a5'.repeat(16)}";`;

const RULE_SYNTAX: FileToUpload = {
  name: 'rule-syntax-notes.md',
  mimeType: 'text/markdown',
  title: 'Rule syntax',
  text: `# Rule syntax

Every grammar rule has a name and an expression, written in BNF:

\`\`\`bnf
<rule> ::= <name> "::=" <expression>
<expression> ::= <term> | <term> "|" <expression>
\`\`\`

A rule may refer to itself.

## Generated parser

The generated parser walks its table one step at a time:

\`\`\`ts
${[...PARSER_LINES, LONG_CODE_LINE].join('\n')}
\`\`\`
`,
};

/** Two files whose first heading is the same title: only their file names tell them apart. */
const LISBON_MENU: FileToUpload = {
  name: 'cafe-menu-lisbon.md',
  mimeType: 'text/markdown',
  title: 'Café menu',
  text: '# Café menu\n\nA galão with a pastel de nata costs three euros at the Lisbon counter.\n',
};
const PORTO_MENU: FileToUpload = {
  name: 'cafe-menu-porto.md',
  mimeType: 'text/markdown',
  title: 'Café menu',
  text: '# Café menu\n\nA galão with a francesinha costs twelve euros at the Porto counter.\n',
};

async function search(page: Page, query: string): Promise<Locator> {
  await openFromMainNav(page, 'Documents');
  await page.getByRole('searchbox', { name: 'Search documents' }).fill(query);
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  const results = page.getByRole('list', { name: 'Search results' });
  await results.waitFor();
  return results.getByRole('listitem');
}

/** The page is no wider than its window: nothing scrolls sideways. */
async function pageWidth(page: Page): Promise<number> {
  return page.evaluate<number>('document.documentElement.scrollWidth');
}

describe.skipIf(!browserTestsEnabled())(
  'code blocks and file names in search results and on a document page, in Chromium',
  () => {
    let app: BrowserService;

    beforeAll(async () => {
      app = await startBrowserService({ worker: true });
    });
    afterAll(() => app?.close());

    for (const [size, viewport] of [
      ['desktop', DESKTOP],
      ['375 px', PHONE],
    ] as const) {
      it(`shows a passage's code as code, a long block shortened in results and whole on its page, and the file name beside the title (${size})`, async () => {
        const { page, foreignRequests, pageErrors } = await app.open(viewport);
        await createAccount(page, `code-blocks-${viewport.width}@example.com`);
        await uploadAndWait(page, [RULE_SYNTAX]);

        // The grammar's passage: its BNF is a code block, the query's words marked in prose and code.
        const items = await search(page, 'grammar rule expression');
        const grammar = items.filter({ hasText: 'Every grammar rule' }).first();
        expect(await grammar.getByRole('link').textContent()).toBe(RULE_SYNTAX.title);
        expect(await grammar.textContent()).toContain(RULE_SYNTAX.name);
        const bnf = grammar.getByRole('code');
        expect(await bnf.count()).toBe(1);
        expect(await bnf.textContent()).toBe(
          '<rule> ::= <name> "::=" <expression>\n<expression> ::= <term> | <term> "|" <expression>',
        );
        expect(await bnf.evaluate((element) => element.parentElement?.tagName)).toBe('PRE');
        expect(await grammar.textContent()).not.toContain('```');
        expect(await bnf.locator('mark').allTextContents()).toContain('rule');
        const proseMarks = await grammar.locator('p mark').allTextContents();
        expect(proseMarks.map((word) => word.toLowerCase())).toEqual(
          expect.arrayContaining(['grammar', 'rule', 'expression']),
        );
        // What looks like markup in code is text: no element was made of it.
        expect(await grammar.locator('rule, expression, term').count()).toBe(0);

        // A long block: its first eight lines, then how many more there are.
        const parser = (await search(page, 'generated parser table'))
          .filter({ hasText: 'walks its table' })
          .first();
        const shortened = parser.getByRole('code');
        const shownLines = ((await shortened.textContent()) ?? '').split('\n');
        expect(shownLines).toEqual(PARSER_LINES.slice(0, 8));
        expect(await parser.getByText('… 13 more lines', { exact: true }).isVisible()).toBe(true);
        expect(await parser.textContent()).not.toContain('```');
        expect(await pageWidth(page)).toBeLessThanOrEqual(viewport.width);

        // Its document's page: the title with its file name, every line of the block, as code.
        await parser.getByRole('link', { name: RULE_SYNTAX.title }).click();
        await page.getByRole('heading', { name: RULE_SYNTAX.title, level: 1 }).waitFor();
        expect(await page.getByText(RULE_SYNTAX.name, { exact: true }).isVisible()).toBe(true);
        const passages = page.locator('ol.passages');
        const blocks = passages.getByRole('code');
        await expect.poll(() => blocks.count()).toBe(2);
        expect(await blocks.nth(1).textContent()).toBe([...PARSER_LINES, LONG_CODE_LINE].join('\n'));
        expect(await blocks.nth(1).evaluate((element) => element.parentElement?.tagName)).toBe('PRE');
        expect(await passages.textContent()).not.toContain('```');
        expect(await passages.getByText('more lines').count()).toBe(0);
        // The cited passage (the one the result opened) is marked, code included.
        expect(await page.locator('.passage-cited').getByRole('code').locator('mark').count()).toBe(1);
        // The long line wraps: nothing on the page scrolls sideways.
        expect(await pageWidth(page)).toBeLessThanOrEqual(viewport.width);

        expect(foreignRequests).toEqual([]);
        expect(pageErrors).toEqual([]);
      }, 180_000);
    }

    it('tells two documents of the same title apart by their file names, in results and on their pages', async () => {
      const { page, pageErrors } = await app.open(DESKTOP);
      await createAccount(page, 'same-titles@example.com');
      await uploadAndWait(page, [LISBON_MENU, PORTO_MENU]);
      await expect
        .poll(() =>
          page.getByRole('row').filter({ hasText: 'Café menu' }).filter({ hasText: 'indexed' }).count(),
        )
        .toBe(2);

      const items = await search(page, 'galão counter');
      expect(await items.count()).toBe(2);
      const texts = await items.allTextContents();
      expect(texts.filter((text) => text.includes(LISBON_MENU.name))).toHaveLength(1);
      expect(texts.filter((text) => text.includes(PORTO_MENU.name))).toHaveLength(1);
      expect(await items.getByRole('link', { name: 'Café menu', exact: true }).count()).toBe(2);

      await items.filter({ hasText: 'Porto counter' }).getByRole('link', { name: 'Café menu' }).click();
      await page.getByRole('heading', { name: 'Café menu', level: 1 }).waitFor();
      expect(await page.getByText(PORTO_MENU.name, { exact: true }).isVisible()).toBe(true);
      expect(await page.getByText(LISBON_MENU.name).count()).toBe(0);

      expect(pageErrors).toEqual([]);
    }, 180_000);
  },
);
