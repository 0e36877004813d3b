import mammoth from 'mammoth';
import { type Block, FileFailure, type ParsedDocument } from '../document.js';
import { normalizeInline } from './blocks.js';
import { decodeText } from './decode-text.js';
import { markupToBlocks } from './markup-to-blocks.js';
import { tokenizeMarkup } from './markup-tokens.js';
import { crc32 } from './zip-crc32.js';
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

/** Where Word keeps the document's properties (title, author), which mammoth does not read. */
const CORE_PROPERTIES = 'docProps/core.xml';

/** The main document part, the one cut into slices (other parts are read whole by each slice). */
const DOCUMENT_PART = 'word/document.xml';

/**
 * How much of the main document mammoth reads at once. mammoth holds a DOM, its own tree and an
 * HTML tree of what it reads: some 60 to 100 times the XML's bytes at its peak (5 MiB of short
 * paragraphs needed more than 256 MiB of heap). Read in slices of the body, its peak stays near
 * 60 MiB whatever the document's size, and a large document parses within a parse thread's budget.
 */
export const DOCX_SLICE_BYTES = 512 * 1024;
/**
 * The most markup one paragraph or table may hold: mammoth reads an element whole, at about a
 * hundred times its size in heap, so one larger element would hold a parse thread's whole share.
 */
export const DOCX_MAX_ELEMENT_BYTES = 4 * DOCX_SLICE_BYTES;

/**
 * DOCX through mammoth's HTML, so headings keep their levels, then the HTML reader. The archive is
 * checked and inflated by the ZIP guard first, within `limits` (`too_large`, `unsafe_archive`).
 * A long body is converted in slices of whole top-level elements (paragraphs, tables), each with
 * the document's other parts (styles, numbering, notes), each slice's HTML read into blocks before
 * the next: memory follows a slice and the text, not the document's markup. The title is the
 * document's own (File > Properties, `dc:title`), else its first Title or Heading 1 paragraph.
 */
export async function parseDocx(bytes: Uint8Array, limits: ZipLimits): Promise<ParsedDocument> {
  const checked = checkedParts(bytes, limits);
  // Each slice's HTML becomes blocks at once: only the blocks (the text) outlive a slice.
  const blocks: Block[] = [];
  let headingTitle: string | undefined;
  for (const zip of checked.slices()) {
    let html: string;
    try {
      const result = await mammoth.convertToHtml(
        { buffer: Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength) },
        // No external file access: a hostile document must not make us read local files or URLs.
        { styleMap: STYLE_MAP, convertImage: SKIP_IMAGES, externalFileAccess: false },
      );
      html = result.value;
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      throw new FileFailure('parse_error', `the DOCX file could not be read: ${detail}`, { cause: error });
    }
    const parsed = markupToBlocks(html, 'html');
    headingTitle ??= parsed.title;
    for (const block of parsed.blocks) blocks.push(block);
  }
  const title =
    (checked.coreProperties === undefined ? undefined : coreTitle(checked.coreProperties)) ?? headingTitle;
  return title === undefined ? { blocks } : { title, blocks };
}

interface CheckedParts {
  /** Stored archives of the parts mammoth reads, the main document cut into slices; one when it is short. */
  readonly slices: () => Generator<Uint8Array>;
  readonly coreProperties?: Uint8Array;
}

/**
 * The parts mammoth reads, inflated by the guard (each stops at its declared size) and re-packed
 * stored: mammoth's JSZip then inflates nothing, and reads exactly the bytes that were checked,
 * not its own reading of a file that may have been crafted to be read two ways. The core
 * properties part, when there is one, is inflated once and kept for its title. Every part is
 * inflated once; each slice's archive is written when mammoth is ready for it.
 */
function checkedParts(bytes: Uint8Array, limits: ZipLimits): CheckedParts {
  const parts = readZipDirectory(bytes, limits, SUBJECT).filter((entry) => isReadByMammoth(entry.name));
  const core = parts.find((entry) => entry.name === CORE_PROPERTIES);
  const coreProperties = core === undefined ? undefined : inflateZipEntry(bytes, core, SUBJECT);
  const inflated = parts.map((entry) => ({
    entry,
    contents:
      entry === core && coreProperties !== undefined
        ? coreProperties
        : inflateZipEntry(bytes, entry, SUBJECT),
  }));
  const main = inflated.find((part) => part.entry.name === DOCUMENT_PART);
  const cuts = main === undefined ? undefined : bodySlices(main.contents, DOCX_SLICE_BYTES);
  if (main !== undefined && main.contents.length > DOCX_MAX_ELEMENT_BYTES) {
    const largest =
      cuts === undefined ? main.contents.length : Math.max(...cuts.ranges.map(([start, end]) => end - start));
    if (largest > DOCX_MAX_ELEMENT_BYTES) {
      throw new FileFailure(
        'too_large',
        `${SUBJECT} holds a paragraph or table of ${largest} bytes of markup, more than the ${DOCX_MAX_ELEMENT_BYTES} read at once`,
      );
    }
  }
  const stored = (name: string, contents: Uint8Array, crc = crc32(contents)) => ({
    name,
    size: contents.length,
    crc32: crc,
    contents: () => contents,
  });
  const whole = () =>
    writeStoredZip(inflated.map(({ entry, contents }) => stored(entry.name, contents, entry.crc32)));
  function* slices(): Generator<Uint8Array> {
    if (main === undefined || cuts === undefined || cuts.ranges.length < 2) {
      yield whole();
      return;
    }
    const xml = main.contents;
    const prefix = xml.subarray(0, cuts.bodyStart);
    const suffix = xml.subarray(cuts.bodyEnd);
    for (const [start, end] of cuts.ranges) {
      const slice = Buffer.concat([prefix, xml.subarray(start, end), suffix]);
      yield writeStoredZip(
        inflated.map(({ entry, contents }) =>
          entry === main.entry ? stored(entry.name, slice) : stored(entry.name, contents, entry.crc32),
        ),
      );
    }
  }
  return coreProperties === undefined ? { slices } : { slices, coreProperties };
}

/** Where the main document's body content starts and ends, and the byte ranges it is cut into. */
interface BodySlices {
  readonly bodyStart: number;
  readonly bodyEnd: number;
  /** Consecutive ranges covering the body's content, each ending after a top-level element. */
  readonly ranges: readonly (readonly [number, number])[];
}

const LESS_THAN = 0x3c;
const GREATER_THAN = 0x3e;
const SLASH = 0x2f;
const QUESTION = 0x3f;
const BANG = 0x21;
const COLON = 0x3a;
const DOUBLE_QUOTE = 0x22;
const SINGLE_QUOTE = 0x27;
const ascii = (text: string) => Buffer.from(text, 'latin1');
const COMMENT_END = ascii('-->');
const CDATA_START = ascii('<![CDATA[');
const CDATA_END = ascii(']]>');
const PI_END = ascii('?>');
const BODY = ascii('body');

/**
 * The body of a WordprocessingML document (`<w:document><w:body>…`) cut into ranges of about
 * `target` bytes between its top-level elements, by one linear scan of the bytes (UTF-8 never
 * puts an ASCII byte inside a character). Undefined when the XML is not shaped as expected (no
 * body, a DOCTYPE, tags that do not balance): mammoth then reads it whole and judges it itself.
 */
export function bodySlices(xml: Uint8Array, target: number): BodySlices | undefined {
  const bytes = Buffer.from(xml.buffer, xml.byteOffset, xml.byteLength);
  let depth = 0;
  let bodyStart = -1;
  let bodyEnd = -1;
  const ranges: [number, number][] = [];
  let sliceStart = -1;
  let index = bytes.indexOf(LESS_THAN);
  while (index >= 0 && index < bytes.length) {
    const next = bytes[index + 1];
    let end: number;
    if (next === BANG) {
      if (bytes[index + 2] === 0x2d && bytes[index + 3] === 0x2d) {
        end = bytes.indexOf(COMMENT_END, index + 4);
        if (end < 0) return undefined;
        end += COMMENT_END.length;
      } else if (bytes.subarray(index, index + CDATA_START.length).equals(CDATA_START)) {
        end = bytes.indexOf(CDATA_END, index + CDATA_START.length);
        if (end < 0) return undefined;
        end += CDATA_END.length;
      } else return undefined; // A DOCTYPE (entities): not a shape to cut.
    } else if (next === QUESTION) {
      end = bytes.indexOf(PI_END, index + 2);
      if (end < 0) return undefined;
      end += PI_END.length;
    } else {
      const closing = next === SLASH;
      const tagEnd = findTagEnd(bytes, index + 1);
      if (tagEnd < 0) return undefined;
      end = tagEnd + 1;
      const selfClosing = !closing && bytes[tagEnd - 1] === SLASH;
      if (closing) {
        depth -= 1;
        if (depth < 0) return undefined;
        if (depth === 1 && bodyStart >= 0 && bodyEnd < 0) {
          bodyEnd = index;
          if (bodyEnd > sliceStart || ranges.length === 0) ranges.push([sliceStart, bodyEnd]);
        } else if (depth === 2 && bodyStart >= 0 && bodyEnd < 0 && end - sliceStart >= target) {
          ranges.push([sliceStart, end]);
          sliceStart = end;
        }
      } else if (!selfClosing) {
        depth += 1;
        if (depth === 2 && bodyStart < 0 && isBody(bytes, index + 1, tagEnd)) {
          bodyStart = end;
          sliceStart = end;
        }
      } else if (depth === 2 && bodyStart >= 0 && bodyEnd < 0 && end - sliceStart >= target) {
        ranges.push([sliceStart, end]);
        sliceStart = end;
      }
    }
    index = bytes.indexOf(LESS_THAN, end);
  }
  if (depth !== 0 || bodyStart < 0 || bodyEnd < 0) return undefined;
  return { bodyStart, bodyEnd, ranges };
}

/** The `>` ending the tag whose name starts at `from`, past quoted attribute values; -1 if none. */
function findTagEnd(bytes: Buffer, from: number): number {
  let index = from;
  while (index < bytes.length) {
    const byte = bytes[index];
    if (byte === GREATER_THAN) return index;
    if (byte === DOUBLE_QUOTE || byte === SINGLE_QUOTE) {
      const close = bytes.indexOf(byte, index + 1);
      if (close < 0) return -1;
      index = close + 1;
    } else index += 1;
  }
  return -1;
}

/** Whether the opening tag whose name starts at `from` is named `body`, with or without a prefix. */
function isBody(bytes: Buffer, from: number, tagEnd: number): boolean {
  let nameEnd = from;
  while (nameEnd < tagEnd && bytes[nameEnd] !== SLASH && (bytes[nameEnd] as number) > 0x20) nameEnd += 1;
  const colon = bytes.lastIndexOf(COLON, nameEnd - 1);
  const localStart = colon >= from ? colon + 1 : from;
  return bytes.subarray(localStart, nameEnd).equals(BODY);
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
