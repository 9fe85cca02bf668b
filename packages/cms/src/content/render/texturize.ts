/**
 * Smart typography as WordPress applies it to titles, content and excerpts (wptexturize): curly quotes,
 * apostrophes, primes, dashes, ellipses, the multiplication sign and bare ampersands, leaving HTML tags,
 * comments, `pre`/`code`/`kbd`/`style`/`script`/`tt` elements and `[code]` shortcodes alone.
 */

import { phpTrim } from './html.ts';

const OPEN_QUOTE = '&#8220;';
const CLOSE_QUOTE = '&#8221;';
const APOS = '&#8217;';
const PRIME = '&#8242;';
const DOUBLE_PRIME = '&#8243;';
const OPEN_SINGLE = '&#8216;';
const CLOSE_SINGLE = '&#8217;';
const EN_DASH = '&#8211;';
const EM_DASH = '&#8212;';

const OPEN_Q_FLAG = '<!--oq-->';
const OPEN_SQ_FLAG = '<!--osq-->';
const APOS_FLAG = '<!--apos-->';

/** wp_spaces_regexp(): ASCII white space, the UTF-8 no-break space and its entity. */
export const SPACES = '[\\r\\n\\t ]|\\u00a0|&nbsp;';
const S = SPACES;
/** PCRE's `\Z`: the end, or just before a final newline. */
const END = '\\n?$';

// A possible shortcode name after `[` or `[/` (no control characters, space, `<>&/[]=`).
// biome-ignore lint/suspicious/noControlCharactersInRegex: WordPress excludes control characters from shortcode names
const SHORTCODE_NAME = /\[\/?([^<>&/[\]\x00-\x20=]+)/g;

const NO_TEXTURIZE_TAGS = ['pre', 'code', 'kbd', 'style', 'script', 'tt'];
const NO_TEXTURIZE_SHORTCODES = ['code'];

const COCKNEY = ["'tain't", "'twere", "'twas", "'tis", "'twill", "'til", "'bout", "'nuff", "'round", "'cause", "'em"];

const STATIC_PAIRS: [string, string][] = [
  ['...', '&#8230;'],
  ['``', OPEN_QUOTE],
  ["''", CLOSE_QUOTE],
  [' (tm)', ' &#8482;'],
];
/** Applied after STATIC_PAIRS, as WordPress lists them after those. */
const COCKNEY_PAIRS = COCKNEY.map((w): [string, string] => [w, w.replaceAll("'", APOS)]);

const APOS_PATTERNS: [RegExp, string][] = [
  // '99' and '99" are ambiguous; assume an abbreviated year at the end of a quotation.
  [new RegExp(`'(\\d\\d)'(?=${END}|[.,:;!?)}\\-\\]]|&gt;|${S})`, 'g'), `${APOS_FLAG}$1${CLOSE_SINGLE}`],
  [new RegExp(`'(\\d\\d)"(?=${END}|[.,:;!?)}\\-\\]]|&gt;|${S})`, 'g'), `${APOS_FLAG}$1${CLOSE_QUOTE}`],
  // '99 '99s '99's, but never '9 or '99% or '999 or '99.0.
  [new RegExp(`'(?=\\d\\d(?:${END}|(?![%\\d]|[.,]\\d)))`, 'g'), APOS_FLAG],
  // Quoted numbers like '0.42'.
  [new RegExp(`(?<=^|${S})'(\\d[.,\\d]*)'`, 'g'), `${OPEN_SQ_FLAG}$1${CLOSE_SINGLE}`],
  // A single quote at the start, or after ( { < [ " - or a space.
  [new RegExp(`(?<=^|[([{"\\-]|&lt;|${S})'`, 'g'), OPEN_SQ_FLAG],
  // An apostrophe inside a word.
  [new RegExp(`(?<!${S})'(?!${END}|[.,:;!?"'(){}[\\]\\-]|&[lg]t;|${S})`, 'g'), APOS_FLAG],
];

const QUOTE_PATTERNS: [RegExp, string][] = [
  [new RegExp(`(?<=^|${S})"(\\d[.,\\d]*)"`, 'g'), `${OPEN_Q_FLAG}$1${CLOSE_QUOTE}`],
  [new RegExp(`(?<=^|[([{\\-]|&lt;|${S})"(?!${S})`, 'g'), OPEN_Q_FLAG],
];

const DASH_PATTERNS: [RegExp, string][] = [
  [/---/g, EM_DASH],
  [new RegExp(`(?<=^|${S})--(?=\\n?$|${S})`, 'g'), EM_DASH],
  [/(?<!xn)--/g, EN_DASH],
  [new RegExp(`(?<=^|${S})-(?=\\n?$|${S})`, 'g'), EN_DASH],
];

/** An `&` that does not start an entity. */
const BARE_AMP = /&(?!#(?:\d+|x[a-f0-9]+);|[a-z1-4]{1,8};)/gi;
const TIMES = /\b(0[\d.,]+|[1-9][\d.,]*)x(\d[\d.,]*)\b/g;

// An HTML comment (possibly unterminated) or any other tag (possibly unterminated).
const HTML_PART = '<(?:(?=!--)!(?:-(?!->)[^-]*)*(?:-->)?|(?!!--)[^>]*>?)';
/** The split of a text with no registered shortcode in it. */
const SPLIT_HTML = new RegExp(`(${HTML_PART})`);

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

function shortcodeRegex(tagnames: string[]): string {
  const tags = tagnames.map(escapeRegExp).join('|');
  return `\\[[/[]?(?:${tags})(?=[\\s\\]/])(?:[^[\\]<>]+|<[^[\\]>]*>)*\\]\\]?`;
}

function replaceAll(text: string, pairs: [RegExp, string][]): string {
  let out = text;
  for (const [re, replacement] of pairs) out = out.replace(re, replacement);
  return out;
}

function phpTrimIsEmpty(s: string): boolean {
  return phpTrim(s) === '';
}

/** Tracks opening and closing of the elements inside which nothing is texturized. */
function pushPop(text: string, stack: string[], disabled: string[]): void {
  let opening: boolean;
  let nameOffset: number;
  if (text.length > 1 && text[1] !== '/') {
    opening = true;
    nameOffset = 1;
  } else if (stack.length === 0) {
    return;
  } else {
    opening = false;
    nameOffset = 2;
  }
  const space = text.indexOf(' ');
  // PHP's substr() with a negative length counts from the end.
  const tag = space === -1 ? text.slice(nameOffset, -1) : text.slice(nameOffset, space);
  if (!disabled.includes(tag)) return;
  if (opening) stack.push(tag);
  else if (stack[stack.length - 1] === tag) stack.pop();
}

function countOccurrences(haystack: string, needle: string): number {
  if (needle === '') return 0;
  let n = 0;
  let i = haystack.indexOf(needle);
  while (i !== -1) {
    n++;
    i = haystack.indexOf(needle, i + needle.length);
  }
  return n;
}

/** wptexturize_primes(): decides, sentence by sentence, which quotes close a quotation and which are primes. */
function texturizePrimes(
  haystack: string,
  needle: string,
  prime: string,
  openQuote: string,
  closeQuote: string,
): string {
  const flag = '<!--wp-prime-or-quote-->';
  const quotePattern = new RegExp(`${needle}(?=${END}|[.,:;!?)}\\-\\]]|&gt;|${S})`, 'g');
  const primePattern = new RegExp(`(?<=\\d)${needle}`, 'g');
  const flagAfterDigit = new RegExp(`(?<=\\d)${flag}`, 'g');
  const flagNoDigit = new RegExp(`(?<!\\d)${flag}`, 'g');

  const sentences = haystack.split(openQuote);
  for (let key = 0; key < sentences.length; key++) {
    let sentence = sentences[key] ?? '';
    if (!sentence.includes(needle)) continue;
    if (key !== 0 && countOccurrences(sentence, closeQuote) === 0) {
      let count = 0;
      sentence = sentence.replace(quotePattern, () => {
        count++;
        return flag;
      });
      if (count > 1) {
        // Several closing-quote candidates: a quote not after a digit closes the quotation.
        let count2 = 0;
        sentence = sentence.replace(flagNoDigit, () => {
          count2++;
          return closeQuote;
        });
        if (count2 === 0) {
          const withPeriod = countOccurrences(sentence, `${flag}.`);
          const pos = withPeriod > 0 ? sentence.lastIndexOf(`${flag}.`) : sentence.lastIndexOf(flag);
          sentence = sentence.slice(0, pos) + closeQuote + sentence.slice(pos + flag.length);
        }
        sentence = sentence.replace(primePattern, prime);
        sentence = sentence.replace(flagAfterDigit, prime);
        sentence = sentence.replaceAll(flag, closeQuote);
      } else if (count === 1) {
        sentence = sentence.replaceAll(flag, closeQuote);
        sentence = sentence.replace(primePattern, prime);
      } else {
        sentence = sentence.replace(primePattern, prime);
      }
    } else {
      sentence = sentence.replace(primePattern, prime);
      sentence = sentence.replace(quotePattern, closeQuote);
    }
    if (needle === '"' && sentence.includes('"')) sentence = sentence.replaceAll('"', closeQuote);
    sentences[key] = sentence;
  }
  return sentences.join(openQuote);
}

function texturizeText(text: string): string {
  let curl = text;
  for (const [from, to] of STATIC_PAIRS) curl = curl.replaceAll(from, to);
  // The cockney words all hold an apostrophe: one scan instead of one per word when there is none.
  if (curl.includes("'")) for (const [from, to] of COCKNEY_PAIRS) curl = curl.replaceAll(from, to);
  if (curl.includes("'")) {
    curl = replaceAll(curl, APOS_PATTERNS);
    curl = texturizePrimes(curl, "'", PRIME, OPEN_SQ_FLAG, CLOSE_SINGLE);
    curl = curl.replaceAll(APOS_FLAG, APOS).replaceAll(OPEN_SQ_FLAG, OPEN_SINGLE);
  }
  if (curl.includes('"')) {
    curl = replaceAll(curl, QUOTE_PATTERNS);
    curl = texturizePrimes(curl, '"', DOUBLE_PRIME, OPEN_Q_FLAG, CLOSE_QUOTE);
    curl = curl.replaceAll(OPEN_Q_FLAG, OPEN_QUOTE);
  }
  if (curl.includes('-')) curl = replaceAll(curl, DASH_PATTERNS);
  if (/(?<=\d)x\d/.test(curl)) curl = curl.replace(TIMES, '$1&#215;$2');
  return curl.replace(BARE_AMP, '&#038;');
}

/**
 * wptexturize(). `shortcodeTags` are the registered shortcode names: a registered shortcode is left
 * untouched, and `[code]...[/code]` content is not texturized.
 */
export function texturize(text: string, shortcodeTags: readonly string[] = []): string {
  if (text === '' || text === '0') return text;
  // Without a tag, a comment or a shortcode the text is one part, texturized unless it is white space.
  if (!text.includes('<') && !text.includes('[')) return phpTrimIsEmpty(text) ? text : texturizeText(text);
  const found = new Set<string>();
  if (text.includes('[')) {
    for (const m of text.matchAll(SHORTCODE_NAME)) {
      if (m[1] !== undefined && shortcodeTags.includes(m[1])) found.add(m[1]);
    }
  }
  const tagnames = shortcodeTags.filter((t) => found.has(t));
  const scRegex = tagnames.length > 0 ? shortcodeRegex(tagnames) : '';
  const split = scRegex ? new RegExp(`(${HTML_PART}|${scRegex})`) : SPLIT_HTML;
  const scWhole = scRegex ? new RegExp(`^${scRegex}$`) : null;

  const tagStack: string[] = [];
  const shortcodeStack: string[] = [];
  const parts = text.split(split).filter((p) => p !== '');
  for (let i = 0; i < parts.length; i++) {
    const curl = parts[i] ?? '';
    const first = curl[0];
    if (first === '<') {
      if (curl.startsWith('<!--')) continue;
      const fixed = curl.replace(BARE_AMP, '&#038;');
      parts[i] = fixed;
      pushPop(fixed, tagStack, NO_TEXTURIZE_TAGS);
    } else if (phpTrimIsEmpty(curl)) {
      // White space between delimiters: nothing to do.
    } else if (first === '[' && scWhole?.test(curl)) {
      if (!curl.startsWith('[[') && !curl.endsWith(']]')) pushPop(curl, shortcodeStack, NO_TEXTURIZE_SHORTCODES);
    } else if (shortcodeStack.length === 0 && tagStack.length === 0) {
      parts[i] = texturizeText(curl);
    }
  }
  return parts.join('');
}
