import { createReadStream, type ReadStream, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { OSMTransform } from 'osm-pbf-parser-node';
import { SaxesParser } from 'saxes';

export type OsmTags = Record<string, string>;

export interface OsmNode {
  type: 'node';
  id: number;
  lon: number;
  lat: number;
  tags?: OsmTags;
}

export interface OsmWay {
  type: 'way';
  id: number;
  refs: number[];
  tags?: OsmTags;
}

export interface OsmMember {
  type: 'node' | 'way' | 'relation';
  ref: number;
  role: string;
}

export interface OsmRelation {
  type: 'relation';
  id: number;
  members: OsmMember[];
  tags?: OsmTags;
}

export type OsmElement = OsmNode | OsmWay | OsmRelation;

export type OsmFormat = 'pbf' | 'xml' | 'xml.gz';

export interface OsmReadOptions {
  /** Called as the file is consumed, with compressed bytes read so far and the file size. */
  onProgress?: (bytesRead: number, totalBytes: number) => void;
}

/** Thrown for unreadable, corrupt or truncated OSM input; the message names the file and the record. */
export class OsmInputError extends Error {
  override name = 'OsmInputError';
}

/**
 * The PBF parser throws from inside its stream callbacks on malformed data, which would escape as an uncaught
 * exception and leave the reader waiting forever; turn those throws into stream errors.
 */
class SafeOsmTransform extends OSMTransform {
  override _transform(chunk: Buffer, encoding: BufferEncoding, next: (error?: Error | null) => void): void {
    try {
      super._transform(chunk, encoding, next);
    } catch (error) {
      next(error as Error);
    }
  }

  override _flush(callback: (error?: Error | null) => void): void {
    try {
      super._flush(callback);
    } catch (error) {
      callback(error as Error);
    }
  }
}

/** Detects the encoding from the first bytes (not the extension, which may lie). */
export async function detectOsmFormat(file: string): Promise<OsmFormat> {
  let head: Buffer;
  try {
    const handle = await open(file, 'r');
    try {
      head = Buffer.alloc(64);
      const { bytesRead } = await handle.read(head, 0, 64, 0);
      head = head.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new OsmInputError(`${file}: cannot read OSM file (${code ?? (error as Error).message})`);
  }
  if (head.length === 0) throw new OsmInputError(`${file}: the file is empty`);
  if (head[0] === 0x1f && head[1] === 0x8b) return 'xml.gz';
  const text = head
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (text.startsWith('<')) return 'xml';
  // A PBF file starts with a 4-byte big-endian BlobHeader length followed by a BlobHeader of type "OSMHeader".
  if (head.length >= 8) {
    const headerLength = head.readUInt32BE(0);
    if (headerLength > 0 && headerLength < 64 * 1024 && head.includes('OSMHeader')) return 'pbf';
  }
  throw new OsmInputError(`${file}: not an OSM file (expected .osm.pbf, .osm XML or .osm.gz)`);
}

function progressStream(file: string, stream: ReadStream, options: OsmReadOptions): void {
  if (!options.onProgress) return;
  const total = statSync(file).size;
  let read = 0;
  stream.on('data', (chunk) => {
    read += chunk.length;
    options.onProgress?.(read, total);
  });
}

/**
 * Streams the elements of an OSM file (`.osm.pbf`, `.osm` or `.osm.gz`) to `onElement`, in file order
 * (nodes, then ways, then relations in sorted extracts).
 */
export async function readOsm(
  file: string,
  onElement: (element: OsmElement) => void,
  options: OsmReadOptions = {},
): Promise<{ format: OsmFormat; elements: number }> {
  const format = await detectOsmFormat(file);
  const elements =
    format === 'pbf' ? await readPbf(file, onElement, options) : await readXml(file, format, onElement, options);
  return { format, elements };
}

async function readPbf(file: string, onElement: (element: OsmElement) => void, options: OsmReadOptions) {
  const stream = createReadStream(file);
  progressStream(file, stream, options);
  let bytesRead = 0;
  stream.on('data', (chunk) => {
    bytesRead += chunk.length;
  });
  const parser = new SafeOsmTransform({ withTags: true, withInfo: false });
  let count = 0;
  let last = 'the file header';
  const fail = (error: unknown): never => {
    const why = (error as Error).message || String(error);
    const detail = why === 'input format error' ? 'unexpected end of data or malformed block' : why;
    throw new OsmInputError(
      `${file}: corrupt or truncated PBF after ${count} elements (last: ${last}, ~byte ${bytesRead}): ${detail}`,
    );
  };
  stream.on('error', (error) => parser.destroy(error));
  stream.pipe(parser);
  try {
    for await (const batch of parser as AsyncIterable<unknown[]>) {
      for (const item of batch) {
        const element = item as OsmElement | { type?: undefined };
        if (element.type === undefined) continue; // the OSMHeader block
        count++;
        last = `${element.type} ${element.id}`;
        onElement(element);
      }
    }
  } catch (error) {
    if (error instanceof OsmInputError) throw error;
    fail(error);
  }
  return count;
}

async function readXml(
  file: string,
  format: OsmFormat,
  onElement: (element: OsmElement) => void,
  options: OsmReadOptions,
): Promise<number> {
  const stream = createReadStream(file);
  progressStream(file, stream, options);
  const source = format === 'xml.gz' ? stream.pipe(createGunzip()) : stream;
  stream.on('error', (error) => source.destroy(error));
  // Decoding in the stream keeps multi-byte characters that straddle chunks intact.
  source.setEncoding('utf8');
  const parser = new SaxesParser({ position: true });
  let current: OsmElement | null = null;
  let count = 0;
  let sawOsmRoot = false;
  const where = () => `line ${parser.line}`;
  const bad = (what: string): never => {
    throw new OsmInputError(`${file}: ${what} at ${where()}`);
  };
  const number = (value: string | undefined, what: string): number => {
    const n = value === undefined ? Number.NaN : Number(value);
    if (!Number.isFinite(n)) bad(`${what} is ${value === undefined ? 'missing' : `"${value}"`}`);
    return n;
  };
  parser.on('opentag', (tag) => {
    const a = tag.attributes as Record<string, string>;
    switch (tag.name) {
      case 'osm':
      case 'osmChange':
        sawOsmRoot = true;
        break;
      case 'node': {
        const id = number(a.id, 'node id');
        const lat = number(a.lat, `node ${id}: lat`);
        const lon = number(a.lon, `node ${id}: lon`);
        if (lat < -90 || lat > 90 || lon < -180 || lon > 180) bad(`node ${id}: coordinates ${lon},${lat} out of range`);
        current = { type: 'node', id, lon, lat };
        break;
      }
      case 'way':
        current = { type: 'way', id: number(a.id, 'way id'), refs: [] };
        break;
      case 'relation':
        current = { type: 'relation', id: number(a.id, 'relation id'), members: [] };
        break;
      case 'nd':
        if (current?.type === 'way') current.refs.push(number(a.ref, `way ${current.id}: nd ref`));
        break;
      case 'member':
        if (current?.type === 'relation') {
          const type = a.type as OsmMember['type'];
          current.members.push({ type, ref: number(a.ref, `relation ${current.id}: member ref`), role: a.role ?? '' });
        }
        break;
      case 'tag':
        if (current && a.k !== undefined) {
          current.tags ??= {};
          current.tags[a.k] = a.v ?? '';
        }
        break;
      default:
        break;
    }
  });
  parser.on('closetag', (tag) => {
    if (current && tag.name === current.type) {
      count++;
      onElement(current);
      current = null;
    }
  });
  try {
    for await (const chunk of source) parser.write(chunk as string);
    parser.close();
  } catch (error) {
    if (error instanceof OsmInputError) throw error;
    const message = (error as Error).message;
    const zlib = (error as NodeJS.ErrnoException).code?.startsWith('Z_');
    if (zlib) throw new OsmInputError(`${file}: corrupt or truncated gzip data after ${count} elements (${message})`);
    throw new OsmInputError(`${file}: malformed OSM XML after ${count} elements: ${message}`);
  }
  if (!sawOsmRoot) throw new OsmInputError(`${file}: no <osm> element: not an OSM XML file`);
  return count;
}
