/**
 * Small ports of the PHP behaviours WordPress's REST layer relies on (is_numeric, (int) casts, array
 * shapes, wp_parse_list, parse_str). Request values arrive as strings from query strings and form bodies
 * and as JSON values from JSON bodies; WordPress treats both through PHP's loose rules, and clients
 * depend on that (`?per_page=5`, `?include=1,2`, `?sticky=1`).
 */

const NUMERIC = /^[ \t\n\r\v\f]*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?[ \t\n\r\v\f]*$/;

/** PHP's is_numeric(). */
export function isNumeric(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value === 'string') return NUMERIC.test(value);
  return false;
}

/** PHP's (float) cast, for values that passed isNumeric (and a best effort otherwise). */
export function toFloat(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string') {
    const m = /^[ \t\n\r\v\f]*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?/.exec(value);
    return m ? Number(m[0]) : 0;
  }
  if (Array.isArray(value)) return value.length > 0 ? 1 : 0;
  if (value !== null && typeof value === 'object') return Object.keys(value).length > 0 ? 1 : 0;
  return 0;
}

/** PHP's (int) cast (truncation toward zero, leading-number parsing of strings). */
export function toInt(value: unknown): number {
  const f = toFloat(value);
  if (!Number.isFinite(f)) return 0;
  const t = Math.trunc(f);
  return Object.is(t, -0) ? 0 : t;
}

/**
 * PHP's strtolower() as of PHP 8.2: ASCII letters only, whatever the locale (before 8.2 it followed LC_CTYPE, which
 * is "C" or a UTF-8 locale under WordPress, so also ASCII only in practice): "CAFÉ" gives "cafÉ".
 */
export function strtolower(value: string): string {
  return /[A-Z]/.test(value) ? value.replace(/[A-Z]+/g, (run) => run.toLowerCase()) : value;
}

/**
 * PHP's stripslashes(): a backslash is dropped and the character after it kept (two backslashes give
 * one). A backslash and `0`, which PHP turns into U+0000, gives nothing here: a request's strings never hold
 * U+0000 (see RestRequest.removeNulCharacters).
 */
export function stripslashes(value: string): string {
  return value.includes('\\') ? value.replace(/\\([\s\S]?)/g, (_, next: string) => (next === '0' ? '' : next)) : value;
}

/** WordPress's absint(). */
export function absint(value: unknown): number {
  return Math.abs(toInt(value));
}

/** PHP's is_scalar(). */
export function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** A plain object (what a JSON object or a PHP associative array decodes to). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

const INT_KEY = /^(0|-?[1-9]\d*)$/;

/** wp_is_numeric_array(): a PHP array whose keys are all integers (a JS array, or an object with integer keys). */
export function isNumericArray(value: unknown): boolean {
  if (Array.isArray(value)) return true;
  if (!isPlainObject(value)) return false;
  return Object.keys(value).every((k) => INT_KEY.test(k));
}

/** array_values() over a JS array or an integer-keyed object. */
export function arrayValues(value: unknown): unknown[] {
  if (Array.isArray(value)) return [...value];
  if (isPlainObject(value)) return Object.values(value);
  return [];
}

/** wp_parse_list(): a comma- or space-separated string to a list; arrays keep their scalar entries. */
export function parseList(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.filter(isScalar);
  if (isPlainObject(value)) return Object.values(value).filter(isScalar);
  if (value === null || value === undefined) return [];
  return phpString(value)
    .split(/[\s,]+/)
    .filter((s) => s !== '');
}

/** PHP's (string) cast for scalars. */
export function phpString(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? '1' : '';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : String(value);
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return 'Array';
  return '';
}

/**
 * PHP's parse_str() (as WordPress sees `$_GET`/`$_POST`): `a=1&b[]=2&b[]=3&c[x]=4` gives
 * `{ a: '1', b: ['2', '3'], c: { x: '4' } }`. Lists built with `[]` become arrays; explicit keys make
 * objects (integer keys included, which isNumericArray still treats as a list).
 */
export function parseQueryString(query: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!query) return out;
  for (const part of query.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const rawKey = eq === -1 ? part : part.slice(0, eq);
    const rawValue = eq === -1 ? '' : part.slice(eq + 1);
    const key = decode(rawKey);
    const value = decode(rawValue);
    if (key === '') continue;
    assignPhpKey(out, key, value);
  }
  return out;
}

function decode(s: string): string {
  const plus = s.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(plus);
  } catch {
    return plus.replace(/%([0-9a-fA-F]{2})/g, (_m, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
  }
}

/**
 * PHP's max_input_nesting_level: a name with more levels of brackets is dropped, as PHP drops it. Without the
 * bound, `a[x][x]...` ten thousand deep overflowed the stack of whatever walked the value later (a 500).
 */
export const MAX_INPUT_NESTING = 64;

/**
 * The highest integer key of each map the parser builds, for `[]` (PHP's next free element): found by scanning
 * the keys at each `[]`, `a[x]=1&a[]=1&a[]=1...` was quadratic (40,000 of them in a form body held the
 * event loop 124 s, before any authentication) and a spread of 200,000 keys overflowed the stack.
 */
const highestIntKey = new WeakMap<object, number>();

/** Sets `slot` of a parsed map or list, keeping the map's highest integer key. */
function setSlot(container: Record<string, unknown> | unknown[], slot: string, value: unknown): void {
  (container as Record<string, unknown>)[slot] = value;
  if (!Array.isArray(container) && INT_KEY.test(slot)) {
    const n = Number(slot);
    const highest = highestIntKey.get(container);
    if (highest === undefined || n > highest) highestIntKey.set(container, n);
  }
}

function assignPhpKey(target: Record<string, unknown>, key: string, value: unknown): void {
  const open = key.indexOf('[');
  if (open <= 0 || !key.includes(']', open)) {
    // PHP turns '.' and ' ' in top-level names into '_'.
    target[key.replace(/[. ]/g, '_')] = value;
    return;
  }
  const base = key.slice(0, open).replace(/[. ]/g, '_');
  const path: string[] = [];
  const re = /\[([^\]]*)\]/g;
  re.lastIndex = open;
  let m: RegExpExecArray | null = re.exec(key);
  while (m !== null) {
    path.push(m[1] ?? '');
    if (path.length > MAX_INPUT_NESTING) return;
    m = re.exec(key);
  }
  let container: Record<string, unknown> | unknown[] = target;
  let slot: string = base;
  for (const segment of path) {
    const existing: unknown = (container as Record<string, unknown>)[slot];
    let next: Record<string, unknown> | unknown[];
    if (Array.isArray(existing) || isPlainObject(existing)) next = existing;
    else {
      next = segment === '' ? [] : {};
      setSlot(container, slot, next);
    }
    if (segment === '') {
      if (Array.isArray(next)) {
        slot = String(next.length);
      } else {
        const highest = highestIntKey.get(next);
        slot = String(highest === undefined ? 0 : highest + 1);
      }
    } else if (Array.isArray(next) && !(INT_KEY.test(segment) && Number(segment) === next.length)) {
      // A named key on a list turns it into a map, as PHP arrays are both.
      const asObject: Record<string, unknown> = { ...next };
      if (next.length > 0) highestIntKey.set(asObject, next.length - 1);
      setSlot(container, slot, asObject);
      next = asObject;
      slot = segment;
    } else {
      slot = segment;
    }
    container = next;
  }
  setSlot(container, slot, value);
}
