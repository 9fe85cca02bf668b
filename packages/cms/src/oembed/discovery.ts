import { decodeHtmlEntities, parseTagAttributes } from './html.ts';

const LINK_TYPES: Readonly<Record<string, 'json' | 'xml'>> = {
  'application/json+oembed': 'json',
  'text/xml+oembed': 'xml',
  'application/xml+oembed': 'xml',
};

/**
 * `WP_oEmbed::discover()` on a fetched page: the `href` of `<link rel="alternate"
 * type="application/json+oembed">` in the head (JSON preferred over the XML variants), or undefined.
 */
export function findDiscoveryLink(html: string): { href: string; format: 'json' | 'xml' } | undefined {
  const headEnd = html.search(/<\/head>/i);
  const head = headEnd > 0 ? html.slice(0, headEnd) : html;
  const lower = head.toLowerCase();
  if (!Object.keys(LINK_TYPES).some((type) => lower.includes(type))) return undefined;

  let xml: string | undefined;
  for (const match of head.matchAll(/<link\b([^<>]+)\/?>/gi)) {
    const attrs = parseTagAttributes(match[1] ?? '');
    const format = attrs.type ? LINK_TYPES[attrs.type.toLowerCase()] : undefined;
    if (!format || !attrs.href) continue;
    const href = decodeHtmlEntities(attrs.href);
    if (format === 'json') return { href, format };
    xml ??= href;
  }
  return xml ? { href: xml, format: 'xml' } : undefined;
}
