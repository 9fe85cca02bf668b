/**
 * The file types WordPress knows (`wp_get_mime_types()`), keyed by an extension alternation, and the subset
 * that may be uploaded (`get_allowed_mime_types()` for a user without `unfiltered_html`: no HTML, JavaScript,
 * Flash or executables, because those would run in visitors' browsers from this site's origin).
 */
export const KNOWN_MIME_TYPES: Readonly<Record<string, string>> = {
  // Image formats.
  'jpg|jpeg|jpe': 'image/jpeg',
  gif: 'image/gif',
  png: 'image/png',
  bmp: 'image/bmp',
  'tiff|tif': 'image/tiff',
  webp: 'image/webp',
  avif: 'image/avif',
  ico: 'image/x-icon',
  'heic|heif': 'image/heic',
  // Video formats.
  'asf|asx': 'video/x-ms-asf',
  wmv: 'video/x-ms-wmv',
  wmx: 'video/x-ms-wmx',
  wm: 'video/x-ms-wm',
  avi: 'video/avi',
  divx: 'video/divx',
  flv: 'video/x-flv',
  'mov|qt': 'video/quicktime',
  'mpeg|mpg|mpe': 'video/mpeg',
  'mp4|m4v': 'video/mp4',
  ogv: 'video/ogg',
  webm: 'video/webm',
  mkv: 'video/x-matroska',
  '3gp|3gpp': 'video/3gpp',
  '3g2|3gp2': 'video/3gpp2',
  // Text formats.
  'txt|asc|c|cc|h|srt': 'text/plain',
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  ics: 'text/calendar',
  rtx: 'text/richtext',
  css: 'text/css',
  'htm|html': 'text/html',
  vtt: 'text/vtt',
  dfxp: 'application/ttaf+xml',
  // Audio formats.
  'mp3|m4a|m4b': 'audio/mpeg',
  aac: 'audio/aac',
  'ra|ram': 'audio/x-realaudio',
  wav: 'audio/wav',
  'ogg|oga': 'audio/ogg',
  flac: 'audio/flac',
  'mid|midi': 'audio/midi',
  wma: 'audio/x-ms-wma',
  wax: 'audio/x-ms-wax',
  mka: 'audio/x-matroska',
  // Misc application formats.
  rtf: 'application/rtf',
  js: 'application/javascript',
  pdf: 'application/pdf',
  swf: 'application/x-shockwave-flash',
  class: 'application/java',
  tar: 'application/x-tar',
  zip: 'application/zip',
  'gz|gzip': 'application/x-gzip',
  rar: 'application/rar',
  '7z': 'application/x-7z-compressed',
  exe: 'application/x-msdownload',
  psd: 'application/octet-stream',
  xcf: 'application/octet-stream',
  // MS Office formats.
  doc: 'application/msword',
  'pot|pps|ppt': 'application/vnd.ms-powerpoint',
  wri: 'application/vnd.ms-write',
  'xla|xls|xlt|xlw': 'application/vnd.ms-excel',
  mdb: 'application/vnd.ms-access',
  mpp: 'application/vnd.ms-project',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  docm: 'application/vnd.ms-word.document.macroEnabled.12',
  dotx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.template',
  dotm: 'application/vnd.ms-word.template.macroEnabled.12',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  xlsm: 'application/vnd.ms-excel.sheet.macroEnabled.12',
  xlsb: 'application/vnd.ms-excel.sheet.binary.macroEnabled.12',
  xltx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.template',
  xltm: 'application/vnd.ms-excel.template.macroEnabled.12',
  xlam: 'application/vnd.ms-excel.addin.macroEnabled.12',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  pptm: 'application/vnd.ms-powerpoint.presentation.macroEnabled.12',
  ppsx: 'application/vnd.openxmlformats-officedocument.presentationml.slideshow',
  ppsm: 'application/vnd.ms-powerpoint.slideshow.macroEnabled.12',
  potx: 'application/vnd.openxmlformats-officedocument.presentationml.template',
  potm: 'application/vnd.ms-powerpoint.template.macroEnabled.12',
  ppam: 'application/vnd.ms-powerpoint.addin.macroEnabled.12',
  sldx: 'application/vnd.openxmlformats-officedocument.presentationml.slide',
  sldm: 'application/vnd.ms-powerpoint.slide.macroEnabled.12',
  'onetoc|onetoc2|onetmp|onepkg': 'application/onenote',
  oxps: 'application/oxps',
  xps: 'application/vnd.ms-xpsdocument',
  // OpenOffice formats.
  odt: 'application/vnd.oasis.opendocument.text',
  odp: 'application/vnd.oasis.opendocument.presentation',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  odg: 'application/vnd.oasis.opendocument.graphics',
  odc: 'application/vnd.oasis.opendocument.chart',
  odb: 'application/vnd.oasis.opendocument.database',
  odf: 'application/vnd.oasis.opendocument.formula',
  // WordPerfect formats.
  'wp|wpd': 'application/wordperfect',
  // iWork formats.
  key: 'application/vnd.apple.keynote',
  numbers: 'application/vnd.apple.numbers',
  pages: 'application/vnd.apple.pages',
};

/** Extension alternations that are never accepted as uploads (WordPress removes them for most users). */
const NEVER_UPLOADABLE = new Set(['swf', 'exe', 'htm|html', 'js']);

/** The uploadable types, keyed like {@link KNOWN_MIME_TYPES}. */
export const ALLOWED_MIME_TYPES: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(KNOWN_MIME_TYPES).filter(([exts]) => !NEVER_UPLOADABLE.has(exts)),
);

/** Lower-cased extension of a file name without the dot, or '' when it has none. */
export function extensionOf(filename: string): string {
  const base = filename.slice(filename.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}

/** The MIME type a file name's extension stands for in `types` (`wp_check_filetype`), or undefined. */
export function mimeForFilename(
  filename: string,
  types: Readonly<Record<string, string>> = ALLOWED_MIME_TYPES,
): { ext: string; mime: string } | undefined {
  const ext = extensionOf(filename);
  if (ext === '') return undefined;
  for (const [alternation, mime] of Object.entries(types)) {
    if (alternation.split('|').includes(ext)) return { ext, mime };
  }
  return undefined;
}

/** Whether an extension (no dot, any case) is listed in `types`. */
export function isKnownExtension(ext: string, types: Readonly<Record<string, string>> = ALLOWED_MIME_TYPES): boolean {
  const lower = ext.toLowerCase();
  return Object.keys(types).some((alternation) => alternation.split('|').includes(lower));
}

/** The first extension listed for a MIME type (`wp_get_default_extension_for_mime_type`). */
export function defaultExtensionForMime(mime: string): string | undefined {
  for (const [alternation, type] of Object.entries(KNOWN_MIME_TYPES)) {
    if (type === mime) return alternation.split('|')[0];
  }
  return undefined;
}

/**
 * The uploadable MIME types grouped by their top-level type (`image`, `video`, `text`, `application`,
 * `audio`), as the attachments controller's `get_media_types()` groups them for `media_type` filters.
 */
export function mediaTypeGroups(
  types: Readonly<Record<string, string>> = ALLOWED_MIME_TYPES,
): Record<string, string[]> {
  const groups: Record<string, string[]> = {};
  for (const mime of Object.values(types)) {
    const top = mime.split('/')[0] ?? mime;
    const list = groups[top] ?? [];
    if (!list.includes(mime)) list.push(mime);
    groups[top] = list;
  }
  return groups;
}
