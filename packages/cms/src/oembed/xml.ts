/** Escapes XML text content. */
function escapeXml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#039;' })[ch] ?? ch,
  );
}

/** Whether a key can be an XML element name. */
function isXmlName(key: string): boolean {
  return /^[A-Za-z_][\w.-]*$/.test(key);
}

/**
 * `_oembed_create_xml()`: an oEmbed object as `<oembed>` XML, nested objects as nested elements and list
 * items as `<oembed>` elements, booleans as 1 or empty, null as empty.
 */
export function toOEmbedXml(data: Record<string, unknown>): string {
  return `<?xml version="1.0"?>\n<oembed>${children(data)}</oembed>\n`;
}

function children(data: Record<string, unknown> | unknown[]): string {
  let out = '';
  const entries: Array<[string, unknown]> = Array.isArray(data)
    ? data.map((value) => ['oembed', value])
    : Object.entries(data).map(([k, v]) => [/^\d+$/.test(k) ? 'oembed' : k, v]);
  for (const [key, value] of entries) {
    if (!isXmlName(key)) continue;
    if (value !== null && typeof value === 'object') {
      out += `<${key}>${children(value as Record<string, unknown>)}</${key}>`;
    } else {
      const text = value === true ? '1' : value === false || value === null || value === undefined ? '' : String(value);
      out += `<${key}>${escapeXml(text)}</${key}>`;
    }
  }
  return out;
}

const XML_ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * `WP_oEmbed::_parse_xml_body()` for providers that answer in XML: the root's child elements as strings.
 * Documents with a DOCTYPE are refused (no entity expansion, no external entities).
 */
export function parseOEmbedXml(body: string): Record<string, string> | undefined {
  const text = body.replace(/^\uFEFF/, '').trim();
  if (/<!DOCTYPE/i.test(text) || /<!ENTITY/i.test(text)) return undefined;
  const root = /^(?:<\?xml[^>]*\?>\s*)?<([A-Za-z_][\w.-]*)[^>]*>([\s\S]*)<\/\1>\s*$/.exec(text);
  if (!root) return undefined;
  const result: Record<string, string> = {};
  for (const match of (root[2] ?? '').matchAll(/<([A-Za-z_][\w.-]*)[^>]*?(?:\/>|>([\s\S]*?)<\/\1>)/g)) {
    const name = match[1] as string;
    const raw = (match[2] ?? '').replace(/^<!\[CDATA\[([\s\S]*)\]\]>$/, '$1');
    result[name] = raw.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ent: string) => {
      if (ent[0] === '#') {
        const code = ent[1]?.toLowerCase() === 'x' ? Number.parseInt(ent.slice(2), 16) : Number(ent.slice(1));
        return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
      }
      return XML_ENTITIES[ent] ?? whole;
    });
  }
  return result;
}
