/** A file for Playwright's setInputFiles. */
export interface FilePayload {
  readonly name: string;
  readonly mimeType: string;
  readonly buffer: Buffer;
}

const PACKAGES = [
  'commander',
  'pino',
  'fastify',
  'undici',
  'zod',
  'chalk',
  'debug',
  'semver',
  'yargs',
  'dotenv',
  'ws',
  'uuid',
  'ajv',
  'glob',
  'minimatch',
  'picomatch',
  'esbuild',
  'vite',
  'vitest',
  'tsx',
  'drizzle',
  'postgres',
  'pg-boss',
  'typebox',
  'lru-cache',
  'p-limit',
  'execa',
  'ora',
  'kleur',
  'mime',
];

/** A package's README: a heading, what it does, how to install it. */
function readme(name: string): FilePayload {
  const text = `# ${name}

The ${name} package is used by this team's services. Its maintainers publish a release every month.

## Install

\`\`\`sh
npm install ${name}
\`\`\`
`;
  return { name: `${name}-readme.md`, mimeType: 'text/markdown', buffer: Buffer.from(text) };
}

/** A "PDF" whose bytes are not a PDF: uploaded, then failed by its job ("its content could not be read"). */
export const BROKEN_PDF: FilePayload = {
  name: 'broken.pdf',
  mimeType: 'application/pdf',
  buffer: Buffer.from('these bytes are not a PDF at all'),
};

/** `readmes` package READMEs (up to 30) and, last, BROKEN_PDF: a batch of which one file fails. */
export function readmeBatch(readmes: number): FilePayload[] {
  return [...PACKAGES.slice(0, readmes).map(readme), BROKEN_PDF];
}
