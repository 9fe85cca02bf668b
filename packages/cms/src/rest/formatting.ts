/**
 * Ports of the WordPress sanitising and checking functions the REST layer uses on input
 * (formatting.php): sanitize_text_field, sanitize_key, is_email, sanitize_title, esc_url_raw, ...
 * Written from their documented behaviour; they decide what a client's value turns into, so they
 * follow WordPress's rules rather than stricter ones.
 */
import { phpString } from './php.ts';

/** wp_strip_all_tags(): removes script/style blocks and every tag. */
export function stripAllTags(text: string, removeBreaks = false): string {
  let out = text.replace(/<(script|style)[^>]*?>.*?<\/\1>/gis, '');
  // PHP's strip_tags() does not take a `<` followed by white space for the start of a tag, and drops NUL bytes.
  out = out.replace(/<(?!\s)[^>]*>/g, '').replaceAll('\u0000', '');
  if (removeBreaks) out = out.replace(/[\r\n\t ]+/g, ' ');
  return out.trim();
}

/** sanitize_text_field() (and sanitize_textarea_field() with keepNewlines). */
export function sanitizeTextField(value: unknown, keepNewlines = false): string {
  if (value !== null && typeof value === 'object') return '';
  let filtered = phpString(value);
  if (filtered.includes('<')) {
    // wp_pre_kses_less_than: a '<' that does not start a tag is kept as an entity.
    filtered = filtered.replace(/<[^>]*?((?=<)|>|$)/g, (m) => (m.includes('>') ? m : escHtml(m)));
    filtered = stripAllTags(filtered);
    filtered = filtered.replace(/<\n/g, '&lt;\n');
  }
  if (!keepNewlines) filtered = filtered.replace(/[\r\n\t ]+/g, ' ');
  filtered = filtered.trim();
  let found = false;
  while (/%[a-f0-9]{2}/i.test(filtered)) {
    filtered = filtered.replace(/%[a-f0-9]{2}/gi, '');
    found = true;
  }
  if (found) filtered = filtered.replace(/ +/g, ' ').trim();
  return filtered;
}

/** sanitize_key(): lower-case letters, digits, dashes and underscores. */
export function sanitizeKey(value: unknown): string {
  if (typeof value !== 'string' && typeof value !== 'number') return '';
  return String(value)
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, '');
}

/** sanitize_user() in strict mode: what WordPress accepts as a login name. */
export function sanitizeUser(value: string, strict = true): string {
  let out = stripAllTags(value);
  out = out.replace(/%([a-fA-F0-9][a-fA-F0-9])/g, '');
  out = out.replace(/&.+?;/g, '');
  if (strict) out = out.replace(/[^a-z0-9 _.\-@]/gi, '');
  return out.trim().replace(/\s+/g, ' ');
}

/** is_email(): WordPress's deliberately simple address check. */
export function isEmail(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  if (value.length < 6) return false;
  const at = value.indexOf('@', 1);
  if (at === -1) return false;
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  if (!/^[a-zA-Z0-9!#$%&'*+/=?^_`{|}~.-]+$/.test(local)) return false;
  if (/\.{2,}/.test(domain)) return false;
  if (phpTrim(domain, '.') !== domain) return false;
  const subs = domain.split('.');
  if (subs.length < 2) return false;
  for (const sub of subs) {
    if (phpTrim(sub, '-') !== sub) return false;
    if (!/^[a-z0-9-]+$/i.test(sub)) return false;
  }
  return true;
}

/** sanitize_email(): drops characters an address may not hold; '' when it cannot be an address. */
export function sanitizeEmail(value: string): string {
  const email = value.trim();
  if (email.length < 6) return '';
  const at = email.indexOf('@', 1);
  if (at === -1) return '';
  const local = email.slice(0, at).replace(/[^a-zA-Z0-9!#$%&'*+/=?^_`{|}~.-]/g, '');
  if (local === '') return '';
  let domain = email.slice(at + 1).replace(/\.{2,}/g, '');
  domain = phpTrim(domain, '.');
  const subs = domain
    .split('.')
    .map((s) => phpTrim(s, '-').replace(/[^a-z0-9-]+/gi, ''))
    .filter((s) => s !== '');
  if (subs.length < 2) return '';
  return `${local}@${subs.join('.')}`;
}

/** rest_parse_hex_color() / sanitize_hex_color(). */
export function isHexColor(value: unknown): boolean {
  return typeof value === 'string' && /^#([A-Fa-f0-9]{3}){1,2}$/.test(value);
}

/** esc_url_raw() / sanitize_url(): keeps safe URLs, adds http:// to bare host names, '' for others. */
export function sanitizeUrl(value: unknown): string {
  let url = phpString(value).trim();
  if (url === '') return '';
  url = url.replace(/ /g, '%20');
  url = url.replace(/[^a-z0-9\-~+_.?#=!&;,/:%@$|*'()[\]\u0080-\uffff]/gi, '');
  if (url === '') return '';
  // A relative URL or one without a scheme: WordPress prepends http:// unless it starts with / # ? or is a php file.
  if (!url.includes(':') && !/^[/#?]/.test(url) && !/^[a-z0-9-]+?\.php/i.test(url)) url = `http://${url}`;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  const allowed = ['http', 'https', 'ftp', 'ftps', 'mailto', 'news', 'irc', 'irc6', 'ircs', 'gopher', 'nntp', 'feed'];
  const more = ['telnet', 'mms', 'rtsp', 'sms', 'svn', 'tel', 'fax', 'xmpp', 'webcal', 'urn'];
  if (scheme !== undefined && !allowed.includes(scheme) && !more.includes(scheme)) return '';
  return url;
}

/** esc_html(): the entities WordPress escapes in rendered text. */
export function escHtml(text: string): string {
  return text
    .replace(/&(?!(#\d+|#x[0-9a-f]+|[a-z][a-z0-9]*);)/gi, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#039;');
}

const PHP_TRIM = ' \t\n\r\u0000\u000B';

/** PHP's trim() with its default character list plus `extra`. */
export function phpTrim(value: string, extra = ''): string {
  const chars = PHP_TRIM + extra;
  let start = 0;
  let end = value.length;
  while (start < end && chars.includes(value[start]!)) start++;
  while (end > start && chars.includes(value[end - 1]!)) end--;
  return value.slice(start, end);
}
