/**
 * Shortcodes the way WordPress expands them in content (do_shortcode, strip_shortcodes,
 * shortcode_unautop). Only registered shortcodes are touched; anything else in square brackets stays
 * as written. The default registry knows `caption` (and its old name `wp_caption`), which needs nothing
 * but the text; media shortcodes (gallery, audio, video, playlist, embed) are not registered and stay
 * literal.
 */

import { escAttr, phpTrim, splitHtml } from './html.ts';

/** Parsed attributes: named ones by lower-case name, positional ones by index. */
export type ShortcodeAttributes = Record<string, string>;

/** Renders one shortcode: its attributes, the enclosed content (null when self-closing) and the tag. */
export type ShortcodeHandler = (
  attributes: ShortcodeAttributes,
  content: string | null,
  tag: string,
  registry: ShortcodeRegistry,
) => string;

/** A character that may not appear in a shortcode name (WordPress excludes control characters and space). */
const NAME_CHAR = '[^<>&/\\[\\]\\x00-\\x20=]';
const NAME_FINDER = new RegExp(`\\[(${NAME_CHAR}+)`, 'g');
const VALID_NAME = new RegExp(`^${NAME_CHAR}+$`);

/**
 * A shortcode found at a position of a text, with the groups of WordPress's get_shortcode_regex(): 1 `[` escape,
 * 2 name, 3 attributes, 4 self-closer, 5 content, 6 `]` escape; `end` is where the match ends.
 */
interface ShortcodeMatch {
  groups: (string | undefined)[];
  end: number;
}

/**
 * Finds shortcodes as get_shortcode_regex() does, in time linear in the text. That pattern, run by a
 * backtracking engine, rescans the rest of the text from every `[tag` without a `]` after it, and from every
 * opening tag without a closing one: 900 KB of "[caption " held the event loop for 234 s (PHP's backtrack limit
 * makes WordPress give up on such content instead). Here the next `]` and the next `[/tag]` are looked up once
 * and remembered, since the scan only moves forward. Semantics kept: the attributes run to the first `]` (a `/`
 * just before it makes the shortcode self-closing); the enclosed content runs to the first `[/tag]` after it,
 * when there is one; a `[` before and a `]` after are the escape groups.
 */
class ShortcodeScanner {
  readonly #text: string;
  readonly #tags: readonly string[];
  /** Position of the next `]` at or after the position last asked for (-1: none), and that position. */
  #bracket = { from: -1, at: -1 };
  readonly #closers = new Map<string, { from: number; at: number }>();

  constructor(text: string, tags: readonly string[]) {
    this.#text = text;
    this.#tags = tags;
  }

  #next(cache: { from: number; at: number }, needle: string, from: number): number {
    // Positions asked for only grow, so a remembered answer at or after `from` (or "none") still holds.
    if (cache.from >= 0 && cache.from <= from && (cache.at === -1 || cache.at >= from)) return cache.at;
    cache.from = from;
    cache.at = this.#text.indexOf(needle, from);
    return cache.at;
  }

  /** The name of a registered shortcode starting at `at` (not followed by a name character), or undefined. */
  #tagAt(at: number): string | undefined {
    const text = this.#text;
    for (const tag of this.#tags) {
      if (!text.startsWith(tag, at)) continue;
      const after = text[at + tag.length];
      if (after === undefined || !/[\w-]/.test(after)) return tag;
    }
    return undefined;
  }

  /**
   * The opening tag at `at` (its `[`): name, attributes, whether self-closing and where it ends; with
   * `escapes`, a `[` doubled before the name is the escape group, as in do_shortcode's pattern.
   */
  #opening(at: number, escapes: boolean) {
    const text = this.#text;
    if (text[at] !== '[') return undefined;
    let open = '';
    let name = at + 1;
    let tag = escapes && text[name] === '[' ? this.#tagAt(name + 1) : undefined;
    if (tag !== undefined) {
      open = '[';
      name += 1;
    } else {
      tag = this.#tagAt(name);
    }
    if (tag === undefined) return undefined;
    const attrsFrom = name + tag.length;
    const close = this.#next(this.#bracket, ']', attrsFrom);
    if (close === -1) return undefined;
    const selfClosing = close > attrsFrom && text[close - 1] === '/';
    return {
      open,
      tag,
      attributes: text.slice(attrsFrom, selfClosing ? close - 1 : close),
      selfClosing,
      end: close + 1,
    };
  }

  /** Where the content enclosed by `tag` from `from` ends (its `[/tag]`), or -1 when it is never closed. */
  #closer(tag: string, from: number): number {
    let cache = this.#closers.get(tag);
    if (!cache) {
      cache = { from: -1, at: -1 };
      this.#closers.set(tag, cache);
    }
    return this.#next(cache, `[/${tag}]`, from);
  }

  /** The do_shortcode match starting at `at`, or undefined. */
  matchAt(at: number): ShortcodeMatch | undefined {
    const opening = this.#opening(at, true);
    if (!opening) return undefined;
    const groups: (string | undefined)[] = [undefined, opening.open, opening.tag, opening.attributes];
    let end = opening.end;
    if (opening.selfClosing) groups[4] = '/';
    else {
      const closer = this.#closer(opening.tag, end);
      if (closer !== -1) {
        groups[5] = this.#text.slice(end, closer);
        end = closer + opening.tag.length + 3;
      }
    }
    const closingEscape = this.#text[end] === ']' ? ']' : '';
    groups[6] = closingEscape;
    end += closingEscape.length;
    groups[0] = this.#text.slice(at, end);
    return { groups, end };
  }

  /**
   * Where a shortcode starting at `at` may end for shortcode_unautop (no escape groups): after its closing tag
   * when it has one, else after its opening tag; the first is tried first, as the pattern's greedy group does.
   */
  endsAt(at: number): number[] {
    const opening = this.#opening(at, false);
    if (!opening) return [];
    if (opening.selfClosing) return [opening.end];
    const closer = this.#closer(opening.tag, opening.end);
    return closer === -1 ? [opening.end] : [closer + opening.tag.length + 3, opening.end];
  }
}

/** Replaces each shortcode of `tags` in `text`, left to right, by `replace(groups)`. */
function replaceShortcodes(
  text: string,
  tags: readonly string[],
  replace: (groups: (string | undefined)[]) => string,
): string {
  const scanner = new ShortcodeScanner(text, tags);
  let out = '';
  let copied = 0;
  for (let at = text.indexOf('['); at !== -1; ) {
    const match = scanner.matchAt(at);
    if (!match) {
      at = text.indexOf('[', at + 1);
      continue;
    }
    out += text.slice(copied, at) + replace(match.groups);
    copied = match.end;
    at = text.indexOf('[', match.end);
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** The length of the run of spaces (texturize's SPACES: whitespace, U+00A0, `&nbsp;`) at `at`. */
function spacesAt(text: string, at: number): number {
  let i = at;
  for (;;) {
    const c = text[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\u00a0') i += 1;
    else if (c === '&' && text.startsWith('&nbsp;', i)) i += 6;
    else return i - at;
  }
}

const ATTS_REGEX =
  /([\w-]+)\s*=\s*"([^"]*)"(?:\s|$)|([\w-]+)\s*=\s*'([^']*)'(?:\s|$)|([\w-]+)\s*=\s*([^\s'"]+)(?:\s|$)|"([^"]*)"(?:\s|$)|'([^']*)'(?:\s|$)|(\S+)(?:\s|$)/g;

/**
 * Characters an escape sequence must not produce as themselves: kses saw the attribute still escaped, so a
 * `\x3c` would otherwise become markup it never checked ([caption caption="\x3cscript..."] run as script for
 * a contributor). They come out as the entities that display the same character.
 */
const MARKUP_FROM_ESCAPE: Readonly<Record<string, string>> = {
  '<': '&lt;',
  '>': '&gt;',
  '&': '&amp;',
  '"': '&quot;',
  "'": '&#039;',
};

/** PHP's stripcslashes() for the escapes shortcode attributes use; hex and octal escapes never spell markup. */
function stripCSlashes(s: string): string {
  return s.replace(/\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)/g, (_m, e: string) => {
    const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', v: '\v', b: '\b', f: '\f' };
    if (e in simple) return simple[e] as string;
    let code: number | undefined;
    if (e[0] === 'x' && e.length > 1) code = Number.parseInt(e.slice(1), 16);
    else if (/^[0-7]+$/.test(e)) code = Number.parseInt(e, 8) & 0xff;
    if (code === undefined) return e;
    const char = String.fromCharCode(code);
    return MARKUP_FROM_ESCAPE[char] ?? char;
  });
}

/** shortcode_parse_atts(). */
export function parseShortcodeAttributes(text: string): ShortcodeAttributes {
  const atts: ShortcodeAttributes = {};
  const normalized = text.replace(/[\u00a0\u200b]+/g, ' ');
  let positional = 0;
  let matched = false;
  for (const m of normalized.matchAll(ATTS_REGEX)) {
    matched = true;
    if (m[1]) atts[m[1].toLowerCase()] = stripCSlashes(m[2] ?? '');
    else if (m[3]) atts[m[3].toLowerCase()] = stripCSlashes(m[4] ?? '');
    else if (m[5]) atts[m[5].toLowerCase()] = stripCSlashes(m[6] ?? '');
    else if (m[7] !== undefined && m[7] !== '') atts[String(positional++)] = stripCSlashes(m[7]);
    else if (m[8] !== undefined && m[8] !== '') atts[String(positional++)] = stripCSlashes(m[8]);
    else if (m[9] !== undefined) atts[String(positional++)] = stripCSlashes(m[9]);
  }
  if (!matched) return phpTrim(normalized) === '' ? {} : { 0: normalized.trimStart() };
  for (const key of Object.keys(atts)) {
    const value = atts[key] as string;
    // An attribute holding an unclosed HTML element is rejected.
    if (value.includes('<') && !/^[^<]*(?:<[^>]*>[^<]*)*$/.test(value)) atts[key] = '';
  }
  return atts;
}

/** The registered shortcodes of a site. */
export class ShortcodeRegistry {
  readonly #handlers = new Map<string, ShortcodeHandler>();
  /** The names, in registration order, made again when a shortcode is (un)registered. */
  #tags: string[] = [];

  /** add_shortcode(). */
  register(tag: string, handler: ShortcodeHandler): void {
    if (!VALID_NAME.test(tag)) throw new Error(`invalid shortcode name ${JSON.stringify(tag)}`);
    this.#handlers.set(tag, handler);
    this.#changed();
  }

  /** remove_shortcode(). */
  unregister(tag: string): void {
    this.#handlers.delete(tag);
    this.#changed();
  }

  #changed(): void {
    this.#tags = [...this.#handlers.keys()];
  }

  /** The registered names, in registration order (do not change the array). */
  get tags(): readonly string[] {
    return this.#tags;
  }

  #tagsIn(content: string): string[] {
    const present = new Set<string>();
    for (const m of content.matchAll(NAME_FINDER)) if (m[1] !== undefined) present.add(m[1]);
    return this.tags.filter((t) => present.has(t));
  }

  /** do_shortcode(): expands the registered shortcodes found in `content`. */
  expand(content: string): string {
    if (!content.includes('[') || this.#handlers.size === 0) return content;
    const tagnames = this.#tagsIn(content);
    if (tagnames.length === 0) return content;
    const out = replaceShortcodes(escapeInHtmlTags(content), tagnames, (m) => this.#render(m));
    return unescapeBrackets(out);
  }

  /** strip_shortcodes(): removes the registered shortcodes (keeping escaped `[[tag]]` as `[tag]`). */
  strip(content: string): string {
    if (!content.includes('[') || this.#handlers.size === 0) return content;
    const tagnames = this.#tagsIn(content);
    if (tagnames.length === 0) return content;
    const out = replaceShortcodes(escapeInHtmlTags(content), tagnames, (m) => {
      if (m[1] === '[' && m[6] === ']') return (m[0] as string).slice(1, -1);
      return `${m[1] ?? ''}${m[6] ?? ''}`;
    });
    return unescapeBrackets(out);
  }

  /** shortcode_unautop(): unwraps a shortcode standing alone in a paragraph. */
  unautop(text: string): string {
    // A paragraph holding only a shortcode (and spaces) loses its <p> and </p>.
    if (this.#handlers.size === 0 || !text.includes('[')) return text;
    const scanner = new ShortcodeScanner(text, this.#tags);
    let out = '';
    let copied = 0;
    for (let at = text.indexOf('<p>'); at !== -1; ) {
      const start = at + 3 + spacesAt(text, at + 3);
      let unwrapped = false;
      for (const end of scanner.endsAt(start)) {
        const after = end + spacesAt(text, end);
        if (!text.startsWith('</p>', after)) continue;
        out += text.slice(copied, at) + text.slice(start, end);
        copied = after + 4;
        at = text.indexOf('<p>', copied);
        unwrapped = true;
        break;
      }
      if (!unwrapped) at = text.indexOf('<p>', at + 1);
    }
    return copied === 0 ? text : out + text.slice(copied);
  }

  #render(m: (string | undefined)[]): string {
    const whole = m[0] as string;
    if (m[1] === '[' && m[6] === ']') return whole.slice(1, -1);
    const tag = m[2] as string;
    const handler = this.#handlers.get(tag);
    if (!handler) return whole;
    const attributes = parseShortcodeAttributes(m[3] ?? '');
    const content = typeof m[5] === 'string' ? m[5] : null;
    return `${m[1] ?? ''}${handler(attributes, content, tag, this)}${m[6] ?? ''}`;
  }
}

function unescapeBrackets(content: string): string {
  return content.replaceAll('&#91;', '[').replaceAll('&#93;', ']');
}

/**
 * do_shortcodes_in_html_tags(), simplified: square brackets inside tags, comments and CDATA are escaped so
 * they are never taken for shortcodes (WordPress would expand a shortcode inside an attribute value and
 * pass the result through kses; here it stays literal).
 */
function escapeInHtmlTags(content: string): string {
  const normalized = content.replaceAll('&#91;', '&#091;').replaceAll('&#93;', '&#093;');
  const parts = splitHtml(normalized);
  for (let i = 1; i < parts.length; i += 2) {
    const element = parts[i] as string;
    if (element.includes('[') || element.includes(']')) {
      parts[i] = element.replaceAll('[', '&#91;').replaceAll(']', '&#93;');
    }
  }
  return parts.join('');
}

/** [caption]: an image with its caption, as an HTML5 figure. */
export const captionShortcode: ShortcodeHandler = (attributes, content, _tag, registry) => {
  const attr = { ...attributes };
  let body = content ?? '';
  if (attr.caption === undefined) {
    const m = /((?:<a [^>]+>\s*)?<img [^>]+>(?:\s*<\/a>)?)([\s\S]*)/i.exec(body);
    if (m) {
      body = m[1] as string;
      attr.caption = phpTrim(m[2] as string);
    }
  }
  const width = Math.trunc(Number.parseInt(attr.width ?? '', 10) || 0);
  const caption = attr.caption ?? '';
  if (width < 1 || caption === '' || caption === '0') return body;
  const id = attr.id ? sanitizeHtmlClass(attr.id) : '';
  const captionId = attr.caption_id
    ? sanitizeHtmlClass(attr.caption_id)
    : id
      ? `caption-${id.replaceAll('_', '-')}`
      : '';
  const idAttr = id ? `id="${escAttr(id)}" ` : '';
  const captionIdAttr = captionId ? `id="${escAttr(captionId)}" ` : '';
  const describedBy = captionId ? `aria-describedby="${escAttr(captionId)}" ` : '';
  const cls = phpTrim(`wp-caption ${attr.align ?? 'alignnone'} ${attr.class ?? ''}`);
  return (
    `<figure ${idAttr}${describedBy}style="width: ${width}px" class="${escAttr(cls)}">${registry.expand(body)}` +
    `<figcaption ${captionIdAttr}class="wp-caption-text">${caption}</figcaption></figure>`
  );
};

/** sanitize_html_class(). */
export function sanitizeHtmlClass(value: string): string {
  return value.replace(/%[a-fA-F0-9][a-fA-F0-9]/g, '').replace(/[^A-Za-z0-9_-]/g, '');
}

/** A registry with the shortcodes every site has. */
export function defaultShortcodes(): ShortcodeRegistry {
  const registry = new ShortcodeRegistry();
  registry.register('wp_caption', captionShortcode);
  registry.register('caption', captionShortcode);
  return registry;
}
