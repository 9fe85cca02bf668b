/**
 * Post slugs as WordPress makes them: sanitize_title() in its `save` context (accents removed, dashes
 * for spaces and punctuation, other non-ASCII percent-encoded, at most 200 bytes) and the uniqueness
 * rule of wp_unique_post_slug(), which appends -2, -3, ... until the slug is free.
 */
import { stripTags } from './render/html.ts';

// remove_accents(): the letters WordPress transliterates (en_US), beyond what Unicode decomposition gives.
const SPECIAL: Record<string, string> = {
  ª: 'a',
  º: 'o',
  Æ: 'AE',
  æ: 'ae',
  Ð: 'D',
  ð: 'd',
  Þ: 'TH',
  þ: 'th',
  ß: 's',
  Ø: 'O',
  ø: 'o',
  Đ: 'D',
  đ: 'd',
  Ħ: 'H',
  ħ: 'h',
  ı: 'i',
  Ĳ: 'IJ',
  ĳ: 'ij',
  ĸ: 'k',
  Ŀ: 'L',
  ŀ: 'l',
  Ł: 'L',
  ł: 'l',
  ŉ: 'n',
  Ŋ: 'N',
  ŋ: 'n',
  Œ: 'OE',
  œ: 'oe',
  Ŧ: 'T',
  ŧ: 't',
  ſ: 's',
  '€': 'E',
  '£': '',
  ɑ: 'a',
};

function transliterable(code: number): boolean {
  return (
    (code >= 0xc0 && code <= 0x17f) ||
    (code >= 0x1a0 && code <= 0x1b0) ||
    (code >= 0x1cd && code <= 0x1dc) ||
    (code >= 0x218 && code <= 0x21b) ||
    (code >= 0x1ea0 && code <= 0x1ef9)
  );
}

/** remove_accents() for the en_US locale. */
export function removeAccents(text: string): string {
  // Pure ASCII has nothing to transliterate.
  if (!/[\u0080-\uffff]/.test(text)) return text;
  let out = '';
  for (const ch of text) {
    const special = SPECIAL[ch];
    if (special !== undefined) {
      out += special;
      continue;
    }
    const code = ch.codePointAt(0) ?? 0;
    if (transliterable(code) && code !== 0xd7 && code !== 0xf7) {
      const base = ch.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
      if (/^[A-Za-z]+$/.test(base)) {
        out += base;
        continue;
      }
    }
    out += ch;
  }
  return out;
}

/** utf8_uri_encode(): non-ASCII characters as lower-case %xx bytes; stops before `length` bytes. */
export function utf8UriEncode(text: string, length = 0): string {
  let out = '';
  let outLength = 0;
  const encoder = new TextEncoder();
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    let piece: string;
    if (code < 128) piece = ch;
    else piece = [...encoder.encode(ch)].map((b) => `%${b.toString(16)}`).join('');
    if (length && outLength + piece.length > length) break;
    out += piece;
    outLength += piece.length;
  }
  return out;
}

const SAVE_STRIP = [
  '%c2%ad',
  '%c2%a1',
  '%c2%bf',
  '%c2%ab',
  '%c2%bb',
  '%e2%80%b9',
  '%e2%80%ba',
  '%e2%80%98',
  '%e2%80%99',
  '%e2%80%9c',
  '%e2%80%9d',
  '%e2%80%9a',
  '%e2%80%9b',
  '%e2%80%9e',
  '%e2%80%9f',
  '%e2%80%a2',
  '%c2%a9',
  '%c2%ae',
  '%c2%b0',
  '%e2%80%a6',
  '%e2%84%a2',
  '%c2%b4',
  '%cb%8a',
  '%cc%81',
  '%cd%81',
  '%cc%80',
  '%cc%84',
  '%cc%8c',
  '%e2%80%8b',
  '%e2%80%8c',
  '%e2%80%8d',
  '%e2%80%8e',
  '%e2%80%8f',
  '%e2%80%aa',
  '%e2%80%ab',
  '%e2%80%ac',
  '%e2%80%ad',
  '%e2%80%ae',
  '%ef%bb%bf',
  '%ef%bf%bc',
];
const SAVE_DASH = [
  '%e2%80%80',
  '%e2%80%81',
  '%e2%80%82',
  '%e2%80%83',
  '%e2%80%84',
  '%e2%80%85',
  '%e2%80%86',
  '%e2%80%87',
  '%e2%80%88',
  '%e2%80%89',
  '%e2%80%8a',
  '%e2%80%a8',
  '%e2%80%a9',
  '%e2%80%af',
];

/** sanitize_title_with_dashes(). */
export function sanitizeTitleWithDashes(title: string, context: 'display' | 'save' | 'query' = 'display'): string {
  // Letters, digits, spaces, dots, dashes and underscores only (most titles and requested slugs): of the
  // dozen passes below, only these do anything, whatever the context (~1 against ~15 µs a title).
  if (PLAIN_TITLE.test(title))
    return title.slice(0, 200).toLowerCase().replace(PLAIN_SEPARATORS, '-').replace(EDGE_DASH, '');
  return sanitizeAnyTitleWithDashes(title, context);
}

const PLAIN_TITLE = /^[A-Za-z0-9 ._-]*$/;
const PLAIN_SEPARATORS = /[ .-]+/g;
const EDGE_DASH = /^-|-$/g;

/** sanitizeTitleWithDashes() of any title, every pass applied (exported for the test of the fast path). */
export function sanitizeAnyTitleWithDashes(title: string, context: 'display' | 'save' | 'query' = 'display'): string {
  let t = stripTags(title);
  t = t.replace(/%([a-fA-F0-9][a-fA-F0-9])/g, '---$1---');
  t = t.replaceAll('%', '');
  t = t.replace(/---([a-fA-F0-9][a-fA-F0-9])---/g, '%$1');
  t = utf8UriEncode(t.toLowerCase(), 200);
  t = t.toLowerCase();
  if (context === 'save') {
    for (const s of ['%c2%a0', '%e2%80%93', '%e2%80%94']) t = t.replaceAll(s, '-');
    for (const s of ['&nbsp;', '&#160;', '&ndash;', '&#8211;', '&mdash;', '&#8212;']) t = t.replaceAll(s, '-');
    t = t.replaceAll('/', '-');
    for (const s of SAVE_STRIP) t = t.replaceAll(s, '');
    for (const s of SAVE_DASH) t = t.replaceAll(s, '-');
    t = t.replaceAll('%c3%97', 'x');
  }
  t = t.replace(/&.+?;/g, '');
  t = t.replaceAll('.', '-');
  t = t.replace(/[^%a-z0-9 _-]/g, '');
  t = t.replace(/\s+/g, '-');
  t = t.replace(/-+/g, '-');
  return t.replace(/^-+|-+$/g, '');
}

/** sanitize_title() in the `save` context: what a title or a requested slug becomes as a post slug. */
export function sanitizeTitle(title: string, fallback = ''): string {
  // A pure function that costs ~10 µs a title (a dozen passes over the text), asked for every post of an
  // edit-context list on every request: the results of recent titles are kept.
  let out = sanitizedTitles.get(title);
  if (out === undefined) {
    out = sanitizeTitleWithDashes(removeAccents(title), 'save');
    if (sanitizedTitles.size >= 5000) sanitizedTitles.clear();
    sanitizedTitles.set(title, out);
  }
  return out === '' ? fallback : out;
}

const sanitizedTitles = new Map<string, string>();

/** sanitize_title_for_query(): how a slug in a query is normalised before comparing. */
export function sanitizeTitleForQuery(title: string): string {
  return sanitizeTitleWithDashes(title, 'query');
}

/** _truncate_post_slug(): at most `length` bytes, no trailing dash. */
export function truncateSlug(slug: string, length = 200): string {
  let out = slug;
  if (Buffer.byteLength(out) > length) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(out);
    } catch {
      decoded = out;
    }
    out = decoded === out ? out.slice(0, length) : utf8UriEncode(decoded, length);
  }
  return out.replace(/-+$/, '');
}

/** The slugs a post may never have: feed names and `embed` (rewrite endpoints). */
export const RESERVED_SLUGS = new Set(['feed', 'rdf', 'rss', 'rss2', 'atom', 'embed']);

/** Whether a flat (post) slug would clash with a date archive under the `/%postname%/` structure. */
export function conflictsWithDateArchive(slug: string, permalinkStructure: string): boolean {
  if (!/^[0-9]+$/.test(slug)) return false;
  const num = Number(slug);
  if (!num) return false;
  const parts = permalinkStructure.split('/').filter((p) => p !== '');
  const index = parts.indexOf('%postname%');
  if (index === -1) return false;
  return index === 0 || (parts[index - 1] === '%year%' && num < 13) || (parts[index - 1] === '%monthnum%' && num < 32);
}

/**
 * wp_unique_post_slug(): `slug`, or `slug-2`, `slug-3`, ... — the first that `isTaken` says is free and
 * that is not reserved. Drafts and pending posts keep their slug as given (WordPress only makes it
 * unique on publication); `hierarchical` types also refuse `page`-like numeric slugs.
 */
export async function uniqueSlug(
  slug: string,
  options: {
    status: string;
    type: string;
    hierarchical: boolean;
    permalinkStructure: string;
    /** The post's current slug (a post may keep a numeric slug it already has). */
    currentSlug?: string | undefined;
    isTaken: (candidate: string) => Promise<boolean>;
  },
): Promise<string> {
  if (['draft', 'pending', 'auto-draft'].includes(options.status)) return slug;
  if (options.status === 'inherit' && options.type === 'revision') return slug;
  if (options.type === 'nav_menu_item') return slug;
  const bad = (candidate: string, first: boolean): boolean => {
    if (RESERVED_SLUGS.has(candidate)) return true;
    if (options.hierarchical) return /^(page)?\d+$/.test(candidate);
    if (first && options.type === 'post' && options.currentSlug !== candidate) {
      return conflictsWithDateArchive(candidate, options.permalinkStructure);
    }
    return false;
  };
  if (!(await options.isTaken(slug)) && !bad(slug, true)) return slug;
  for (let suffix = 2; ; suffix++) {
    const candidate = `${truncateSlug(slug, 200 - (String(suffix).length + 1))}-${suffix}`;
    if (!(await options.isTaken(candidate))) return candidate;
  }
}
