import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { fakeScorer } from '../../test/fixtures/fake-scorer.ts';
import { gpsTrip } from '../../test/fixtures/telemetry.ts';
import {
  type BreakdownValues,
  breakdownBytes,
  breakdownJson,
  type Catalogue,
  decodeBreakdown,
  encodeBreakdown,
} from './breakdown-codec.ts';

describe('breakdown codec', () => {
  it('round-trips a breakdown through catalogue + values, and the JSON fast path says the same', async () => {
    const batch = gpsTrip({ startMs: Date.UTC(2026, 0, 1), vehicle: 'X-1', speedKmh: 70 });
    const scored = await fakeScorer().score({ telemetryGz: gzipSync(JSON.stringify(batch)), previousTrips: [] });
    const { catalogueId, catalogueJson, valuesJson } = encodeBreakdown(scored);
    expect(catalogueId).toMatch(/^[0-9a-f]{24}$/);
    expect(valuesJson.length).toBeLessThan(catalogueJson.length);
    const catalogue = JSON.parse(catalogueJson) as Catalogue;
    const trip = {
      tripId: 'trip_x',
      overallScore: scored.overallScore,
      mapMatched: true,
      weakestTheme: scored.weakestTheme.id,
    };
    const view = decodeBreakdown(catalogue, valuesJson, trip);
    expect(view.themes.map((t) => t.id)).toEqual(scored.themes.map((t) => t.id));
    for (const [i, theme] of scored.themes.entries()) {
      expect(view.themes[i]!.themeScore).toBe(theme.themeScore);
      expect(view.themes[i]!.factors.map((f) => [f.key, f.score, f.value, f.available, f.eventIds])).toEqual(
        theme.factors.map((f) => [f.key, f.score, f.value, f.available, f.eventIds]),
      );
    }
    expect(view.weakestTheme).toEqual(scored.weakestTheme);
    expect(JSON.parse(breakdownJson(catalogue, valuesJson, trip))).toEqual(view);
    expect(breakdownBytes(catalogue, valuesJson, trip, '{"ok":true,"breakdown":', '}').toString('utf8')).toBe(
      `{"ok":true,"breakdown":${JSON.stringify(view)}}`,
    );
  });

  it('gives the same catalogue id to trips of the same model', async () => {
    const scorer = fakeScorer();
    const a = await scorer.score({
      telemetryGz: gzipSync(JSON.stringify(gpsTrip({ startMs: 1e12, speedKmh: 30 }))),
      previousTrips: [],
    });
    const b = await scorer.score({
      telemetryGz: gzipSync(JSON.stringify(gpsTrip({ startMs: 2e12, speedKmh: 90 }))),
      previousTrips: [],
    });
    expect(encodeBreakdown(a).catalogueId).toBe(encodeBreakdown(b).catalogueId);
  });

  // Both fast paths must write exactly what JSON.stringify writes for the view decodeBreakdown builds,
  // whatever the catalogue and the values hold.
  it('writes exactly JSON.stringify of the decoded view for varied catalogues and values', () => {
    let seed = 20261121;
    const rnd = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    const texts = [
      'Speeding',
      'plain words',
      'quote " and backslash \\ inside',
      'new\nline, tab\t, return\r',
      'control \u0001\u001f chars',
      'accents é à ü, ≤ 30 km/h, 20 °C',
      'emoji 😀 and a lone surrogate \ud800 here',
      '</script><b>',
      '',
    ];
    const numbers = [0, -0, 1, 42, 99.9, 0.492, -3.5, 1e-7, 123456789.123, 1e21, 2.5e-300];
    const scoreOf = () => (rnd() < 0.2 ? null : pick(numbers));
    const themeIds = ['speeding', 'braking', 'acceleration', 'cornering', 'distraction', 'exposure'] as const;
    for (let round = 0; round < 300; round++) {
      const catalogue: Catalogue = {
        modelVersion: `m-${round}`,
        themes: Array.from({ length: Math.floor(rnd() * 7) }, (_, t) => ({
          id: themeIds[t]!,
          label: pick(texts),
          description: pick(texts),
          weight: pick(numbers),
          factors: Array.from({ length: Math.floor(rnd() * 5) }, (_, k) => ({
            key: `factor${k}${pick(['', '"q"', '\\'])}`,
            label: pick(texts),
            description: pick(texts),
            unit: pick(['', 'km/h', '%', 'µs "x"']),
            weight: pick(numbers),
          })),
        })),
      };
      // Values as encodeBreakdown writes them: reason only when there is one or event ids follow.
      const values: BreakdownValues = { t: [], f: [] };
      for (const theme of catalogue.themes) {
        values.t.push([scoreOf(), rnd() < 0.7 ? 1 : 0]);
        for (const _ of theme.factors) {
          const available = rnd() < 0.7;
          const reason = available ? null : pick([null, ...texts]);
          const eventIds = rnd() < 0.5 ? [] : Array.from({ length: 1 + Math.floor(rnd() * 4) }, () => pick(texts));
          const entry: BreakdownValues['f'][number] = [available ? scoreOf() : null, scoreOf(), available ? 1 : 0];
          if (reason || eventIds.length > 0) entry.push(reason);
          if (eventIds.length > 0) entry.push(eventIds);
          values.f.push(entry);
        }
      }
      const trip = {
        tripId: `trip_${round}`,
        overallScore: pick(numbers),
        mapMatched: rnd() < 0.5,
        weakestTheme: rnd() < 0.8 ? (catalogue.themes.at(-1)?.id ?? 'speeding') : 'unknown_theme',
      };
      // The stored shape, and shapes no current writer produces (spaces, other key order, flags written as
      // booleans, fewer or more values than the catalogue has) that the general path must still serve.
      const variants = [
        JSON.stringify(values),
        JSON.stringify(values, null, 1),
        JSON.stringify({ f: values.f, t: values.t }),
        JSON.stringify({ t: values.t.map(([s, a]) => [s, a === 1]), f: values.f }),
        JSON.stringify({ t: values.t.slice(1), f: values.f.slice(1) }),
        JSON.stringify({ t: [...values.t, [1, 1]], f: [...values.f, [1, 2, 1]] }),
        JSON.stringify({ t: values.t, f: values.f.map((f) => (f.length === 5 ? [f[0], f[1], f[2], f[3], null] : f)) }),
      ];
      for (const valuesJson of variants) {
        const expected = JSON.stringify(decodeBreakdown(catalogue, valuesJson, trip));
        expect(breakdownJson(catalogue, valuesJson, trip)).toBe(expected);
        const bytes = breakdownBytes(catalogue, valuesJson, trip, '{"ok":true,"breakdown":', '}');
        expect(bytes.equals(Buffer.from(`{"ok":true,"breakdown":${expected}}`, 'utf8'))).toBe(true);
      }
    }
  });

  it('serves the stored values even when their strings hold characters JSON must escape', () => {
    const catalogue: Catalogue = {
      modelVersion: 'm',
      themes: [
        {
          id: 'braking',
          label: 'Braking "hard"',
          description: 'line\nbreak',
          weight: 0.2,
          factors: [{ key: 'k', label: 'L', description: 'D', unit: 'm/s²', weight: 1 }],
        },
      ],
    };
    const reason = 'no IMU \\ "phone" data\u0007 é';
    const valuesJson = JSON.stringify({ t: [[null, 0]], f: [[null, null, 0, reason, ['ev"1', 'ev\\2']]] });
    const trip = { tripId: 'trip_x', overallScore: 50, mapMatched: false, weakestTheme: 'braking' };
    const body = JSON.parse(breakdownBytes(catalogue, valuesJson, trip).toString('utf8'));
    expect(body.themes[0].factors[0]).toEqual({
      key: 'k',
      label: 'L',
      description: 'D',
      score: null,
      value: null,
      unit: 'm/s²',
      weight: 1,
      available: false,
      unavailableReason: reason,
      eventIds: ['ev"1', 'ev\\2'],
    });
    expect(body.weakestTheme).toEqual({ id: 'braking', label: 'Braking "hard"' });
  });
});
