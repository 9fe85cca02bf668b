/**
 * The small HTML text utilities WordPress's content filters are built from: PHP's strip_tags,
 * wp_strip_all_tags, convert_chars, normalize_whitespace, force_balance_tags, wp_html_split and the
 * esc_* escapers. Each follows WordPress's (and PHP's) rules, because rendered output is compared with
 * WordPress's byte for byte.
 */

/**
 * PHP's strip_tags(): removes tags, comments and processing instructions; a `<` followed by white space
 * is text; a `>` inside a quoted attribute value does not end the tag.
 */
export function stripTags(text: string): string {
  let out = '';
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i];
    if (c !== '<') {
      if (c === '\0') {
        i++;
        continue;
      }
      out += c;
      i++;
      continue;
    }
    const next = text[i + 1];
    if (next === undefined || /[\s]/.test(next)) {
      out += c;
      i++;
      continue;
    }
    if (text.startsWith('<!--', i)) {
      const end = text.indexOf('-->', i + 4);
      i = end === -1 ? n : end + 3;
      continue;
    }
    // A tag: skip to the matching '>' outside quotes (nested '<' deepen the level, as PHP does).
    let j = i + 1;
    let depth = 1;
    let quote: string | null = null;
    while (j < n) {
      const ch = text[j];
      if (quote) {
        if (ch === quote) quote = null;
      } else if (ch === '"' || ch === "'") {
        quote = ch;
      } else if (ch === '<') {
        depth++;
      } else if (ch === '>') {
        depth--;
        if (depth === 0) break;
      }
      j++;
    }
    i = j + 1;
  }
  return out;
}

/** wp_strip_all_tags(): strip_tags that also drops the content of script and style elements, then trims. */
export function stripAllTags(text: string, removeBreaks = false): string {
  let out = text.replace(/<(script|style)[^>]*?>[\s\S]*?<\/\1>/gi, '');
  out = stripTags(out);
  if (removeBreaks) out = out.replace(/[\r\n\t ]+/g, ' ');
  return phpTrim(out);
}

/** PHP's trim() with its default character list. */
export function phpTrim(text: string, chars = ' \t\n\r\0\x0B'): string {
  let start = 0;
  let end = text.length;
  while (start < end && chars.includes(text[start] as string)) start++;
  while (end > start && chars.includes(text[end - 1] as string)) end--;
  return text.slice(start, end);
}

/** convert_chars(): a bare `&` becomes `&#038;`. */
export function convertChars(content: string): string {
  if (!content.includes('&')) return content;
  return content.replace(/&([^#])(?![a-z1-4]{1,8};)/gi, '&#038;$1');
}

/** normalize_whitespace(): trims, unifies line breaks and collapses runs of spaces and of newlines. */
export function normalizeWhitespace(text: string): string {
  return phpTrim(text)
    .replace(/\r/g, '\n')
    .replace(/\n+/g, '\n')
    .replace(/[ \t]+/g, ' ');
}

// An HTML comment or CDATA section (possibly unterminated), or any other tag (possibly unterminated).
const HTML_SPLIT =
  /(<(?:(?=!--|!\[CDATA\[)(?:(?=!-)!(?:-(?!->)[^-]*)*(?:-->)?|!\[CDATA\[[^\]]*(?:\](?!\]>)[^\]]*)*(?:\]\]>)?)|(?!!--|!\[CDATA\[)[^>]*>?))/;

/** wp_html_split(): text and tags, alternating (text first, possibly empty). */
export function splitHtml(input: string): string[] {
  return input.split(HTML_SPLIT);
}

/** wp_replace_in_html_tags(): replaces strings inside tags (and comments) only. */
export function replaceInHtmlTags(haystack: string, pairs: Record<string, string>): string {
  const parts = splitHtml(haystack);
  const needles = Object.keys(pairs);
  let changed = false;
  for (let i = 1; i < parts.length; i += 2) {
    const part = parts[i] as string;
    if (needles.some((needle) => part.includes(needle))) {
      let replaced = part;
      for (const needle of needles) replaced = replaced.replaceAll(needle, pairs[needle] as string);
      parts[i] = replaced;
      changed = true;
    }
  }
  return changed ? parts.join('') : haystack;
}

const SINGLE_TAGS = new Set([
  'area',
  'base',
  'basefont',
  'br',
  'col',
  'command',
  'embed',
  'frame',
  'hr',
  'img',
  'input',
  'isindex',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);
const NESTABLE_TAGS = new Set([
  'article',
  'aside',
  'blockquote',
  'details',
  'div',
  'figure',
  'object',
  'q',
  'section',
  'span',
]);
const TAG_PATTERN = /<(\/?)((?:[a-z](?:[a-z0-9._]*)-(?:[a-z0-9._-]+)+)|(?:[\w:]+))(?:\s*(\/?)|(\s+)([^>]*))>/;

/** force_balance_tags(): closes unclosed tags and drops stray closing tags, as WordPress does for teasers. */
export function forceBalanceTags(input: string): string {
  const stack: string[] = [];
  // How many of each tag are open: a closing tag for none skips the scan of the stack, which made stray
  // closing tags under deep nesting quadratic (20,000 `</span>` under 20,000 `<div>`: 0.6 s, growing fourfold).
  const open = new Map<string, number>();
  const push = (name: string) => {
    stack.push(name);
    open.set(name, (open.get(name) ?? 0) + 1);
  };
  const pop = (): string | undefined => {
    const name = stack.pop();
    if (name !== undefined) open.set(name, (open.get(name) ?? 1) - 1);
    return name;
  };
  let queue = '';
  let out = '';
  let text = input.replaceAll('< !--', '<    !--').replace(/<([0-9])/g, '&lt;$1');
  for (let m = TAG_PATTERN.exec(text); m !== null; m = TAG_PATTERN.exec(text)) {
    const full = m[0];
    const closing = m[1] !== '';
    let tag = (m[2] as string).toLowerCase();
    const single = SINGLE_TAGS.has(tag);
    let preWs = m[4] ?? '';
    let attributes = phpTrim(m[5] ?? m[3] ?? '');
    const selfCloser = attributes.endsWith('/');
    out += queue;
    const at = m.index;
    queue = '';
    if (closing) {
      if (stack.length === 0) {
        tag = '';
      } else if (stack[stack.length - 1] === tag) {
        tag = `</${tag}>`;
        pop();
      } else {
        if ((open.get(tag) ?? 0) > 0) {
          // Everything above the nearest open one is closed with it.
          for (let name = pop(); name !== undefined; name = pop()) {
            queue += `</${name}>`;
            if (name === tag) break;
          }
        }
        tag = '';
      }
    } else {
      if (selfCloser) {
        if (!single) attributes = `${phpTrim(attributes.slice(0, -1))}></${tag}`;
      } else if (single) {
        preWs = ' ';
        attributes += '/';
      } else {
        if (stack.length > 0 && !NESTABLE_TAGS.has(tag) && stack[stack.length - 1] === tag) {
          queue = `</${pop()}>`;
        }
        push(tag);
      }
      if (selfCloser && single) preWs = ' ';
      tag = `<${tag}${preWs}${attributes}>`;
      if (queue !== '') {
        queue += tag;
        tag = '';
      }
    }
    out += text.slice(0, at) + tag;
    text = text.slice(at + full.length);
  }
  out += queue + text;
  for (let x = stack.pop(); x; x = stack.pop()) out += `</${x}>`;
  return out.replaceAll('< !--', '<!--').replaceAll('<    !--', '< !--');
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#039;' };

/**
 * _wp_specialchars() with ENT_QUOTES and no double encoding (what esc_html and esc_attr do): existing
 * valid entities are kept.
 */
export function escHtml(text: string): string {
  if (!/[&<>"']/.test(text)) return text;
  return text.replace(/&(?!#(?:\d+|x[0-9a-f]+);|[a-z][a-z0-9]*;)|[<>"']/gi, (c) => HTML_ESCAPES[c[0] as string] ?? c);
}

/** esc_attr(): the same escaping as esc_html. */
export const escAttr = escHtml;
