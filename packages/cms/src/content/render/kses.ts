/**
 * HTML filtering for users without the `unfiltered_html` capability (authors, contributors), as
 * WordPress's kses does on save: only allowed elements and attributes survive, URLs keep only safe
 * protocols, inline styles keep only safe properties, entities are normalized, comments (and so block
 * delimiters) are kept. Content and excerpts use the post allowlist; titles the small inline one.
 */
import { escHtml, sanitizeTextField } from '../../rest/formatting.ts';

/** Attributes every element of the post allowlist accepts (WordPress's global attributes). */
const GLOBAL_ATTRIBUTES = [
  'aria-describedby',
  'aria-details',
  'aria-label',
  'aria-labelledby',
  'aria-hidden',
  'class',
  'data-*',
  'dir',
  'id',
  'lang',
  'style',
  'title',
  'role',
  'xml:lang',
];

const CELL = [
  'align',
  'bgcolor',
  'char',
  'charoff',
  'colspan',
  'headers',
  'height',
  'nowrap',
  'rowspan',
  'scope',
  'valign',
  'width',
];
const ROW = ['align', 'bgcolor', 'char', 'charoff', 'valign'];
const MEDIA = ['autoplay', 'controls', 'loop', 'muted', 'preload', 'src'];

/** Elements of the post allowlist and their own attributes. */
const POST_ELEMENTS: Record<string, string[]> = {
  address: [],
  a: ['href', 'rel', 'rev', 'name', 'target', 'download', 'referrerpolicy'],
  abbr: [],
  acronym: [],
  area: ['alt', 'coords', 'href', 'nohref', 'shape', 'target'],
  article: ['align'],
  aside: ['align'],
  audio: [...MEDIA],
  b: [],
  bdo: [],
  big: [],
  blockquote: ['cite'],
  br: [],
  button: ['disabled', 'name', 'type', 'value'],
  caption: ['align'],
  cite: [],
  code: [],
  col: ['align', 'char', 'charoff', 'span', 'valign', 'width'],
  colgroup: ['align', 'char', 'charoff', 'span', 'valign', 'width'],
  del: ['datetime'],
  dd: [],
  dfn: [],
  details: ['align', 'open'],
  div: ['align'],
  dl: [],
  dt: [],
  em: [],
  fieldset: [],
  figure: ['align'],
  figcaption: ['align'],
  font: ['color', 'face', 'size'],
  footer: ['align'],
  h1: ['align'],
  h2: ['align'],
  h3: ['align'],
  h4: ['align'],
  h5: ['align'],
  h6: ['align'],
  header: ['align'],
  hgroup: ['align'],
  hr: ['align', 'noshade', 'size', 'width'],
  i: [],
  img: [
    'alt',
    'align',
    'border',
    'height',
    'hspace',
    'loading',
    'longdesc',
    'vspace',
    'src',
    'usemap',
    'width',
    'decoding',
    'srcset',
    'sizes',
  ],
  ins: ['datetime', 'cite'],
  kbd: [],
  label: ['for'],
  legend: ['align'],
  li: ['align', 'value'],
  main: ['align'],
  map: ['name'],
  mark: [],
  menu: ['type'],
  nav: ['align'],
  object: ['data', 'type'],
  p: ['align'],
  pre: ['width'],
  q: ['cite'],
  rb: [],
  rp: [],
  rt: [],
  rtc: [],
  ruby: [],
  s: [],
  samp: [],
  span: ['align'],
  section: ['align'],
  small: [],
  strike: [],
  strong: [],
  sub: [],
  summary: ['align'],
  sup: [],
  table: ['align', 'bgcolor', 'border', 'cellpadding', 'cellspacing', 'rules', 'summary', 'width'],
  tbody: ROW,
  td: ['abbr', 'axis', ...CELL],
  textarea: ['cols', 'rows', 'disabled', 'name', 'readonly'],
  tfoot: ROW,
  th: ['abbr', 'axis', ...CELL],
  thead: ROW,
  title: [],
  tr: ROW,
  track: ['default', 'kind', 'label', 'src', 'srclang'],
  tt: [],
  u: [],
  ul: ['type'],
  ol: ['start', 'type', 'reversed'],
  var: [],
  video: [...MEDIA, 'height', 'playsinline', 'poster', 'width'],
};

/** The inline allowlist (titles, `data` context). */
const DATA_ELEMENTS: Record<string, string[]> = {
  a: ['href', 'title'],
  abbr: ['title'],
  acronym: ['title'],
  b: [],
  blockquote: ['cite'],
  cite: [],
  code: [],
  del: ['datetime'],
  em: [],
  i: [],
  q: ['cite'],
  s: [],
  strike: [],
  strong: [],
};

type Allowlist = Map<string, Set<string>>;

function allowlist(elements: Record<string, string[]>, global: string[]): Allowlist {
  const out: Allowlist = new Map();
  for (const [tag, attrs] of Object.entries(elements)) out.set(tag, new Set([...attrs, ...global]));
  return out;
}

const POST_ALLOWED = allowlist(POST_ELEMENTS, GLOBAL_ATTRIBUTES);
const DATA_ALLOWED = allowlist(DATA_ELEMENTS, []);

/** wp_allowed_protocols(). */
export const ALLOWED_PROTOCOLS = [
  'http',
  'https',
  'ftp',
  'ftps',
  'mailto',
  'news',
  'irc',
  'irc6',
  'ircs',
  'gopher',
  'nntp',
  'feed',
  'telnet',
  'mms',
  'rtsp',
  'sms',
  'svn',
  'tel',
  'fax',
  'xmpp',
  'webcal',
  'urn',
];

const URI_ATTRIBUTES = new Set([
  'action',
  'archive',
  'background',
  'cite',
  'classid',
  'codebase',
  'data',
  'formaction',
  'href',
  'icon',
  'longdesc',
  'manifest',
  'poster',
  'profile',
  'src',
  'usemap',
  'xmlns',
]);

const SAFE_CSS = new Set(
  (
    'background background-color background-image background-position background-size background-attachment background-blend-mode ' +
    'border border-radius border-width border-color border-style border-right border-right-color border-right-style border-right-width ' +
    'border-bottom border-bottom-color border-bottom-left-radius border-bottom-right-radius border-bottom-style border-bottom-width ' +
    'border-left border-left-color border-left-style border-left-width border-top border-top-color border-top-left-radius ' +
    'border-top-right-radius border-top-style border-top-width border-spacing border-collapse caption-side columns column-count ' +
    'column-fill column-gap column-rule column-span column-width color filter font font-family font-size font-style font-variant ' +
    'font-weight letter-spacing line-height text-align text-decoration text-indent text-transform height min-height max-height ' +
    'width min-width max-width margin margin-right margin-bottom margin-left margin-top margin-block-start margin-block-end ' +
    'margin-inline-start margin-inline-end padding padding-right padding-bottom padding-left padding-top padding-block-start ' +
    'padding-block-end padding-inline-start padding-inline-end flex flex-basis flex-direction flex-flow flex-grow flex-shrink ' +
    'flex-wrap gap row-gap grid-template-columns grid-auto-columns grid-column-start grid-column-end grid-column-gap ' +
    'grid-template-rows grid-auto-rows grid-row-start grid-row-end grid-row-gap grid-gap justify-content justify-items ' +
    'justify-self align-content align-items align-self clear cursor direction float list-style-type object-fit ' +
    'object-position overflow vertical-align'
  ).split(' '),
);
const CSS_URL_PROPERTIES = new Set(['background', 'background-image', 'cursor', 'list-style', 'list-style-image']);
const CSS_GRADIENT_PROPERTIES = new Set(['background', 'background-image']);

/** wp_kses_no_null(). */
function noNull(text: string, removeSlashZero = true): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: null and control bytes are what is removed
  let out = text.replace(/[\x00-\x08\x0B\x0C\x0E-\x1F]/g, '');
  if (removeSlashZero) out = out.replace(/\\+0+/g, '');
  return out;
}

/** wp_kses_decode_entities() (numeric entities only). */
function decodeEntities(text: string): string {
  return text
    .replace(/&#(\d+);?/g, (_m, d: string) => String.fromCodePoint(Number(d) % 0x110000))
    .replace(/&#[Xx]([0-9A-Fa-f]+);?/g, (_m, h: string) => String.fromCodePoint(Number.parseInt(h, 16) % 0x110000));
}

function protocolOnce(value: string, count = 1): string {
  let text = value.replace(/(&#0*58(?![;0-9])|&#x0*3a(?![;a-f0-9]))/gi, '$1;');
  const m = /:|&#0*58;|&#x0*3a;|&colon;/i.exec(text);
  if (!m) return text;
  const head = text.slice(0, m.index);
  if (/\/\?/.test(head)) return text;
  let rest = text.slice(m.index + m[0].length).trim();
  const scheme = decodeEntities(head).replace(/\s/g, '');
  const lower = noNull(scheme).toLowerCase();
  const protocol = ALLOWED_PROTOCOLS.includes(lower) ? `${lower}:` : '';
  if (protocol === 'feed:') {
    if (count > 2) return '';
    rest = protocolOnce(rest, count + 1);
    if (rest === '') return rest;
  }
  text = protocol + rest;
  return text;
}

/** wp_kses_bad_protocol(): a URL with a disallowed scheme loses the scheme (repeatedly). */
export function badProtocol(value: string): string {
  let text = noNull(value);
  let previous: string;
  let iterations = 0;
  do {
    previous = text;
    text = protocolOnce(text);
  } while (previous !== text && ++iterations < 6);
  return previous !== text ? '' : text;
}

/** safecss_filter_attr(): the declarations of an inline style with a safe property and value. */
export function safeCss(css: string): string {
  const declarations = noNull(css)
    .replace(/[\n\r\t]/g, '')
    .trim()
    .split(';');
  const kept: string[] = [];
  for (const raw of declarations) {
    const declaration = raw.trim();
    if (declaration === '') continue;
    const colon = declaration.indexOf(':');
    let found = false;
    let test = declaration;
    if (colon === -1) {
      found = true;
    } else {
      const property = declaration.slice(0, colon).trim().toLowerCase();
      const value = declaration.slice(colon + 1).trim();
      if (SAFE_CSS.has(property) || (property.startsWith('--') && /^--[a-zA-Z0-9-_]+$/.test(property))) {
        found = true;
        if (CSS_URL_PROPERTIES.has(property)) {
          test = test.replace(/\burl\(\s*(['"]?)([^'")]*)\1\s*\)/gi, (whole, _q, url: string) => {
            const clean = badProtocol(url.trim());
            if (clean === '' || clean !== url.trim()) {
              found = false;
              return whole;
            }
            return '';
          });
        }
        if (CSS_GRADIENT_PROPERTIES.has(property))
          test = test.replace(/(repeating-)?(linear|radial|conic)-gradient\([^()]*(\([^()]*\)[^()]*)*\)/gi, '');
        void value;
      }
    }
    if (found && /[\\(&=}]|\/\*/.test(test)) found = false;
    if (found) kept.push(declaration);
  }
  return kept.join(';');
}

interface Attribute {
  name: string;
  value: string;
  whole: string;
  valueless: boolean;
}

/** wp_kses_hair(): the attributes of a tag, values of URL attributes cleaned. */
function parseAttributes(input: string): Attribute[] {
  const out = new Map<string, Attribute>();
  let attr = input;
  let mode = 0;
  let name = '';
  while (attr.length > 0) {
    let working = false;
    if (mode === 0) {
      const m = /^([_a-zA-Z][-_a-zA-Z0-9:.]*)/.exec(attr);
      if (m) {
        name = m[1] as string;
        working = true;
        mode = 1;
        attr = attr.slice(name.length);
      }
    } else if (mode === 1) {
      const eq = /^\s*=\s*/.exec(attr);
      if (eq) {
        working = true;
        mode = 2;
        attr = attr.slice(eq[0].length);
      } else {
        const ws = /^\s+/.exec(attr);
        if (ws) {
          working = true;
          mode = 0;
          if (!out.has(name)) out.set(name, { name, value: '', whole: name, valueless: true });
          attr = attr.slice(ws[0].length);
        }
      }
    } else {
      const quoted = /^"([^"]*)"(\s+|\/?$)/.exec(attr) ?? /^'([^']*)'(\s+|\/?$)/.exec(attr);
      const bare = quoted ? null : /^([^\s"']+)(\s+|\/?$)/.exec(attr);
      const m = quoted ?? bare;
      if (m) {
        let value = m[1] as string;
        if (URI_ATTRIBUTES.has(name.toLowerCase())) value = badProtocol(value);
        const q = attr[0] === "'" ? "'" : '"';
        if (!out.has(name)) out.set(name, { name, value, whole: `${name}=${q}${value}${q}`, valueless: false });
        working = true;
        mode = 0;
        const consumed = quoted
          ? (/^(["'])[^"']*\1(\s+|$)/.exec(attr)?.[0] ?? m[0])
          : (/^[^\s"']+(\s+|$)/.exec(attr)?.[0] ?? m[0]);
        attr = attr.slice(consumed.length);
      }
    }
    if (!working) {
      attr = attr.replace(/^("[^"]*("|$)|'[^']*('|$)|\S)*\s*/, '');
      mode = 0;
    }
  }
  if (mode === 1 && !out.has(name)) out.set(name, { name, value: '', whole: name, valueless: true });
  return [...out.values()];
}

function attributeAllowed(attribute: Attribute, allowed: Set<string>): boolean {
  const low = attribute.name.toLowerCase();
  if (allowed.has(low)) return true;
  return allowed.has('data-*') && /^data(?:-[a-z0-9_]+)+$/.test(low);
}

function filterTag(tag: string, allowed: Allowlist): string {
  const m = /^<\s*(\/\s*)?([a-zA-Z0-9-]+)([^>]*)>?$/.exec(tag);
  if (!m) return '';
  const closing = (m[1] ?? '').trim() !== '';
  const element = m[2] as string;
  const attrs = allowed.get(element.toLowerCase());
  if (!attrs) return '';
  if (closing) return `</${element}>`;
  const rawAttributes = m[3] ?? '';
  const slash = /\s*\/\s*$/.test(rawAttributes) ? ' /' : '';
  if (attrs.size === 0) return `<${element}${slash}>`;
  let kept = '';
  const parsed = parseAttributes(rawAttributes);
  // An object must point at a PDF (its `data` is a required attribute); otherwise it keeps no attribute.
  if (element.toLowerCase() === 'object') {
    const data = parsed.find((a) => a.name.toLowerCase() === 'data');
    if (!data || !/\.pdf(\?|#|$)/i.test(data.value)) return slash ? `<${element}${slash}>` : `<${element}>`;
  }
  for (const attribute of parsed) {
    if (!attributeAllowed(attribute, attrs)) continue;
    let whole = attribute.whole;
    if (attribute.name.toLowerCase() === 'style') {
      const css = safeCss(attribute.value);
      if (css === '') continue;
      whole = whole.replace(attribute.value, css);
    }
    kept += ` ${whole}`;
  }
  return `<${element}${kept.replace(/[<>]/g, '')}${slash}>`;
}

/** wp_kses_normalize_entities(): a bare `&` becomes `&amp;`; valid entities stay. */
export function normalizeEntities(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replace(/&amp;([A-Za-z]{2,8}[0-9]{0,2});/g, (m, name: string) => (ENTITY_NAMES.has(name) ? `&${name};` : m))
    .replace(/&amp;#(0*[0-9]{1,7});/g, (m, d: string) => {
      // PHP's empty() treats the string '0' as empty.
      if (d === '0') return '';
      return validCodePoint(Number(d)) ? `&#${d.replace(/^0+/, '').padStart(3, '0')};` : m;
    })
    .replace(/&amp;#[Xx](0*[0-9A-Fa-f]{1,6});/g, (m, h: string) =>
      validCodePoint(Number.parseInt(h, 16)) ? `&#x${h.replace(/^0+/, '')};` : m,
    );
}

function validCodePoint(i: number): boolean {
  return (
    i === 0x9 ||
    i === 0xa ||
    i === 0xd ||
    (i >= 0x20 && i <= 0xd7ff) ||
    (i >= 0xe000 && i <= 0xfffd) ||
    (i >= 0x10000 && i <= 0x10ffff)
  );
}

function ksesWith(text: string, allowed: Allowlist): string {
  let out = noNull(text, false);
  out = normalizeEntities(out);
  // wp_pre_kses_less_than (WordPress's default pre_kses filter): a '<' that opens no tag is text, escaped
  // rather than cut away with everything after it.
  out = out.replace(/<[^>]*?((?=<)|>|$)/g, (m) => (m.includes('>') ? m : escHtml(m)));
  return out.replace(/(<!--[\s\S]*?(-->|$))|(<[^>]*(>|$)|>)/g, (part) => {
    const piece = part.replace(/\\"/g, '"');
    if (piece[0] !== '<') return '&gt;';
    if (piece.startsWith('<!--')) {
      let inner = piece.replaceAll('<!--', '').replaceAll('-->', '');
      for (let next = ksesWith(inner, allowed); next !== inner; next = ksesWith(inner, allowed)) inner = next;
      if (inner === '') return '';
      inner = inner.replace(/--+/g, '-').replace(/-$/, '');
      return `<!--${inner}-->`;
    }
    return filterTag(piece, allowed);
  });
}

/** wp_kses_post(): what content and excerpts of users without unfiltered_html become. */
export function ksesPost(text: string): string {
  return ksesWith(text, POST_ALLOWED);
}

/** wp_filter_kses() / wp_kses_data(): what titles of users without unfiltered_html become. */
export function ksesData(text: string): string {
  return ksesWith(text, DATA_ALLOWED);
}

/**
 * _wp_specialchars() as WordPress calls it by default, without double encoding: entities are normalized,
 * then every `&` that does not start an HTML 4.01 entity, and `<` and `>`, are escaped (with `quotes`, also
 * `"` and `'`, as esc_html() and esc_attr() do). Text already escaped comes out unchanged.
 */
export function specialChars(text: string, quotes = false): string {
  if (!/[&<>"']/.test(text)) return text;
  let out = normalizeEntities(text).replace(/&(#[0-9]+;|#[xX][0-9A-Fa-f]+;|[A-Za-z0-9]+;)?/g, (m, entity?: string) =>
    entity !== undefined && (entity.startsWith('#') || HTML401_ENTITY_NAMES.has(entity.slice(0, -1)))
      ? m
      : `&amp;${entity ?? ''}`,
  );
  out = out.replaceAll('<', '&lt;').replaceAll('>', '&gt;');
  return quotes ? out.replaceAll('"', '&quot;').replaceAll("'", '&#039;') : out;
}

/**
 * What WordPress stores for a term's name and a user's display name, first and last name and nickname: the
 * save filters of default-filters.php (`pre_term_name`, `pre_user_display_name`, ...) are
 * sanitize_text_field(), wp_filter_kses() and _wp_specialchars(), so tags are dropped and `&`, `<`, `>` are
 * kept as entities ("A & B" becomes "A &amp; B"); a name that is already escaped is not escaped again.
 */
export function sanitizeNameField(value: unknown): string {
  return specialChars(ksesData(sanitizeTextField(value)));
}

/** The HTML entity names kses keeps (the common named character references). */
const ENTITY_NAMES = new Set(
  (
    'nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn acute micro para middot ' +
    'cedil ordm raquo iquest Agrave Aacute Acirc Atilde Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc ' +
    'Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute ' +
    'acirc atilde auml aring aelig ccedil egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc ' +
    'otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml quot amp lt gt apos OElig oelig Scaron scaron Yuml ' +
    'circ tilde ensp emsp thinsp zwnj zwj lrm rlm ndash mdash lsquo rsquo sbquo ldquo rdquo bdquo dagger Dagger permil ' +
    'lsaquo rsaquo euro fnof Alpha Beta Gamma Delta Epsilon Zeta Eta Theta Iota Kappa Lambda Mu Nu Xi Omicron Pi Rho Sigma ' +
    'Tau Upsilon Phi Chi Psi Omega alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho ' +
    'sigmaf sigma tau upsilon phi chi psi omega thetasym upsih piv bull hellip prime Prime oline frasl weierp image real ' +
    'trade alefsym larr uarr rarr darr harr crarr lArr uArr rArr dArr hArr forall part exist empty nabla isin notin ni prod ' +
    'sum minus lowast radic prop infin ang and or cap cup int sim cong asymp ne equiv le ge sub sup nsub sube supe oplus ' +
    'otimes perp sdot lceil rceil lfloor rfloor lang rang loz spades clubs hearts diams sup1 sup2 sup3 frac14 frac12 frac34 there4'
  ).split(' '),
);

/** htmlspecialchars() keeps only HTML 4.01's names when it does not double-encode: kses's list without `apos`. */
const HTML401_ENTITY_NAMES = new Set([...ENTITY_NAMES].filter((name) => name !== 'apos'));
