/**
 * Shortcodes the way WordPress expands them in content (do_shortcode, strip_shortcodes,
 * shortcode_unautop). Only registered shortcodes are touched; anything else in square brackets stays
 * as written. The default registry knows `caption` (and its old name `wp_caption`), which needs nothing
 * but the text; media shortcodes (gallery, audio, video, playlist, embed) are not registered and stay
 * literal.
 */

import { escAttr, phpTrim, splitHtml } from './html.ts';
import { SPACES } from './texturize.ts';

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

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/** get_shortcode_regex(): groups 1 `[` escape, 2 name, 3 attributes, 4 self-closer, 5 content, 6 `]` escape. */
export function shortcodeRegexSource(tagnames: readonly string[]): string {
  const tags = tagnames.map(escapeRegExp).join('|');
  return (
    `\\[(\\[?)(${tags})(?![\\w-])([^\\]/]*(?:/(?!\\])[^\\]/]*)*?)` +
    `(?:(/)\\]|\\](?:([^[]*(?:\\[(?!/\\2\\])[^[]*)*)\\[/\\2\\])?)(\\]?)`
  );
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
  /** The names and the shortcode_unautop pattern, made again when a shortcode is (un)registered. */
  #tags: string[] = [];
  #unautopPattern: RegExp | null = null;

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
    this.#unautopPattern = null;
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
    const source = shortcodeRegexSource(tagnames);
    let out = escapeInHtmlTags(content);
    out = out.replace(new RegExp(source, 'g'), (...m: (string | undefined)[]) => this.#render(m));
    return unescapeBrackets(out);
  }

  /** strip_shortcodes(): removes the registered shortcodes (keeping escaped `[[tag]]` as `[tag]`). */
  strip(content: string): string {
    if (!content.includes('[') || this.#handlers.size === 0) return content;
    const tagnames = this.#tagsIn(content);
    if (tagnames.length === 0) return content;
    const source = shortcodeRegexSource(tagnames);
    let out = escapeInHtmlTags(content);
    out = out.replace(new RegExp(source, 'g'), (...m: (string | undefined)[]) => {
      if (m[1] === '[' && m[6] === ']') return (m[0] as string).slice(1, -1);
      return `${m[1] ?? ''}${m[6] ?? ''}`;
    });
    return unescapeBrackets(out);
  }

  /** shortcode_unautop(): unwraps a shortcode standing alone in a paragraph. */
  unautop(text: string): string {
    // The pattern starts with `<p>` and a shortcode's `[`.
    if (this.#handlers.size === 0 || !text.includes('[')) return text;
    if (!this.#unautopPattern) {
      const tags = this.#tags.map(escapeRegExp).join('|');
      this.#unautopPattern = new RegExp(
        `<p>(?:${SPACES})*(\\[(${tags})(?![\\w-])[^\\]/]*(?:/(?!\\])[^\\]/]*)*?(?:/\\]|\\](?:[^[]*(?:\\[(?!/\\2\\])[^[]*)*\\[/\\2\\])?))(?:${SPACES})*</p>`,
        'g',
      );
    }
    return text.replace(this.#unautopPattern, '$1');
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
