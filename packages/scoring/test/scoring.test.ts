import { describe, expect, it } from 'vitest';
import { type ScoredTrip, scoreTrip, TripNotScorableError, tierFor } from '../src/index.ts';
import { drive, emit, type Phase, positionOnly, urbanDrive } from './helpers/synthetic-drive.ts';

const harshBits: Phase[] = [{ pulse: -4.2, s: 1.5 }, { cruise: 30 }, { pulse: 3.0, s: 2 }, { cruise: 30 }];
const calm = drive(urbanDrive());
const harsh = drive(urbanDrive(harshBits));

function theme(trip: ScoredTrip, id: string) {
  return trip.themes.find((t) => t.id === id)!;
}
function factor(trip: ScoredTrip, key: string) {
  for (const t of trip.themes) for (const f of t.factors) if (f.key === key) return f;
  throw new Error(key);
}

describe('scoreTrip', () => {
  it('scores a calm drive Safe and a drive with harsh events lower, with the events behind the factors', () => {
    const a = scoreTrip(emit(calm, { imu: 'device' }));
    const b = scoreTrip(emit(harsh, { imu: 'device' }));
    expect(a.tier).toBe('Safe');
    expect(b.overallScore).toBeLessThan(a.overallScore - 5);
    const braking = b.events.filter((e) => e.type === 'harsh_braking');
    expect(braking).toHaveLength(1);
    expect(braking[0]).toMatchObject({ source: 'imu', severity: 'medium' }); // peak over 4.4 m/s^2
    expect(braking[0]!.value).toBeGreaterThan(3.9);
    expect(factor(b, 'harshBrakingRate').eventIds).toEqual([braking[0]!.id]);
    expect(b.reasons?.[0]?.eventIds.length).toBeGreaterThan(0);
    expect(b.modelVersion).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('finds harsh events from GPS speed without an IMU and records the source', () => {
    const trip = scoreTrip(emit(harsh, {}));
    const events = trip.events.filter((e) => e.type === 'harsh_braking' || e.type === 'harsh_acceleration');
    expect(events.map((e) => e.type).sort()).toEqual(['harsh_acceleration', 'harsh_braking']);
    for (const e of events) expect(e.source).toBe('gps');
    expect(trip.summary.imuAvailable).toBe(false);
  });

  it('leaves factors that need a missing sensor or map out of their theme instead of scoring them 0', () => {
    const trip = scoreTrip(emit(calm, {}));
    expect(trip.mapMatched).toBe(false);
    const speeding = theme(trip, 'speeding');
    expect(speeding.available).toBe(false);
    expect(speeding.themeScore).toBeNull();
    expect(factor(trip, 'speedingIntensity')).toMatchObject({ available: false, score: null, value: null });
    expect(factor(trip, 'speedingIntensity').unavailableReason).toContain('map-matched');
    expect(factor(trip, 'brakingOnsetJerk').unavailableReason).toContain('accelerometer');
    expect(theme(trip, 'distraction').available).toBe(false);
    // The theme score is the weighted mean of the available factors only.
    const braking = theme(trip, 'braking');
    let w = 0;
    let s = 0;
    for (const f of braking.factors) {
      if (!f.available) continue;
      w += f.weight;
      s += f.weight * f.score!;
    }
    expect(braking.themeScore!).toBeCloseTo(s / w, 0);
    expect(trip.themes.some((t) => t.id === trip.weakestTheme.id && t.available)).toBe(true);
  });

  it('never raises a score when a harsh event is added (monotone)', () => {
    // Five 60 s slots of motorway cruising; variant k puts a harsh manoeuvre into k of them, same duration.
    const slot = (k: number): Phase[] => {
      const peaks = [-4.2, 3.2, -5.2, 3.8, -6.5];
      const p = peaks[k]!;
      const recover = (Math.abs(p) * 1.5) / 1.5;
      return [{ pulse: p, s: 1.5 }, { to: 90, a: 1.5 }, { cruise: 60 - 1.5 - recover }];
    };
    const variant = (k: number) => {
      const phases: Phase[] = [];
      for (let i = 0; i < 5; i++) phases.push(...(i < k ? slot(i) : [{ cruise: 60 } as Phase]));
      return drive(urbanDrive(phases));
    };
    for (const imu of ['none', 'vehicle'] as const) {
      let previous = scoreTrip(emit(variant(0), { imu, seed: 3 }));
      for (let k = 1; k <= 5; k++) {
        const next = scoreTrip(emit(variant(k), { imu, seed: 3 }));
        expect(next.overallScore, `${imu}, ${k} events`).toBeLessThanOrEqual(previous.overallScore);
        for (const t of next.themes) {
          const before = theme(previous, t.id).themeScore;
          if (t.themeScore !== null && before !== null)
            expect(t.themeScore, `${imu} ${t.id} ${k}`).toBeLessThanOrEqual(before);
        }
        previous = next;
      }
    }
  });

  it('is deterministic and bounded', () => {
    const batch = emit(harsh, { imu: 'device', seed: 9 });
    const a = scoreTrip(batch);
    const b = scoreTrip(structuredClone(batch));
    expect(b).toEqual(a);
    for (const t of a.themes) {
      if (t.themeScore !== null) expect(t.themeScore).toBeGreaterThanOrEqual(0);
      for (const f of t.factors) if (f.score !== null) expect(f.score).toBeLessThanOrEqual(100);
    }
    expect(a.overallScore).toBeGreaterThanOrEqual(0);
    expect(a.overallScore).toBeLessThanOrEqual(100);
  });

  it('scores the same driving sampled at 1 Hz and 10 Hz within 2 points', () => {
    for (const imu of ['none', 'device'] as const) {
      for (const truth of [calm, harsh]) {
        const at1 = scoreTrip(emit(truth, { gpsHz: 1, imu, seed: 5 }));
        const at10 = scoreTrip(emit(truth, { gpsHz: 10, imu, seed: 6 }));
        expect(Math.abs(at1.overallScore - at10.overallScore), imu).toBeLessThanOrEqual(2);
        expect(Math.abs(at1.distanceKm - at10.distanceKm)).toBeLessThan(0.05);
      }
    }
  });

  it("does not drive a vehicle parked with a fleet tracker's fixes every 5 s on, on the scatter of its fixes", () => {
    // Each interval of a 0.2 Hz tracker is a gap. Parked 30 min with the ignition on, its fixes report 0 m/s and
    // scatter by a few metres: bridged at the speed of the straight line between them, that scatter was driving.
    const through = scoreTrip(emit(drive([...urbanDrive(), ...urbanDrive()]), { gpsHz: 0.2, gpsNoiseM: 3 }));
    const parked = scoreTrip(
      emit(drive([...urbanDrive(), { stop: 1800 }, ...urbanDrive()]), { gpsHz: 0.2, gpsNoiseM: 3 }),
    );
    expect(parked.summary.durationMin - through.summary.durationMin).toBeCloseTo(30, 0);
    expect(parked.distanceKm - through.distanceKm).toBeLessThan(0.3); // was 1.52 km
    expect(parked.summary.movingMin - through.summary.movingMin).toBeLessThan(2); // was 6.0 min
    expect(parked.summary.idleMin).toBeGreaterThan(29);
  });

  it('does not drive a vehicle standing 25 min on the scatter of position-only fixes, white or drifting', () => {
    // A GPX or CSV export has no Doppler speed: the smoother read the scatter of a parked phone as driving. With
    // 8 m of white scatter at 1 Hz the stop added 3.4 km, 19 min moving and 24 harsh events; with 5 m at 0.2 Hz,
    // 2.5 km and 14 min; with 8 m drifting over a minute, 1.3 km and 3 min.
    const first = drive(urbanDrive());
    const stopStartS = first.x.length * first.dtS;
    const through = drive([...urbanDrive(), ...urbanDrive()]);
    const stopped = drive([...urbanDrive(), { stop: 1500 }, ...urbanDrive()]);
    const variants: Array<{ gpsHz: number; sigmaM: number; tauS?: number; accuracyM?: number }> = [
      { gpsHz: 1, sigmaM: 8, accuracyM: 5 },
      { gpsHz: 0.5, sigmaM: 5, accuracyM: 5 },
      { gpsHz: 0.2, sigmaM: 5, accuracyM: 5 },
      { gpsHz: 1, sigmaM: 6 },
      { gpsHz: 1, sigmaM: 8, tauS: 60, accuracyM: 8 },
      { gpsHz: 0.5, sigmaM: 5, tauS: 60, accuracyM: 5 },
    ];
    for (const { gpsHz, ...noise } of variants) {
      const label = JSON.stringify({ gpsHz, ...noise });
      const a = scoreTrip(positionOnly(emit(through, { gpsHz, gpsNoiseM: 0 }), noise));
      const b = scoreTrip(positionOnly(emit(stopped, { gpsHz, gpsNoiseM: 0 }), noise));
      expect(Math.abs(b.distanceKm - a.distanceKm), label).toBeLessThan(0.15);
      expect(Math.abs(b.summary.movingMin - a.summary.movingMin), label).toBeLessThan(1);
      expect(b.summary.idleMin - a.summary.idleMin, label).toBeGreaterThan(24);
      const standing = b.events.filter((e) => {
        const s = (e.startMs - stopped.t0Ms) / 1000;
        return s >= stopStartS && s <= stopStartS + 1500;
      });
      expect(standing, label).toEqual([]);
    }
  });

  it("does not read a position-only trace's scatter as harsh driving: the smoother takes the scatter it measures", () => {
    // Two calm urban drives back to back, exported without speeds (GPX, CSV). Told 3 m where the fixes scatter 8 m,
    // the smoother followed the scatter: 39-44 harsh events and a score of 54-61 at 1 Hz (12 m: 95-106, 42-46); 5 m at
    // 0.5 Hz, where the grid between fixes also counted each fix again, 7-9 events and 76-83.
    const calmTwice = drive([...urbanDrive(), ...urbanDrive()]);
    const reference = scoreTrip(emit(calmTwice));
    expect(reference.events).toEqual([]);
    const variants = [
      { gpsHz: 1, sigmaM: 8 },
      { gpsHz: 1, sigmaM: 12 },
      { gpsHz: 0.5, sigmaM: 5 },
      { gpsHz: 0.5, sigmaM: 8 },
    ];
    for (const { gpsHz, sigmaM } of variants) {
      for (const seed of [1, 2, 3]) {
        const label = `${gpsHz} Hz, ${sigmaM} m, seed ${seed}`;
        const trip = scoreTrip(positionOnly(emit(calmTwice, { gpsHz, gpsNoiseM: 0 }), { sigmaM, accuracyM: 5, seed }));
        expect(trip.dataQuality?.speedSource, label).toBe('gps-position');
        expect(trip.dataQuality?.positionScatterM, label).toBeGreaterThan(sigmaM * 0.85);
        expect(trip.events.filter((e) => e.type.startsWith('harsh_')).length, label).toBeLessThanOrEqual(1);
        expect(trip.overallScore, label).toBeGreaterThan(93);
        expect(Math.abs(trip.distanceKm - reference.distanceKm), label).toBeLessThan(0.25);
      }
    }
    // A receiver's own fixes scatter far less than the smoother's 3 m, and keep the smoothing they always had.
    expect(reference.dataQuality?.positionScatterM).toBeLessThan(2);
  });

  it('does not read the staircase of coordinates rounded to 4 decimals (11 m) as harsh starts or a frozen receiver', () => {
    // Eight pulls away from lights, 1.6 m/s^2 to 45 km/h, exported without speeds and with 4 decimals, as a
    // spreadsheet keeps them. Before, 94-187 of ~1,100 fixes were dropped as stale and the smoother, told 3 m, read a
    // harsh acceleration in one trace of four.
    const lights = drive(
      Array.from({ length: 8 }, (): Phase[] => [
        { to: 45, a: 1.6 },
        { cruise: 40 },
        { turn: 90, over: 9 },
        { cruise: 20 },
        { to: 0, a: 1.8 },
        { stop: 30 },
      ]).flat(),
    );
    const round4 = (v: number) => Math.round(v * 1e4) / 1e4;
    for (const seed of [1, 2, 3, 4]) {
      const exported = positionOnly(emit(lights, { gpsNoiseM: 0 }), { sigmaM: 3, tauS: 30, seed });
      const full = scoreTrip(exported);
      const trip = scoreTrip({
        ...exported,
        samples: exported.samples.map((s) => (s.type === 'gps' ? { ...s, lon: round4(s.lon), lat: round4(s.lat) } : s)),
      });
      expect(trip.dataQuality?.droppedFixes.stale, `seed ${seed}`).toBeLessThanOrEqual(2);
      expect(
        trip.events.filter((e) => e.type.startsWith('harsh_')),
        `seed ${seed}`,
      ).toEqual([]);
      expect(Math.abs(trip.distanceKm - full.distanceKm), `seed ${seed}`).toBeLessThan(0.1);
      expect(trip.overallScore, `seed ${seed}`).toBeGreaterThan(99);
    }
  });

  it('does not take GPS speeds in km/h, mph or knots in the m/s field for m/s: the positions give the speed', () => {
    const batch = emit(calm);
    const right = scoreTrip(batch);
    for (const unit of [3.6, 2.237, 1.944]) {
      const samples = batch.samples.map((s) =>
        s.type === 'gps' && s.speedMps !== undefined ? { ...s, speedMps: s.speedMps * unit } : s,
      );
      // In km/h: 32.7 km for 9.1, 327 km/h, 10 harsh events, score 55.
      const trip = scoreTrip({ ...batch, samples });
      expect(trip.dataQuality?.speedSource, `×${unit}`).toBe('gps-position');
      expect(Math.abs(trip.distanceKm - right.distanceKm), `×${unit}`).toBeLessThan(0.1);
      expect(trip.summary.maxSpeedKmh, `×${unit}`).toBeLessThan(100);
      expect(
        trip.events.filter((e) => e.type.startsWith('harsh_')),
        `×${unit}`,
      ).toEqual([]);
      expect(trip.overallScore, `×${unit}`).toBeGreaterThan(95);
    }
    // Every fleet tracker rate: at one fix in 5 s each interval is a gap, and the speeds are checked all the same.
    const sparse = emit(calm, { gpsHz: 0.2 });
    const kmh = sparse.samples.map((s) =>
      s.type === 'gps' && s.speedMps !== undefined ? { ...s, speedMps: s.speedMps * 3.6 } : s,
    );
    const trip = scoreTrip({ ...sparse, samples: kmh });
    expect(Math.abs(trip.distanceKm - scoreTrip(sparse).distanceKm)).toBeLessThan(0.1); // was 13.8 km for 9.1
    expect(trip.summary.maxSpeedKmh).toBeLessThan(100); // was 327
  });

  it('does not take OBD speeds that disagree with the positions: a doubled reading does not double the drive', () => {
    // Positions without Doppler speeds and an OBD speed a second, as a dongle with its own GPS reports them.
    const batch = emit(calm);
    const fixes = batch.samples.filter((s) => s.type === 'gps');
    const withObd = (factor: number) => ({
      ...batch,
      samples: [
        ...fixes.map(({ speedMps: _, ...fix }) => fix),
        ...fixes.map((f) => ({ type: 'obd' as const, t: f.t, speedKmh: (f.speedMps ?? 0) * 3.6 * factor })),
      ].sort((a, b) => a.t - b.t),
    });
    const right = scoreTrip(withObd(1));
    expect(right.dataQuality?.speedSource).toBe('obd');
    const doubled = scoreTrip(withObd(2));
    expect(doubled.dataQuality?.speedSource).toBe('gps-position');
    expect(Math.abs(doubled.distanceKm - right.distanceKm)).toBeLessThan(0.3);
    expect(doubled.summary.maxSpeedKmh).toBeLessThan(right.summary.maxSpeedKmh * 1.2);
  });

  it('aligns a phone IMU in the device frame to the vehicle and finds the same events as a mounted one', () => {
    const device = scoreTrip(emit(harsh, { imu: 'device', seed: 2 }));
    const vehicle = scoreTrip(emit(harsh, { imu: 'vehicle', seed: 2 }));
    expect(device.dataQuality?.imu).toMatchObject({ available: true, alignment: 'gps', frame: 'device' });
    expect(vehicle.dataQuality?.imu).toMatchObject({ available: true, alignment: 'given' });
    const types = (t: ScoredTrip) => t.events.filter((e) => e.source === 'imu').map((e) => e.type);
    expect(types(device)).toEqual(types(vehicle));
    expect(Math.abs(device.overallScore - vehicle.overallScore)).toBeLessThan(1.5);
  });

  it('scores phone use while moving in distraction, not in cornering; hands-free calls do not count', () => {
    const base = { imu: 'vehicle' as const, seed: 4, phoneMonitored: true };
    const none = scoreTrip(emit(calm, base));
    const handsFree = scoreTrip(
      emit(calm, {
        ...base,
        phone: [
          { atS: 100, event: 'call_start', handsFree: true },
          { atS: 220, event: 'call_end' },
        ],
      }),
    );
    const texting = scoreTrip(
      emit(calm, {
        ...base,
        phone: [
          { atS: 240, event: 'unlock' },
          { atS: 241, event: 'typing_start' },
          { atS: 300, event: 'typing_end' },
          { atS: 301, event: 'lock' },
          { atS: 301, event: 'screen_off' },
        ],
      }),
    );
    expect(theme(none, 'distraction').themeScore).toBe(100);
    expect(theme(handsFree, 'distraction').themeScore).toBe(100);
    expect(factor(handsFree, 'handsFreeCallPerHour').value).toBeGreaterThan(0);
    expect(theme(texting, 'distraction').themeScore!).toBeLessThan(60);
    expect(texting.events.filter((e) => e.type === 'phone_use')).toHaveLength(1);
    expect(theme(texting, 'cornering').themeScore).toBe(theme(none, 'cornering').themeScore);
    expect(texting.weakestTheme.id).toBe('distraction');
  });

  it('treats missing phone events as unmeasured unless the recorder says it watched the phone', () => {
    expect(theme(scoreTrip(emit(calm, {})), 'distraction').available).toBe(false);
    expect(theme(scoreTrip(emit(calm, { phoneMonitored: true })), 'distraction').available).toBe(true);
  });

  it('counts night driving in the local time zone', () => {
    const night = drive(urbanDrive(), Date.UTC(2024, 0, 12, 23, 30)); // 00:30 in Berlin, a Saturday
    const trip = scoreTrip(emit(night, { timeZone: 'Europe/Berlin' }));
    expect(factor(trip, 'nightDrivingShare').value).toBe(100);
    expect(factor(trip, 'lateNightDrivingShare').value).toBe(100);
    expect(factor(trip, 'weekendNightShare').value).toBe(100);
    expect(trip.events.map((e) => e.type)).toEqual(expect.arrayContaining(['night_driving', 'late_night_driving']));
    expect(theme(trip, 'exposure').themeScore!).toBeLessThan(theme(scoreTrip(emit(calm, {})), 'exposure').themeScore!);
  });

  it('reads the local day and hour of every second, also across midnight', () => {
    // Friday 23:58:30 in Berlin: the whole trip is Friday night (Fri 22:00 - Sat 05:00), after midnight too.
    const friday = scoreTrip(
      emit(drive(urbanDrive(), Date.UTC(2024, 0, 12, 22, 58, 30)), { timeZone: 'Europe/Berlin' }),
    );
    expect(factor(friday, 'weekendNightShare').value).toBe(100);
    // Sunday 23:58:30 to Monday: Sunday night is not a weekend night, and Monday 00:00 is not Sunday.
    const sunday = scoreTrip(
      emit(drive(urbanDrive(), Date.UTC(2024, 0, 14, 22, 58, 30)), { timeZone: 'Europe/Berlin' }),
    );
    expect(factor(sunday, 'nightDrivingShare').value).toBe(100);
    expect(factor(sunday, 'weekendNightShare').value).toBe(0);
  });

  it('flags continuous driving with the stint carried over from earlier trips', () => {
    const trip = scoreTrip(emit(calm, {}), { drivingContext: { priorStintMin: 115 } });
    const event = trip.events.find((e) => e.type === 'continuous_driving');
    expect(event?.value).toBeCloseTo(115 + trip.durationMin, 1);
    expect(factor(trip, 'breakDeficitMinutes').value).toBeCloseTo(115 + trip.durationMin - 120, 1);
    expect(factor(trip, 'continuousDrivingMinutes').eventIds).toEqual([event!.id]);
  });

  it('rejects telemetry that holds no scorable trip, saying why', () => {
    const parked = drive([{ stop: 300 }]);
    expect(() => scoreTrip(emit(parked, {}))).toThrow(TripNotScorableError);
    const short = drive([{ to: 30, a: 1 }, { cruise: 20 }, { to: 0, a: 1 }]);
    expect(() => scoreTrip(emit(short, {}))).toThrow(/minimum|needs/);
    expect(scoreTrip(emit(short, {}), { allowShortTrip: true }).distanceKm).toBeLessThan(1);
    expect(() => scoreTrip([])).toThrow(/GPS/);
  });

  it('maps scores to the spec tiers', () => {
    expect([0, 44.9, 45, 64.9, 65, 79.9, 80, 100].map(tierFor)).toEqual([
      'Critical',
      'Critical',
      'Fair',
      'Fair',
      'Good',
      'Good',
      'Safe',
      'Safe',
    ]);
  });
});
