import exifr from 'exifr';

/**
 * The `image_meta` block of an image's metadata, as `wp_read_image_metadata()` returns it: every value a
 * string (WordPress passes them through kses), keywords an array of strings.
 */
export interface ImageMeta {
  aperture: string;
  credit: string;
  camera: string;
  caption: string;
  created_timestamp: string;
  copyright: string;
  focal_length: string;
  iso: string;
  shutter_speed: string;
  title: string;
  orientation: string;
  keywords: string[];
}

/** An `image_meta` with nothing known, as WordPress stores it for PNG, GIF and WebP files. */
export function emptyImageMeta(): ImageMeta {
  return {
    aperture: '0',
    credit: '',
    camera: '',
    caption: '',
    created_timestamp: '0',
    copyright: '',
    focal_length: '0',
    iso: '0',
    shutter_speed: '0',
    title: '',
    orientation: '0',
    keywords: [],
  };
}

type Segment = Record<string, unknown> | undefined;

/**
 * Reads EXIF and IPTC the way `wp_read_image_metadata()` does: IPTC first (headline or object name as the
 * title, caption, credit or by-line, creation date, copyright notice, keywords), then EXIF for what is still
 * missing (description as title when short, artist, copyright, F-number, camera model, digitised date, focal
 * length, ISO, exposure time, orientation). Only JPEG and TIFF carry these, as in WordPress.
 */
export async function readImageMeta(bytes: Uint8Array, mime: string): Promise<ImageMeta> {
  const meta = emptyImageMeta();
  if (mime !== 'image/jpeg' && mime !== 'image/tiff') return meta;

  let parsed: Record<string, Segment> | undefined;
  try {
    parsed = (await exifr.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), {
      tiff: true,
      exif: true,
      iptc: true,
      xmp: false,
      icc: false,
      gps: false,
      interop: false,
      translateKeys: true,
      translateValues: false,
      reviveValues: false,
      mergeOutput: false,
    })) as Record<string, Segment> | undefined;
  } catch {
    // A damaged EXIF block must not fail the upload; WordPress silences exif_read_data() the same way.
    return meta;
  }
  if (!parsed) return meta;

  const iptc = parsed.iptc;
  const exif: Record<string, unknown> = { ...(parsed.ifd0 ?? {}), ...(parsed.exif ?? {}) };

  if (iptc) {
    const headline = text(iptc.Headline);
    const objectName = text(iptc.ObjectName);
    if (headline) meta.title = headline;
    else if (objectName) meta.title = objectName;

    const caption = text(iptc.Caption);
    if (caption) {
      if (!meta.title && Buffer.byteLength(caption) < 80) meta.title = caption;
      meta.caption = caption;
    }
    meta.credit = text(iptc.Credit) || text(iptc.Byline);
    const date = text(iptc.DateCreated);
    const time = text(iptc.TimeCreated);
    if (date && time) {
      const ts = parseIptcTimestamp(date, time);
      if (ts !== undefined) meta.created_timestamp = String(ts);
    }
    meta.copyright = text(iptc.CopyrightNotice);
    const keywords = iptc.Keywords;
    if (Array.isArray(keywords)) meta.keywords = keywords.map((k) => text(k)).filter((k) => k !== '');
    else if (text(keywords)) meta.keywords = [text(keywords)];
  }

  const description = text(exif.ImageDescription);
  if (description) {
    if (!meta.title && Buffer.byteLength(description) < 80) meta.title = description;
    if (!meta.caption) meta.caption = text(exif.UserComment) || description;
  } else if (!meta.caption && text(exif.XPComment)) {
    meta.caption = text(exif.XPComment);
  }
  if (!meta.credit) meta.credit = text(exif.Artist) || text(exif.XPAuthor);
  if (!meta.copyright) meta.copyright = text(exif.Copyright);
  const fNumber = toNumber(exif.FNumber);
  if (fNumber) meta.aperture = phpFloat(Math.round(fNumber * 100) / 100);
  if (text(exif.Model)) meta.camera = text(exif.Model);
  if (meta.created_timestamp === '0') {
    const digitised = text(exif.CreateDate) || text(exif.DateTimeDigitized);
    const ts = digitised ? parseExifTimestamp(digitised) : undefined;
    if (ts !== undefined) meta.created_timestamp = String(ts);
  }
  const focal = toNumber(exif.FocalLength);
  if (focal) meta.focal_length = phpFloat(focal);
  const iso = Array.isArray(exif.ISO) ? exif.ISO[0] : exif.ISO;
  if (iso !== undefined && iso !== null && String(iso).trim() !== '' && String(iso) !== '0') {
    meta.iso = String(iso).trim();
  }
  const exposure = toNumber(exif.ExposureTime);
  if (exposure) meta.shutter_speed = phpFloat(exposure);
  const orientation = toNumber(exif.Orientation);
  if (orientation) meta.orientation = String(orientation);

  for (const key of ['title', 'caption', 'credit', 'copyright', 'camera', 'iso'] as const) {
    meta[key] = cleanText(meta[key]);
  }
  meta.keywords = meta.keywords.map(cleanText);
  return meta;
}

/** A string value of a tag, trimmed; byte arrays (UserComment and friends) decoded. */
function text(value: unknown): string {
  if (typeof value === 'string') return value.replace(/\0+$/, '').trim();
  if (typeof value === 'number') return String(value);
  if (value instanceof Uint8Array) {
    // EXIF UserComment starts with an 8-byte character-code header ("ASCII\0\0\0", "UNICODE\0").
    const header = Buffer.from(value.subarray(0, 8)).toString('latin1');
    const body = value.subarray(/^(ASCII|UNICODE|JIS|\0{8})/.test(header) ? 8 : 0);
    const decoded = header.startsWith('UNICODE')
      ? Buffer.from(body).toString('utf16le')
      : Buffer.from(body).toString('utf8');
    return decoded.replace(/\0+/g, '').trim();
  }
  return '';
}

/** `wp_exif_frac2dec()`: numbers stay numbers, "a/b" strings become a / b, anything else 0. */
function toNumber(value: unknown): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (Array.isArray(value) && value.length === 2) {
    const [n, d] = value as [unknown, unknown];
    if (typeof n === 'number' && typeof d === 'number' && d !== 0) return n / d;
  }
  if (typeof value === 'string') {
    const parts = value.split('/');
    if (parts.length === 2) {
      const n = Number(parts[0]);
      const d = Number(parts[1]);
      return Number.isFinite(n) && Number.isFinite(d) && d !== 0 ? n / d : 0;
    }
    const n = Number(value);
    return Number.isFinite(n) ? n : 0;
  }
  return 0;
}

/** A float as PHP's `(string)` cast prints it (14 significant digits, no trailing zeros). */
export function phpFloat(value: number): string {
  if (Number.isInteger(value)) return String(value);
  return String(Number.parseFloat(value.toPrecision(14)));
}

/** `wp_exif_date2ts()`: "YYYY:MM:DD HH:MM:SS" read as UTC (WordPress runs PHP in UTC). */
function parseExifTimestamp(value: string): number | undefined {
  const match = /^(\d{4}):(\d{2}):(\d{2})[ T](\d{2}):(\d{2}):(\d{2})/.exec(value.trim());
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s] = match.map(Number) as [number, number, number, number, number, number, number];
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : undefined;
}

/** IPTC date (CCYYMMDD) and time (HHMMSS±HHMM) as a Unix timestamp. */
function parseIptcTimestamp(date: string, time: string): number | undefined {
  const d = /^(\d{4})-?(\d{2})-?(\d{2})/.exec(date);
  const t = /^(\d{2}):?(\d{2}):?(\d{2})(?:([+-])(\d{2}):?(\d{2}))?/.exec(time);
  if (!d || !t) return undefined;
  let ms = Date.UTC(Number(d[1]), Number(d[2]) - 1, Number(d[3]), Number(t[1]), Number(t[2]), Number(t[3]));
  if (t[4]) ms -= (t[4] === '-' ? -1 : 1) * (Number(t[5]) * 60 + Number(t[6])) * 60_000;
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : undefined;
}

/**
 * What `wp_kses_post_deep()` leaves of a metadata string that will be shown in HTML: NUL and other control
 * characters removed (wp_kses_no_null, which kses runs first: an IPTC caption may hold a NUL, which PostgreSQL's
 * text cannot store), tags removed and bare ampersands encoded. Camera metadata is attacker-controlled, so it never
 * reaches a page raw.
 */
function cleanText(value: string): string {
  return (
    value
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters wp_kses_no_null removes
      .replace(/[\x00-\x08\x0B\x0C\x0E-\x1F]/g, '')
      .replace(/<[^>]*>?/g, '')
      .replace(/&(?!(?:[a-zA-Z][a-zA-Z0-9]*|#\d+|#x[0-9a-fA-F]+);)/g, '&amp;')
  );
}
