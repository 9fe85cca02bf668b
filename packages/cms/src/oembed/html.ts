/** Escapes text for HTML element content and attribute values (`esc_html` / `esc_attr`). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ESCAPES[ch] ?? ch);
}

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#039;',
};

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
};

/** Decodes the entities that appear in attribute values (named basics and numeric references). */
export function decodeHtmlEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, body: string) => {
    if (body[0] === '#') {
      const code = body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number(body.slice(1));
      return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[body.toLowerCase()] ?? whole;
  });
}

/** Attributes of a start tag's inside (`shortcode_parse_atts`-like), names lower-cased, values raw. */
export function parseTagAttributes(inside: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  const pattern = /([^\s=/"'<>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;
  for (const match of inside.matchAll(pattern)) {
    const name = (match[1] ?? '').toLowerCase();
    if (!name || name in attrs) continue;
    attrs[name] = match[2] ?? match[3] ?? match[4] ?? '';
  }
  return attrs;
}

/** Whether a URL is safe in an `href`/`src`: http(s) or protocol-relative, nothing scriptable. */
export function isSafeUrl(url: string): boolean {
  const trimmed = url.trim();
  if (trimmed.startsWith('//')) return true;
  return /^https?:\/\//i.test(trimmed);
}

/** `esc_url` for our own output: unsafe schemes become empty, the rest is attribute-escaped. */
export function escapeUrl(url: string): string {
  return isSafeUrl(url) || url.startsWith('/') ? escapeHtml(url.trim()) : '';
}
