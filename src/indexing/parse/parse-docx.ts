import mammoth from 'mammoth';
import { FileFailure, type ParsedDocument } from '../document.js';
import { normalizeInline } from './blocks.js';
import { decodeText } from './decode-text.js';
import { markupToBlocks } from './markup-to-blocks.js';
import { tokenizeMarkup } from './markup-tokens.js';
import { inflateZipEntry, readZipDirectory, type ZipEntry, type ZipLimits } from './zip-guard.js';
import { writeStoredZip } from './zip-writer.js';

// How the ZIP guard's failures name the file.
const SUBJECT = 'the DOCX file';

// Word's Title and Subtitle styles are headings for our purposes; mammoth maps Heading 1-6 itself.
const STYLE_MAP = ["p[style-name='Title'] => h1:fresh", "p[style-name='Subtitle'] => h2:fresh"];

// Images are not indexed: an empty src spares reading and base64-encoding every picture.
const SKIP_IMAGES = mammoth.images.imgElement(async () => ({ src: '' }));

/**
 * The parts mammoth reads: XML parts, their relationships and its own embedded style map. Pictures
 * and other media it reads only to embed them, which SKIP_IMAGES never asks for.
 */
const isReadByMammoth = (name: string): boolean =>
  /\.(?:xml|rels)$/i.test(name) || name === 'mammoth/style-map';

/** Where Word keeps the document's properties (title, author), which mammoth does not read. */
const CORE_PROPERTIES = 'docProps/core.xml';

/**
 * DOCX through mammoth's HTML, so headings keep their levels, then the HTML reader. The archive is
 * checked and inflated by the ZIP guard first, within `limits` (`too_large`, `unsafe_archive`).
 * The title is the document's own (File > Properties, `dc:title`), else its first Title or
 * Heading 1 paragraph.
 */
export async function parseDocx(bytes: Uint8Array, limits: ZipLimits): Promise<ParsedDocument> {
  const checked = checkedParts(bytes, limits);
  let html: string;
  try {
    const result = await mammoth.convertToHtml(
      { buffer: Buffer.from(checked.zip.buffer, checked.zip.byteOffset, checked.zip.byteLength) },
      // No external file access: a hostile document must not make us read local files or URLs.
      { styleMap: STYLE_MAP, convertImage: SKIP_IMAGES, externalFileAccess: false },
    );
    html = result.value;
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new FileFailure('parse_error', `the DOCX file could not be read: ${detail}`, { cause: error });
  }
  const parsed = markupToBlocks(html, 'html');
  const title = checked.coreProperties === undefined ? undefined : coreTitle(checked.coreProperties);
  return title === undefined ? parsed : { ...parsed, title };
}

/**
 * The parts mammoth reads, inflated by the guard (each stops at its declared size) and re-packed
 * stored: mammoth's JSZip then inflates nothing, and reads exactly the bytes that were checked,
 * not its own reading of a file that may have been crafted to be read two ways. The core
 * properties part, when there is one, is inflated once and kept for its title.
 */
function checkedParts(
  bytes: Uint8Array,
  limits: ZipLimits,
): { zip: Uint8Array; coreProperties?: Uint8Array } {
  const parts = readZipDirectory(bytes, limits, SUBJECT).filter((entry) => isReadByMammoth(entry.name));
  const core = parts.find((entry) => entry.name === CORE_PROPERTIES);
  const coreProperties = core === undefined ? undefined : inflateZipEntry(bytes, core, SUBJECT);
  const contents = (entry: ZipEntry) =>
    entry === core && coreProperties !== undefined ? coreProperties : inflateZipEntry(bytes, entry, SUBJECT);
  const zip = writeStoredZip(
    parts.map((entry) => ({
      name: entry.name,
      size: entry.uncompressedSize,
      crc32: entry.crc32,
      contents: () => contents(entry),
    })),
  );
  return coreProperties === undefined ? { zip } : { zip, coreProperties };
}

/** `<dc:title>` of the core properties, whitespace collapsed; none when it is blank. */
function coreTitle(xml: Uint8Array): string | undefined {
  let depth = 0;
  let text = '';
  tokenizeMarkup(decodeText(xml), 'xml', (token) => {
    if (token.type === 'open' && token.name === 'dc:title' && !token.selfClosing) depth += 1;
    else if (token.type === 'close' && token.name === 'dc:title') depth = Math.max(0, depth - 1);
    else if (token.type === 'text' && depth > 0) text += token.text;
  });
  const title = normalizeInline(text);
  return title === '' ? undefined : title;
}
