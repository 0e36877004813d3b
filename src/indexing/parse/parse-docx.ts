import mammoth from 'mammoth';
import { FileFailure, type ParsedDocument } from '../document.js';
import { markupToBlocks } from './markup-to-blocks.js';
import { inflateZipEntry, readZipDirectory, type ZipLimits } from './zip-guard.js';
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

/**
 * DOCX through mammoth's HTML, so headings keep their levels, then the HTML reader. The archive is
 * checked and inflated by the ZIP guard first, within `limits` (`too_large`, `unsafe_archive`).
 */
export async function parseDocx(bytes: Uint8Array, limits: ZipLimits): Promise<ParsedDocument> {
  const checked = checkedParts(bytes, limits);
  let html: string;
  try {
    const result = await mammoth.convertToHtml(
      { buffer: Buffer.from(checked.buffer, checked.byteOffset, checked.byteLength) },
      // No external file access: a hostile document must not make us read local files or URLs.
      { styleMap: STYLE_MAP, convertImage: SKIP_IMAGES, externalFileAccess: false },
    );
    html = result.value;
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new FileFailure('parse_error', `the DOCX file could not be read: ${detail}`, { cause: error });
  }
  return markupToBlocks(html, 'html');
}

/**
 * The parts mammoth reads, inflated by the guard (each stops at its declared size) and re-packed
 * stored: mammoth's JSZip then inflates nothing, and reads exactly the bytes that were checked,
 * not its own reading of a file that may have been crafted to be read two ways.
 */
function checkedParts(bytes: Uint8Array, limits: ZipLimits): Uint8Array {
  const parts = readZipDirectory(bytes, limits, SUBJECT).filter((entry) => isReadByMammoth(entry.name));
  return writeStoredZip(
    parts.map((entry) => ({
      name: entry.name,
      size: entry.uncompressedSize,
      crc32: entry.crc32,
      contents: () => inflateZipEntry(bytes, entry, SUBJECT),
    })),
  );
}
