import { describe, expect, it } from 'vitest';
import { passageBlocks, shortenCode } from './passage-blocks';

describe('passageBlocks', () => {
  it('cuts a passage into its prose and its fenced code, with the language, fences dropped', () => {
    const text = [
      'The grammar of a rule:',
      '',
      '```bnf',
      '<rule> ::= <name> "=" <expression>',
      '<name> ::= <letter> | <name> <letter>',
      '```',
      '',
      'Each rule ends at a line break.',
    ].join('\n');
    expect(passageBlocks(text)).toEqual([
      { kind: 'prose', text: 'The grammar of a rule:' },
      {
        kind: 'code',
        language: 'bnf',
        code: '<rule> ::= <name> "=" <expression>\n<name> ::= <letter> | <name> <letter>',
      },
      { kind: 'prose', text: 'Each rule ends at a line break.' },
    ]);
  });

  it('keeps prose as written: its line breaks, and markup as text', () => {
    const text = 'First paragraph\nwrapped.\n\n<img src=x onerror=alert(1)> **not bold** [a](javascript:x)';
    expect(passageBlocks(text)).toEqual([{ kind: 'prose', text }]);
  });

  it('keeps code exactly: indentation, blank lines inside, and what looks like Markdown or HTML', () => {
    const code = 'if (a) {\n  run("<b>x</b>");\n\n  # not a heading\n}';
    expect(passageBlocks(`\`\`\`ts\n${code}\n\`\`\``)).toEqual([{ kind: 'code', language: 'ts', code }]);
  });

  it('reads tilde fences and longer fences, which only a fence as long closes', () => {
    expect(passageBlocks('~~~\nplain code\n~~~')).toEqual([
      { kind: 'code', language: '', code: 'plain code' },
    ]);
    expect(passageBlocks('````md\n```js\nx()\n```\n````')).toEqual([
      { kind: 'code', language: 'md', code: '```js\nx()\n```' },
    ]);
  });

  it('takes the first word of the info string as the language', () => {
    expect(passageBlocks('```python title="run.py"\nprint(1)\n```')).toEqual([
      { kind: 'code', language: 'python', code: 'print(1)' },
    ]);
  });

  it('removes the indentation of an indented fence from its lines', () => {
    expect(passageBlocks('  ```sh\n  npm test\n    --watch\n  ```')).toEqual([
      { kind: 'code', language: 'sh', code: 'npm test\n  --watch' },
    ]);
  });

  it('runs a fence left open to the end of the passage (a long block cut between passages)', () => {
    expect(passageBlocks('Install it:\n\n```sh\nnpm install\nnpm run build')).toEqual([
      { kind: 'prose', text: 'Install it:' },
      { kind: 'code', language: 'sh', code: 'npm install\nnpm run build' },
    ]);
  });

  it('leaves inline code and short backtick runs in the prose', () => {
    const text = '``` `npm test` ``` runs the tests\n`` npm start `` starts it';
    expect(passageBlocks(text)).toEqual([{ kind: 'prose', text }]);
  });

  it('leaves out empty code blocks and has no blocks for empty text', () => {
    expect(passageBlocks('```\n\n```\nAfter.')).toEqual([{ kind: 'prose', text: 'After.' }]);
    expect(passageBlocks('')).toEqual([]);
  });

  it('cuts a passage of many blocks into each of them', () => {
    const blocks = passageBlocks('```x\ncode\n```\nprose\n'.repeat(1_000));
    expect(blocks).toHaveLength(2_000);
    expect(blocks.filter((block) => block.kind === 'code')).toHaveLength(1_000);
  });
});

describe('shortenCode', () => {
  const lines = (count: number) =>
    Array.from({ length: count }, (_, index) => `line ${index + 1}`).join('\n');

  it('keeps a short block whole', () => {
    expect(shortenCode(lines(8), 8)).toEqual({ shown: lines(8), hiddenLines: 0 });
  });

  it('shows the first lines of a long block and counts the rest', () => {
    expect(shortenCode(lines(20), 8)).toEqual({ shown: lines(8), hiddenLines: 12 });
  });

  it('shows a block one line over whole rather than hide a single line', () => {
    expect(shortenCode(lines(9), 8)).toEqual({ shown: lines(9), hiddenLines: 0 });
  });
});
