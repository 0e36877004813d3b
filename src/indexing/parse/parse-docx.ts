import mammoth from 'mammoth';
import { FileFailure, type ParsedDocument } from '../document.js';
import { markupToBlocks } from './markup-to-blocks.js';

// Word's Title and Subtitle styles are headings for our purposes; mammoth maps Heading 1-6 itself.
const STYLE_MAP = ["p[style-name='Title'] => h1:fresh", "p[style-name='Subtitle'] => h2:fresh"];

// Images are not indexed: an empty src spares reading and base64-encoding every picture.
const SKIP_IMAGES = mammoth.images.imgElement(async () => ({ src: '' }));

/** DOCX through mammoth's HTML, so headings keep their levels, then the HTML reader. */
export async function parseDocx(bytes: Uint8Array): Promise<ParsedDocument> {
  let html: string;
  try {
    const result = await mammoth.convertToHtml(
      { buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) },
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
