import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { fakeScorer } from '../../test/fixtures/fake-scorer.ts';
import { gpsTrip } from '../../test/fixtures/telemetry.ts';
import { breakdownJson, type Catalogue, decodeBreakdown, encodeBreakdown } from './breakdown-codec.ts';

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
});
