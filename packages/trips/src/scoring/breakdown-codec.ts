import { createHash } from 'node:crypto';
import type { ScoredTrip, ThemeId } from '@svc/scoring';

/**
 * A score breakdown is split in two for storage: the catalogue (themes, factor keys, labels,
 * descriptions, units, weights), identical for every trip scored by one model, stored once; and the
 * per-trip values (scores, measurements, availability), about a tenth of the size. A million trips then
 * take a few hundred megabytes instead of several gigabytes, and a read joins the two in memory.
 */
export interface Catalogue {
  modelVersion: string;
  themes: Array<{
    id: ThemeId;
    label: string;
    description: string;
    weight: number;
    factors: Array<{ key: string; label: string; description: string; unit: string; weight: number }>;
  }>;
}

/** Per theme: [themeScore, available]; per factor (in catalogue order): [score, value, available, reason?, eventIds?]. */
export interface BreakdownValues {
  t: Array<[number | null, 0 | 1]>;
  f: Array<[number | null, number | null, 0 | 1, (string | null)?, string[]?]>;
}

/** The breakdown as `/v1/trips/{id}/score-breakdown` serves it. */
export interface BreakdownView {
  tripId: string;
  overallScore: number;
  mapMatched: boolean;
  themes: Array<{
    id: ThemeId;
    label: string;
    description: string;
    themeScore: number | null;
    available: boolean;
    weight: number;
    factors: Array<{
      key: string;
      label: string;
      description: string;
      score: number | null;
      value: number | null;
      unit: string;
      weight: number;
      available: boolean;
      unavailableReason?: string;
      eventIds: string[];
    }>;
  }>;
  weakestTheme: { id: string; label: string };
}

/** Splits a scored trip's breakdown into its catalogue (with a content id) and its values. */
export function encodeBreakdown(scored: ScoredTrip): {
  catalogueId: string;
  catalogue: Catalogue;
  catalogueJson: string;
  valuesJson: string;
} {
  const catalogue: Catalogue = {
    modelVersion: scored.modelVersion,
    themes: scored.themes.map((t) => ({
      id: t.id,
      label: t.label,
      description: t.description,
      weight: t.weight,
      factors: t.factors.map((f) => ({
        key: f.key,
        label: f.label,
        description: f.description,
        unit: f.unit,
        weight: f.weight,
      })),
    })),
  };
  const catalogueJson = JSON.stringify(catalogue);
  const catalogueId = createHash('sha256').update(catalogueJson).digest('hex').slice(0, 24);
  const values: BreakdownValues = { t: [], f: [] };
  for (const theme of scored.themes) {
    values.t.push([theme.themeScore, theme.available ? 1 : 0]);
    for (const f of theme.factors) {
      const entry: BreakdownValues['f'][number] = [f.score, f.value, f.available ? 1 : 0];
      if (f.unavailableReason || f.eventIds.length > 0) entry.push(f.unavailableReason ?? null);
      if (f.eventIds.length > 0) entry.push(f.eventIds);
      values.f.push(entry);
    }
  }
  return { catalogueId, catalogue, catalogueJson, valuesJson: JSON.stringify(values) };
}

/** Joins a catalogue and a trip's values back into the served breakdown. */
export function decodeBreakdown(
  catalogue: Catalogue,
  valuesJson: string,
  trip: { tripId: string; overallScore: number; mapMatched: boolean; weakestTheme: string },
): BreakdownView {
  const values = JSON.parse(valuesJson) as BreakdownValues;
  let fi = 0;
  const themes = catalogue.themes.map((theme, ti) => {
    const [themeScore, available] = values.t[ti] ?? [null, 0];
    return {
      id: theme.id,
      label: theme.label,
      description: theme.description,
      themeScore,
      available: available === 1,
      weight: theme.weight,
      factors: theme.factors.map((f) => {
        const [score, value, fAvailable, reason, eventIds] = values.f[fi++] ?? [null, null, 0];
        return {
          key: f.key,
          label: f.label,
          description: f.description,
          score,
          value,
          unit: f.unit,
          weight: f.weight,
          available: fAvailable === 1,
          ...(reason ? { unavailableReason: reason } : {}),
          eventIds: eventIds ?? [],
        };
      }),
    };
  });
  const weakest = themes.find((t) => t.id === trip.weakestTheme) ?? themes[0];
  return {
    tripId: trip.tripId,
    overallScore: trip.overallScore,
    mapMatched: trip.mapMatched,
    themes,
    weakestTheme: { id: weakest?.id ?? trip.weakestTheme, label: weakest?.label ?? trip.weakestTheme },
  };
}

interface Fragments {
  themes: Array<{
    /** `{"id":..,"label":..,"description":..,"themeScore":` */
    head: string;
    /** `,"weight":..,"factors":[` */
    tail: string;
    /** Per factor: `{"key":..,"label":..,"description":..,"score":` and `,"unit":..,"weight":..,"available":`. */
    factors: Array<{ head: string; unitWeight: string }>;
  }>;
}

const fragmentCache = new WeakMap<Catalogue, Fragments>();

/** The static JSON pieces of a catalogue, built once per catalogue. */
function fragmentsOf(catalogue: Catalogue): Fragments {
  let f = fragmentCache.get(catalogue);
  if (!f) {
    const j = JSON.stringify;
    f = {
      themes: catalogue.themes.map((t) => ({
        head: `{"id":${j(t.id)},"label":${j(t.label)},"description":${j(t.description)},"themeScore":`,
        tail: `,"weight":${j(t.weight)},"factors":[`,
        factors: t.factors.map((x) => ({
          head: `{"key":${j(x.key)},"label":${j(x.label)},"description":${j(x.description)},"score":`,
          unitWeight: `,"unit":${j(x.unit)},"weight":${j(x.weight)},"available":`,
        })),
      })),
    };
    fragmentCache.set(catalogue, f);
  }
  return f;
}

const num = (v: number | null | undefined) =>
  v === null || v === undefined || !Number.isFinite(v) ? 'null' : String(v);

/**
 * The same breakdown as {@link decodeBreakdown}, serialised straight to JSON from the catalogue's
 * pre-built pieces: the hot path of `/v1/trips/{id}/score-breakdown`. It builds one string by appending
 * (no intermediate objects or arrays to join): about four times faster than building the view and
 * calling JSON.stringify, which matters at thousands of requests per second.
 */
export function breakdownJson(
  catalogue: Catalogue,
  valuesJson: string,
  trip: { tripId: string; overallScore: number; mapMatched: boolean; weakestTheme: string },
): string {
  const values = JSON.parse(valuesJson) as BreakdownValues;
  const fragments = fragmentsOf(catalogue);
  let out = `{"tripId":${JSON.stringify(trip.tripId)},"overallScore":${num(trip.overallScore)},"mapMatched":${trip.mapMatched},"themes":[`;
  let weakest: { id: string; label: string } | undefined;
  let fi = 0;
  const themes = catalogue.themes;
  for (let ti = 0; ti < themes.length; ti++) {
    const theme = themes[ti]!;
    if (theme.id === trip.weakestTheme) weakest = { id: theme.id, label: theme.label };
    const tf = fragments.themes[ti]!;
    const tv = values.t[ti];
    if (ti > 0) out += ',';
    out += tf.head + num(tv?.[0]) + (tv?.[1] === 1 ? ',"available":true' : ',"available":false') + tf.tail;
    const factors = tf.factors;
    for (let k = 0; k < factors.length; k++) {
      const ff = factors[k]!;
      const fv = values.f[fi++];
      if (k > 0) out += ',';
      out += ff.head + num(fv?.[0]) + ',"value":' + num(fv?.[1]) + ff.unitWeight + (fv?.[2] === 1 ? 'true' : 'false');
      const reason = fv?.[3];
      if (reason) out += ',"unavailableReason":' + JSON.stringify(reason);
      const eventIds = fv?.[4];
      out += eventIds && eventIds.length > 0 ? ',"eventIds":' + JSON.stringify(eventIds) + '}' : ',"eventIds":[]}';
    }
    out += ']}';
  }
  weakest ??= {
    id: catalogue.themes[0]?.id ?? trip.weakestTheme,
    label: catalogue.themes[0]?.label ?? trip.weakestTheme,
  };
  return out + '],"weakestTheme":' + JSON.stringify(weakest) + '}';
}

/** A catalogue's constant JSON pieces as UTF-8 bytes, in the order {@link breakdownBytes} writes them. */
interface ByteFragments {
  /** Per theme: `{"id":..,"label":..,"description":..,"themeScore":` (with a leading comma after the first). */
  themeHeads: Buffer[];
  /** Per theme, [unavailable, available]: `,"available":false|true,"weight":..,"factors":[`. */
  themeMids: Array<[Buffer, Buffer]>;
  /** Per theme: how many factors it has (the values list them flat, in catalogue order). */
  factorCounts: number[];
  /** Per factor (flat): `{"key":..,"label":..,"description":..,"score":` (with a leading comma after a theme's first). */
  factorHeads: Buffer[];
  /** Per factor (flat), [unavailable, available]: `,"unit":..,"weight":..,"available":false|true`. */
  factorTails: Array<[Buffer, Buffer]>;
  /** Per theme id: `],"weakestTheme":{"id":..,"label":..}}`. */
  weakest: Map<string, Buffer>;
  /** Bytes of every constant piece a response can hold, with the longest variant of each. */
  constantBytes: number;
}

const byteFragmentCache = new WeakMap<Catalogue, ByteFragments>();

function byteFragmentsOf(catalogue: Catalogue): ByteFragments {
  let f = byteFragmentCache.get(catalogue);
  if (f) return f;
  const j = JSON.stringify;
  const b = (s: string) => Buffer.from(s, 'utf8');
  f = {
    themeHeads: [],
    themeMids: [],
    factorCounts: [],
    factorHeads: [],
    factorTails: [],
    weakest: new Map(),
    constantBytes: 0,
  };
  let bytes = 0;
  for (const [ti, t] of catalogue.themes.entries()) {
    const head = b(
      `${ti > 0 ? ',' : ''}{"id":${j(t.id)},"label":${j(t.label)},"description":${j(t.description)},"themeScore":`,
    );
    const mid = (available: boolean) => b(`,"available":${available},"weight":${j(t.weight)},"factors":[`);
    f.themeHeads.push(head);
    f.themeMids.push([mid(false), mid(true)]);
    f.factorCounts.push(t.factors.length);
    bytes += head.length + f.themeMids[ti]![0].length + 2; // `]}` closes the theme
    for (const [k, x] of t.factors.entries()) {
      const fhead = b(
        `${k > 0 ? ',' : ''}{"key":${j(x.key)},"label":${j(x.label)},"description":${j(x.description)},"score":`,
      );
      const tail = (available: boolean) => b(`,"unit":${j(x.unit)},"weight":${j(x.weight)},"available":${available}`);
      f.factorHeads.push(fhead);
      f.factorTails.push([tail(false), tail(true)]);
      bytes += fhead.length + VALUE.length + f.factorTails.at(-1)![0].length + REASON.length + EVENT_IDS.length + 3;
    }
    if (!f.weakest.has(t.id)) f.weakest.set(t.id, b(`],"weakestTheme":${j({ id: t.id, label: t.label })}}`));
  }
  let longestWeakest = 0;
  for (const w of f.weakest.values()) longestWeakest = Math.max(longestWeakest, w.length);
  f.constantBytes = bytes + longestWeakest;
  byteFragmentCache.set(catalogue, f);
  return f;
}

const VALUE = Buffer.from(',"value":');
const REASON = Buffer.from(',"unavailableReason":');
const EVENT_IDS = Buffer.from(',"eventIds":');
const NO_EVENT_IDS = Buffer.from(',"eventIds":[]}');

// Byte values of the JSON punctuation the scanner looks for.
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN = 0x5b;
const CLOSE = 0x5d;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const LOWER_E = 0x65;
const UPPER_E = 0x45;
const LOWER_N = 0x6e;

/** Writes `piece` into `out` at `pos`; returns the position after it. */
function put(out: Buffer, pos: number, piece: Buffer): number {
  out.set(piece, pos);
  return pos + piece.length;
}

/** Copies bytes `from`-`to` of `source` into `out` at `pos`; returns the position after them. */
function copy(out: Buffer, pos: number, source: Buffer, from: number, to: number): number {
  let p = pos;
  for (let k = from; k < to; k++) out[p++] = source[k]!;
  return p;
}

/** The stored values did not have the exact shape {@link encodeBreakdown} writes: use the general path. */
class UnexpectedValues extends Error {}

/**
 * Reads the stored values JSON (bytes) token by token, as {@link encodeBreakdown} writes it with
 * JSON.stringify: `{"t":[[score,flag],...],"f":[[score,value,flag(,reason(,[ids]))],...]}` with no spaces.
 * Tokens are located, not parsed: a number, a string or an array of strings is copied into the response
 * exactly as stored, which is what JSON.stringify of the parsed value would write again.
 */
class ValuesScanner {
  i = 0;
  constructor(readonly v: Buffer) {}

  fail(): never {
    throw new UnexpectedValues();
  }

  expect(byte: number): void {
    if (this.v[this.i] !== byte) this.fail();
    this.i++;
  }

  expectText(text: string): void {
    for (let k = 0; k < text.length; k++) this.expect(text.charCodeAt(k));
  }

  /** `null` or a JSON number; returns its end (its start is `this.i` before the call). */
  numberOrNull(): number {
    const v = this.v;
    let i = this.i;
    if (v[i] === LOWER_N) {
      if (v[i + 1] !== 0x75 || v[i + 2] !== 0x6c || v[i + 3] !== 0x6c) this.fail();
      this.i = i + 4;
      return this.i;
    }
    if (v[i] === MINUS) i++;
    if (v[i] === ZERO) i++;
    else i = this.digits(i);
    if (v[i] === DOT) i = this.digits(i + 1);
    if (v[i] === LOWER_E || v[i] === UPPER_E) {
      i++;
      if (v[i] === PLUS || v[i] === MINUS) i++;
      i = this.digits(i);
    }
    this.i = i;
    return i;
  }

  /** One or more digits from `at`; returns their end. */
  digits(at: number): number {
    const v = this.v;
    let k = at;
    while (k < v.length && v[k]! >= ZERO && v[k]! <= NINE) k++;
    if (k === at) this.fail();
    return k;
  }

  /** A flag stored as 0 or 1; true for 1. */
  flag(): boolean {
    const c = this.v[this.i++];
    if (c === 0x31) return true;
    if (c !== ZERO) this.fail();
    return false;
  }

  /** A JSON string; returns its end. Its bytes are copied as they are, escapes included. */
  string(): number {
    const v = this.v;
    let i = this.i;
    if (v[i] !== QUOTE) this.fail();
    i++;
    for (;;) {
      if (i >= v.length) this.fail();
      const c = v[i]!;
      if (c === QUOTE) break;
      // A raw control character is not JSON (JSON.stringify escapes them): let JSON.parse judge it.
      if (c < 0x20) this.fail();
      // Bytes of multi-byte UTF-8 characters are all >= 0x80, never a quote or a backslash.
      i += c === BACKSLASH ? 2 : 1;
    }
    this.i = i + 1;
    return this.i;
  }

  /** `[]` or an array of JSON strings; returns its end. */
  stringArray(): number {
    this.expect(OPEN);
    if (this.v[this.i] !== CLOSE) {
      this.string();
      while (this.v[this.i] === COMMA) {
        this.i++;
        this.string();
      }
    }
    this.expect(CLOSE);
    return this.i;
  }
}

/**
 * The same response body as {@link breakdownJson} (and so as JSON.stringify of {@link decodeBreakdown}),
 * as UTF-8 bytes wrapped in `before` and `after`: the hot path of `/v1/trips/{id}/score-breakdown`. The
 * catalogue's constant pieces are encoded once; a response copies them and the per-trip tokens of the
 * stored values (located by a scanner, never parsed) into one buffer, which is sent as it is: no
 * intermediate objects or strings, and no UTF-8 encoding of the 27 KB body per request. Values of any
 * other shape than the writer's (or fewer or more than the catalogue has) take the general path.
 */
export function breakdownBytes(
  catalogue: Catalogue,
  valuesJson: string,
  trip: { tripId: string; overallScore: number; mapMatched: boolean; weakestTheme: string },
  before = '',
  after = '',
): Buffer {
  const f = byteFragmentsOf(catalogue);
  const values = Buffer.from(valuesJson, 'utf8');
  const head = `${before}{"tripId":${JSON.stringify(trip.tripId)},"overallScore":${num(trip.overallScore)},"mapMatched":${trip.mapMatched},"themes":[`;
  const first = catalogue.themes[0];
  const weakest =
    f.weakest.get(trip.weakestTheme) ??
    Buffer.from(
      `],"weakestTheme":${JSON.stringify({ id: first?.id ?? trip.weakestTheme, label: first?.label ?? trip.weakestTheme })}}`,
    );
  const out = Buffer.allocUnsafe(
    Buffer.byteLength(head) + f.constantBytes + weakest.length + values.length + Buffer.byteLength(after),
  );
  try {
    let pos = out.write(head, 0, 'utf8');
    const s = new ValuesScanner(values);
    s.expectText('{"t":[');
    // Theme values come first, then the factors: the themes' pieces are written after both are read.
    const themeCount = f.themeHeads.length;
    const themeScores: number[] = [];
    for (let ti = 0; ti < themeCount; ti++) {
      if (ti > 0) s.expect(COMMA);
      s.expect(OPEN);
      const start = s.i;
      themeScores.push(start, s.numberOrNull());
      s.expect(COMMA);
      themeScores.push(s.flag() ? 1 : 0);
      s.expect(CLOSE);
    }
    s.expectText('],"f":[');
    let fi = 0;
    for (let ti = 0; ti < themeCount; ti++) {
      pos = put(out, pos, f.themeHeads[ti]!);
      pos = copy(out, pos, values, themeScores[ti * 3]!, themeScores[ti * 3 + 1]!);
      pos = put(out, pos, f.themeMids[ti]![themeScores[ti * 3 + 2]!]!);
      const n = f.factorCounts[ti]!;
      for (let k = 0; k < n; k++, fi++) {
        if (fi > 0) s.expect(COMMA);
        s.expect(OPEN);
        pos = put(out, pos, f.factorHeads[fi]!);
        let start = s.i;
        pos = copy(out, pos, values, start, s.numberOrNull());
        s.expect(COMMA);
        pos = put(out, pos, VALUE);
        start = s.i;
        pos = copy(out, pos, values, start, s.numberOrNull());
        s.expect(COMMA);
        pos = put(out, pos, f.factorTails[fi]![s.flag() ? 1 : 0]);
        let eventsWritten = false;
        if (values[s.i] === COMMA) {
          s.i++;
          if (values[s.i] === LOWER_N) s.numberOrNull();
          else {
            start = s.i;
            const end = s.string();
            // An empty reason is no reason, as in decodeBreakdown.
            if (end - start > 2) {
              pos = put(out, pos, REASON);
              pos = copy(out, pos, values, start, end);
            }
          }
          if (values[s.i] === COMMA) {
            s.i++;
            if (values[s.i] === LOWER_N) s.numberOrNull();
            else {
              start = s.i;
              const end = s.stringArray();
              pos = put(out, pos, EVENT_IDS);
              pos = copy(out, pos, values, start, end);
              out[pos++] = 0x7d; // }
              eventsWritten = true;
            }
          }
        }
        if (!eventsWritten) pos = put(out, pos, NO_EVENT_IDS);
        s.expect(CLOSE);
      }
      out[pos++] = CLOSE;
      out[pos++] = 0x7d; // }
    }
    s.expectText(']}');
    if (s.i !== values.length) s.fail();
    pos = put(out, pos, weakest);
    pos += out.write(after, pos, 'utf8');
    return out.subarray(0, pos);
  } catch (err) {
    if (!(err instanceof UnexpectedValues)) throw err;
    return Buffer.from(before + breakdownJson(catalogue, valuesJson, trip) + after, 'utf8');
  }
}
