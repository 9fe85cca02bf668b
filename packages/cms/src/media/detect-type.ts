import { fileTypeFromBuffer } from 'file-type';
import { MediaError } from './errors.ts';
import { ALLOWED_MIME_TYPES, mimeForFilename } from './mime-types.ts';

/** The type an upload was accepted as. */
export interface DetectedType {
  /** Lower-cased extension of the file name. */
  ext: string;
  /** MIME type stored for the attachment (WordPress's type for that extension). */
  mime: string;
}

/**
 * Extensions reported by `file-type` that stand for a family of WordPress extensions: container formats
 * (ZIP for Office Open XML and OpenDocument, OLE2 "cfb" for legacy Office, ISO media for MP4/M4A/3GP, Ogg,
 * Matroska, ASF) cannot tell their members apart by the first bytes alone.
 */
const EQUIVALENT: Readonly<Record<string, readonly string[]>> = {
  jpg: ['jpg', 'jpeg', 'jpe'],
  tif: ['tif', 'tiff'],
  heic: ['heic', 'heif'],
  cfb: ['doc', 'pot', 'pps', 'ppt', 'xla', 'xls', 'xlt', 'xlw', 'mpp', 'wri', 'mdb', 'onetoc', 'onetoc2', 'onepkg'],
  zip: [
    'zip',
    'docx',
    'docm',
    'dotx',
    'dotm',
    'xlsx',
    'xlsm',
    'xlsb',
    'xltx',
    'xltm',
    'xlam',
    'pptx',
    'pptm',
    'ppsx',
    'ppsm',
    'potx',
    'potm',
    'ppam',
    'sldx',
    'sldm',
    'odt',
    'odp',
    'ods',
    'odg',
    'odc',
    'odb',
    'odf',
    'key',
    'numbers',
    'pages',
    'oxps',
    'xps',
  ],
  mp4: ['mp4', 'm4v', 'm4a', 'm4b', 'mov', 'qt', '3gp', '3gpp', '3g2', '3gp2'],
  m4v: ['mp4', 'm4v'],
  m4a: ['m4a', 'm4b', 'mp4'],
  m4b: ['m4a', 'm4b'],
  mov: ['mov', 'qt', 'mp4'],
  '3gp': ['3gp', '3gpp', 'mp4'],
  '3g2': ['3g2', '3gp2', 'mp4'],
  ogg: ['ogg', 'oga', 'ogv'],
  oga: ['ogg', 'oga'],
  ogv: ['ogv', 'ogg'],
  opus: ['ogg', 'oga'],
  ogx: ['ogg', 'oga', 'ogv'],
  ogm: ['ogv', 'ogg'],
  mkv: ['mkv', 'mka', 'webm'],
  webm: ['webm', 'mkv', 'mka'],
  asf: ['asf', 'asx', 'wmv', 'wma', 'wm', 'wmx', 'wax'],
  mpg: ['mpeg', 'mpg', 'mpe'],
  mp3: ['mp3'],
  mp2: ['mp3', 'mpeg', 'mpg'],
  mid: ['mid', 'midi'],
  gz: ['gz', 'gzip'],
  xml: ['dfxp'],
};

/** Text formats `file-type` cannot recognise from magic bytes (it has none to find). */
const TEXT_EXTENSIONS = new Set([
  'txt',
  'asc',
  'c',
  'cc',
  'h',
  'srt',
  'csv',
  'tsv',
  'ics',
  'rtx',
  'css',
  'vtt',
  'dfxp',
]);

/**
 * Decides an upload's type from its bytes, not from what the client claims. The name's extension must be
 * an allowed type, and the bytes must be a file of that type: a PNG named `.jpg`, a script named `.png` or
 * an executable named `.pdf` are rejected. Text formats, which have no signature, are accepted only when the
 * bytes are text (valid UTF-8 without NUL bytes) and do not carry another format's signature.
 */
export async function detectUploadType(
  bytes: Uint8Array,
  filename: string,
  allowed: Readonly<Record<string, string>> = ALLOWED_MIME_TYPES,
): Promise<DetectedType> {
  const claimed = mimeForFilename(filename, allowed);
  if (!claimed) {
    throw new MediaError(
      'upload_type_not_allowed',
      `Sorry, you are not allowed to upload this file type ("${filename}").`,
      400,
    );
  }
  const detected = await fileTypeFromBuffer(bytes);
  if (detected) {
    const family = EQUIVALENT[detected.ext] ?? [detected.ext];
    if (family.includes(claimed.ext)) return claimed;
    // file-type reads XML calendars/subtitles as generic text formats; accept their own extensions.
    if (TEXT_EXTENSIONS.has(claimed.ext) && (detected.ext === claimed.ext || detected.ext === 'xml')) return claimed;
    throw new MediaError(
      'upload_type_mismatch',
      `The file "${filename}" is named as ${claimed.mime} but its content is ${detected.mime}.`,
      400,
    );
  }
  if (TEXT_EXTENSIONS.has(claimed.ext) && looksLikeText(bytes)) return claimed;
  throw new MediaError(
    'upload_type_mismatch',
    `The content of "${filename}" is not a valid ${claimed.mime} file.`,
    400,
  );
}

/** Whether bytes are UTF-8 text without NUL bytes (binary formats nearly always contain some). */
export function looksLikeText(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}
