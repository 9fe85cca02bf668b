import { ALLOWED_MIME_TYPES, isKnownExtension, KNOWN_MIME_TYPES } from './mime-types.ts';

/** Characters WordPress strips from file names (`sanitize_file_name`'s list). */
const SPECIAL_CHARS = new Set([
  '?',
  '[',
  ']',
  '/',
  '\\',
  '=',
  '<',
  '>',
  ':',
  ';',
  ',',
  "'",
  '"',
  '&',
  '$',
  '#',
  '*',
  '(',
  ')',
  '|',
  '~',
  '`',
  '!',
  '{',
  '}',
  '%',
  '+',
  '’',
  '«',
  '»',
  '”',
  '“',
  '\0',
]);

/** Letters that Unicode decomposition leaves alone but `remove_accents()` transliterates. */
const TRANSLITERATIONS: Readonly<Record<string, string>> = {
  ß: 'ss',
  Æ: 'AE',
  æ: 'ae',
  Ø: 'O',
  ø: 'o',
  Œ: 'OE',
  œ: 'oe',
  Đ: 'D',
  đ: 'd',
  Ł: 'L',
  ł: 'l',
  Þ: 'TH',
  þ: 'th',
  Ð: 'DH',
  ð: 'dh',
  ı: 'i',
  ĸ: 'k',
  ŉ: 'n',
  Ŋ: 'N',
  ŋ: 'n',
  ſ: 's',
  Ħ: 'H',
  ħ: 'h',
  Ŧ: 'T',
  ŧ: 't',
  Ĳ: 'IJ',
  ĳ: 'ij',
  Ŀ: 'L',
  ŀ: 'l',
  '€': 'E',
  '£': '',
};

/** Longest file name (in UTF-8 bytes) we keep, leaving room for `-NN` and `-2048x2048` suffixes. */
const MAX_NAME_BYTES = 180;

/** `remove_accents()`: strips diacritics from Latin letters and transliterates a few ligatures. */
export function removeAccents(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII range test, not a control character match
  if (/^[\x00-\x7f]*$/.test(text)) return text;
  const decomposed = text.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
  let out = '';
  for (const ch of decomposed) out += TRANSLITERATIONS[ch] ?? ch;
  return out.normalize('NFC');
}

/**
 * `sanitize_file_name()`: removes characters that are special in shells, URLs or file systems, turns
 * whitespace runs into a dash, trims dots, dashes and underscores from both ends, and defuses intermediate
 * "extensions" (`evil.php.jpg` → `evil.php_.jpg`) that are not known upload types. Never returns a path:
 * slashes and backslashes are removed, so the result is always a single file name.
 */
export function sanitizeFileName(filename: string): string {
  let name = removeAccents(filename).replace(/\u00a0/g, ' ');
  let kept = '';
  for (const ch of name) {
    const code = ch.codePointAt(0) ?? 0;
    // Control characters have no business in a file name on any system.
    if (SPECIAL_CHARS.has(ch) || (code < 0x20 && ch !== '\t' && ch !== '\n' && ch !== '\r') || code === 0x7f) continue;
    kept += ch;
  }
  name = kept
    .replace(/\.{2,}/g, '.')
    .replace(/[\r\n\t -]+/g, '-')
    .replace(/^[.\-_]+|[.\-_]+$/g, '');

  if (!name.includes('.') && isKnownExtension(name, KNOWN_MIME_TYPES)) {
    name = `unnamed-file.${name}`;
  }
  name = truncateName(name);

  const parts = name.split('.');
  if (parts.length <= 2) return name;

  // Several extensions: an intermediate part that looks like an extension but is not an allowed one gets a
  // trailing underscore, so no web server treats `x.php.jpg` as PHP.
  let out = parts[0] ?? '';
  const extension = parts[parts.length - 1] ?? '';
  for (const part of parts.slice(1, -1)) {
    out += `.${part}`;
    if (/^[a-zA-Z]{2,5}\d?$/.test(part) && !isKnownExtension(part, ALLOWED_MIME_TYPES)) out += '_';
  }
  return `${out}.${extension}`;
}

/** Shortens an over-long name at a character boundary, keeping its extension. */
function truncateName(name: string): string {
  if (Buffer.byteLength(name) <= MAX_NAME_BYTES) return name;
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 && name.length - dot <= 12 ? name.slice(dot) : '';
  let base = ext ? name.slice(0, dot) : name;
  while (Buffer.byteLength(base + ext) > MAX_NAME_BYTES) base = Array.from(base).slice(0, -1).join('');
  return base.replace(/[.\-_]+$/, '') + ext;
}
