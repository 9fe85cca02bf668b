import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { GRAPH_SECTIONS, type GraphArrays, type GraphMeta } from './graph-data.ts';
import { RoadGraph } from './road-graph.ts';

/** First 8 bytes of every graph file. */
export const GRAPH_MAGIC = 'SVCROADS';
/** Bumped whenever the section list or the meaning of a field changes; old files must be rebuilt. */
export const GRAPH_FILE_VERSION = 1;

const HEADER_FIXED_BYTES = 16; // magic (8) + version (4) + JSON length (4)

interface SectionEntry {
  name: keyof GraphArrays;
  type: string;
  byteOffset: number;
  length: number;
}

interface FileHeader {
  meta: GraphMeta;
  littleEndian: boolean;
  sections: SectionEntry[];
}

const CONSTRUCTORS = {
  Float64Array,
  Float32Array,
  Uint32Array,
  Int32Array,
  Uint16Array,
  Uint8Array,
} as const;

const IS_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

const align8 = (n: number) => (n + 7) & ~7;

/** Serialises a graph into the versioned binary format (magic, version, JSON header, 8-byte aligned arrays). */
export function serialiseGraph(graph: RoadGraph): Buffer {
  const sections: SectionEntry[] = [];
  // The header's own length depends on the offsets it lists, so lay the sections out relative to a data start
  // and shift them once the header size is known.
  let relative = 0;
  for (const [name, type] of GRAPH_SECTIONS) {
    const array = graph.data[name];
    sections.push({ name, type, byteOffset: relative, length: array.length });
    relative = align8(relative + array.byteLength);
  }
  const build = (dataStart: number) =>
    Buffer.from(
      JSON.stringify({
        meta: graph.meta,
        littleEndian: IS_LITTLE_ENDIAN,
        sections: sections.map((s) => ({ ...s, byteOffset: s.byteOffset + dataStart })),
      } satisfies FileHeader),
      'utf8',
    );
  let json = build(0);
  let dataStart = align8(HEADER_FIXED_BYTES + json.length);
  for (;;) {
    json = build(dataStart);
    const needed = align8(HEADER_FIXED_BYTES + json.length);
    if (needed <= dataStart) break;
    dataStart = needed;
  }
  const out = Buffer.alloc(dataStart + relative);
  out.write(GRAPH_MAGIC, 0, 'latin1');
  out.writeUInt32LE(GRAPH_FILE_VERSION, 8);
  out.writeUInt32LE(json.length, 12);
  json.copy(out, HEADER_FIXED_BYTES);
  for (const s of sections) {
    const array = graph.data[s.name];
    out.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), dataStart + s.byteOffset);
  }
  return out;
}

/** Writes a graph to a file in the binary graph format. */
export function writeGraph(graph: RoadGraph, path: string): void {
  const fail = (why: string): never => {
    throw new Error(`cannot write ${path}: ${why}`);
  };
  const folder = dirname(path);
  if (!existsSync(folder)) fail(`folder ${folder} does not exist (create it first)`);
  if (existsSync(path) && statSync(path).isDirectory()) fail('it is a folder, not a file');
  const bytes = serialiseGraph(graph);
  // Written beside it under a temporary name, then renamed: a full disk or an interruption leaves the
  // file as it was (or absent), never half written. The name cannot be foreseen and the file is created new: in a
  // folder others can write, a link put there beforehand would have the graph written into the file it points to,
  // and a file put there would become the graph, still its planter's to change.
  const partial = join(folder, `.${basename(path)}.partial-${process.pid}-${randomBytes(6).toString('hex')}`);
  try {
    const fd = openSync(partial, 'wx');
    try {
      let offset = 0;
      while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(partial, path);
  } catch (error) {
    rmSync(partial, { force: true });
    const code = (error as NodeJS.ErrnoException).code ?? '';
    const why = WRITE_PROBLEMS[code];
    fail(why ? `${why} (${code})` : code || (error as Error).message);
  }
}

const WRITE_PROBLEMS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOSPC: 'no space left on the device',
  EROFS: 'read-only file system',
  ENOTDIR: 'part of the path is a file, not a folder',
};

/** Reads a graph from bytes produced by `serialiseGraph`; `name` is used in error messages. */
export function parseGraph(bytes: Uint8Array, name = 'graph'): RoadGraph {
  // Typed-array views need aligned offsets; a pooled or sliced buffer may not start on an 8-byte boundary.
  const buffer = bytes.byteOffset % 8 === 0 ? bytes : new Uint8Array(bytes);
  const fail = (why: string): never => {
    throw new Error(`${name}: not a usable road graph file: ${why}`);
  };
  if (buffer.length < HEADER_FIXED_BYTES) fail(`only ${buffer.length} bytes`);
  const magic = Buffer.from(buffer.buffer, buffer.byteOffset, 8).toString('latin1');
  if (magic !== GRAPH_MAGIC) {
    // The extract a graph is built from is the usual mistake (`--roads monaco.osm.pbf`, TRIPS_ROAD_GRAPH): its
    // leading bytes quoted as the found magic told the user nothing.
    const head = Buffer.from(buffer.buffer, buffer.byteOffset, Math.min(64, buffer.length)).toString('latin1');
    if (head.slice(4, 20).includes('OSMHeader') || /^\uFEFF?\s*(<\?xml[^>]*\?>\s*)?<osm[\s>]/.test(head)) {
      fail(`it is an OpenStreetMap extract; build a graph from it first: roads build ${name} -o <file>.graph`);
    }
    fail(`expected magic "${GRAPH_MAGIC}", found ${JSON.stringify(magic)}`);
  }
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  const version = view.getUint32(8, true);
  if (version !== GRAPH_FILE_VERSION) {
    fail(`format version ${version}, this build reads version ${GRAPH_FILE_VERSION}; rebuild it with "roads build"`);
  }
  const jsonLength = view.getUint32(12, true);
  if (HEADER_FIXED_BYTES + jsonLength > buffer.length) fail('the header is truncated');
  let header: FileHeader;
  try {
    header = JSON.parse(
      Buffer.from(buffer.buffer, buffer.byteOffset + HEADER_FIXED_BYTES, jsonLength).toString('utf8'),
    ) as FileHeader;
  } catch {
    return fail('the header is not valid JSON');
  }
  if (header.littleEndian !== IS_LITTLE_ENDIAN) fail('it was written on a machine of the other byte order');
  const arrays: Partial<Record<keyof GraphArrays, unknown>> = {};
  for (const [name, type] of GRAPH_SECTIONS) {
    const entry = header.sections.find((s) => s.name === name);
    if (!entry || entry.type !== type) fail(`section ${name} is missing`);
    const Ctor = CONSTRUCTORS[type];
    const { byteOffset, length } = entry as SectionEntry;
    if (byteOffset % 8 !== 0 || byteOffset + length * Ctor.BYTES_PER_ELEMENT > buffer.length) {
      fail(`section ${name} lies outside the file (truncated?)`);
    }
    arrays[name] = new Ctor(buffer.buffer as ArrayBuffer, buffer.byteOffset + byteOffset, length);
  }
  const data = arrays as GraphArrays;
  if (data.nodeOutStart.length !== data.nodeLon.length + 1) fail('node arrays disagree');
  try {
    return new RoadGraph(data, header.meta);
  } catch (error) {
    return fail(`spatial index unreadable (${(error as Error).message})`);
  }
}

/** Loads a graph file written by `writeGraph`; the arrays are views over the file's bytes (no parsing). */
export function loadGraph(path: string): RoadGraph {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(`${path}: cannot read graph file (${code ?? (error as Error).message})`);
  }
  return parseGraph(bytes, path);
}
