import { randomBytes } from 'node:crypto';
import { escapeHtml, escapeUrl, isSafeUrl, parseTagAttributes } from './html.ts';

/** oEmbed response data as providers send it (all members optional; `type` decides the HTML). */
export type OEmbedData = Record<string, unknown> & {
  type?: unknown;
  html?: unknown;
  url?: unknown;
  width?: unknown;
  height?: unknown;
  title?: unknown;
};

/**
 * `WP_oEmbed::data2html()`: a photo becomes a linked `<img>`, a video or rich response its `html`, a link
 * response a link to the URL with its title; anything else has no HTML.
 */
export function dataToHtml(data: OEmbedData, url: string): string | undefined {
  switch (data.type) {
    case 'photo': {
      if (typeof data.url !== 'string' || !data.url || !isNumeric(data.width) || !isNumeric(data.height))
        return undefined;
      const title = typeof data.title === 'string' ? data.title : '';
      return `<a href="${escapeUrl(url)}"><img src="${escapeUrl(data.url)}" alt="${escapeHtml(title)}" width="${escapeHtml(String(data.width))}" height="${escapeHtml(String(data.height))}" /></a>`;
    }
    case 'video':
    case 'rich':
      return typeof data.html === 'string' && data.html !== '' ? stripNewlines(data.html) : undefined;
    case 'link':
      return typeof data.title === 'string' && data.title !== ''
        ? `<a href="${escapeUrl(url)}">${escapeHtml(data.title)}</a>`
        : undefined;
    default:
      return undefined;
  }
}

function isNumeric(value: unknown): boolean {
  return (
    (typeof value === 'number' && Number.isFinite(value)) || (typeof value === 'string' && /^\d+(\.\d+)?$/.test(value))
  );
}

/** `WP_oEmbed::_strip_newlines()`: removes line breaks outside `<pre>` so paragraph filters do not break embeds. */
export function stripNewlines(html: string): string {
  if (!html.includes('\n')) return html;
  const parts = html.split(/(<pre[^>]*>[\s\S]*?<\/pre>)/i);
  return parts.map((part, i) => (i % 2 === 1 ? part : part.replace(/\r?\n/g, ''))).join('');
}

const UNTRUSTED_ALLOWED: Readonly<Record<string, readonly string[]>> = {
  a: ['href'],
  blockquote: [],
  iframe: ['src', 'width', 'height', 'frameborder', 'marginwidth', 'marginheight', 'scrolling', 'title'],
};

/** Elements whose content is dropped together with them. */
const DROP_WITH_CONTENT = new Set(['script', 'style', 'template', 'noscript', 'textarea', 'title', 'object', 'embed']);

/**
 * A small `wp_kses()`: keeps only the allowed elements and attributes (URLs must be http(s)), drops
 * comments, scripts and styles with their content, escapes stray angle brackets in text.
 */
export function keepAllowedHtml(html: string, allowed: Readonly<Record<string, readonly string[]>>): string {
  let out = '';
  let dropping: string | undefined;
  const token = /<!--[\s\S]*?(?:-->|$)|<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>|<|>|[^<>]+/g;
  for (const match of html.matchAll(token)) {
    const whole = match[0];
    const name = match[2]?.toLowerCase();
    if (dropping) {
      if (name === dropping && match[1] === '/') dropping = undefined;
      continue;
    }
    if (whole.startsWith('<!--')) continue;
    if (name === undefined) {
      out += whole === '<' ? '&lt;' : whole === '>' ? '&gt;' : whole;
      continue;
    }
    if (DROP_WITH_CONTENT.has(name) && match[1] !== '/') {
      if (!/\/\s*$/.test(match[3] ?? '')) dropping = name;
      continue;
    }
    const permitted = allowed[name];
    if (!permitted) continue;
    if (match[1] === '/') {
      out += `</${name}>`;
      continue;
    }
    const attrs = parseTagAttributes(match[3] ?? '');
    let tag = `<${name}`;
    for (const attr of permitted) {
      const value = attrs[attr];
      if (value === undefined) continue;
      if ((attr === 'href' || attr === 'src') && !isSafeUrl(value)) continue;
      tag += ` ${attr}="${escapeHtml(value)}"`;
    }
    out += `${tag}>`;
  }
  return out;
}

/**
 * `wp_filter_oembed_result()` for providers found by discovery (not sanctioned): only a blockquote
 * fallback and one sandboxed iframe survive, tied together by a random secret; without an iframe there is
 * nothing to embed. Sanctioned providers' HTML is not passed through this.
 */
export function filterUntrustedEmbed(html: string, title?: string): string | undefined {
  const clean = keepAllowedHtml(html, UNTRUSTED_ALLOWED);
  const iframe = /<iframe\b[^>]*><\/iframe>/i.exec(clean);
  if (!iframe) return undefined;
  const blockquoteMatch = /<blockquote>[\s\S]*?<\/blockquote>/i.exec(clean.slice(0, iframe.index));
  const secret = randomBytes(8)
    .toString('base64url')
    .replace(/[^a-zA-Z0-9]/g, '')
    .slice(0, 10)
    .padEnd(10, 'x');

  const attrs = parseTagAttributes(iframe[0].slice('<iframe'.length, -'></iframe>'.length));
  let tag = '<iframe class="cms-embedded-content" sandbox="allow-scripts" security="restricted"';
  if (blockquoteMatch) tag += ' style="position: absolute; clip: rect(1px, 1px, 1px, 1px);"';
  for (const [name, value] of Object.entries(attrs)) {
    if (name === 'src') tag += ` src="${escapeHtml(`${value}#?secret=${secret}`)}" data-secret="${secret}"`;
    else tag += ` ${name}="${escapeHtml(value)}"`;
  }
  if (attrs.title === undefined && title) tag += ` title="${escapeHtml(title)}"`;
  tag += '></iframe>';

  const blockquote = blockquoteMatch
    ? blockquoteMatch[0].replace(/^<blockquote>/i, `<blockquote class="cms-embedded-content" data-secret="${secret}">`)
    : '';
  return blockquote + tag;
}
