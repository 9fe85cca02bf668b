import { describe, expect, it } from 'vitest';
import {
  type AccelSample,
  driverProfile,
  type GpsSample,
  GRAVITY_MPS2,
  type ObdSample,
  type PhoneSample,
  Rng,
  randomPlace,
  simulateTrip,
} from '../src/index.ts';
import { MONDAY_8AM_MS, testCity } from './city.ts';

const graph = testCity();
const rng = Rng.from('sensor-test');
const points = Array.from({ length: 4 }, () => randomPlace(graph, rng, 'work'));
const driver = driverProfile({ aggressiveness: 0.5, phoneUse: 0.8 });
const base = {
  graph,
  from: points[0]!,
  via: points.slice(1, -1),
  viaDwellS: 30,
  to: points[3]!,
  driver,
  startMs: MONDAY_8AM_MS,
  seed: 11,
};
const gpsOf = (samples: { type: string }[]) => samples.filter((s): s is GpsSample => s.type === 'gps');
const kx = 111_320 * Math.cos((points[0]![1] * Math.PI) / 180);
const ky = 110_574;
const distM = (a: { lon: number; lat: number }, b: { lon: number; lat: number }) =>
  Math.hypot((a.lon - b.lon) * kx, (a.lat - b.lat) * ky);

/** Distance from a point to the nearest piece of a polyline, metres (local projection). */
function distanceToLine(p: [number, number], line: Array<[number, number]>): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < line.length - 1; i++) {
    const ax = (line[i]![0] - p[0]) * kx;
    const ay = (line[i]![1] - p[1]) * ky;
    const bx = (line[i + 1]![0] - p[0]) * kx;
    const by = (line[i + 1]![1] - p[1]) * ky;
    const dx = bx - ax;
    const dy = by - ay;
    const len2 = dx * dx + dy * dy;
    const t = len2 > 0 ? Math.min(1, Math.max(0, -(ax * dx + ay * dy) / len2)) : 0;
    best = Math.min(best, Math.hypot(ax + t * dx, ay + t * dy));
  }
  return best;
}

describe('routes follow the graph', () => {
  it('drives connected graph edges, and noise-free fixes stay on their geometry', () => {
    const { batch, truth } = simulateTrip({ ...base, gps: { sigmaM: 0, speedSigmaMps: 0 }, imuHz: 0 });
    expect(truth.routeEdges.length).toBeGreaterThan(5);
    for (let i = 1; i < truth.routeEdges.length; i++) {
      const prev = truth.routeEdges[i - 1]!;
      const next = truth.routeEdges[i]!;
      // Consecutive edges meet at a node (legs between via points restart on the same spot).
      expect(graph.edgeTo(prev) === graph.edgeFrom(next) || prev === next).toBe(true);
    }
    const line = truth.routeEdges.flatMap((e) => graph.edgeCoordinates(e));
    for (const fix of gpsOf(batch.samples)) {
      // Corners are rounded into arcs, which cut inside the centre-line by a few metres.
      expect(distanceToLine([fix.lon, fix.lat], line)).toBeLessThan(8);
    }
  });
});

describe('GPS course', () => {
  it('reports the direction of travel: noise-free course agrees with the track between fixes', () => {
    // Several routes, so that some arcs end heading west, where headings wrap around at +-180 degrees.
    const places = Rng.from('course-test');
    let checked = 0;
    for (let trip = 0; trip < 6; trip++) {
      const ends = Array.from({ length: 3 }, () => randomPlace(graph, places, 'work'));
      const { batch } = simulateTrip({
        ...base,
        from: ends[0]!,
        via: [ends[1]!],
        to: ends[2]!,
        seed: 100 + trip,
        gpsHz: 10,
        gps: { sigmaM: 0, speedSigmaMps: 0 },
        imuHz: 0,
      });
      const fixes = gpsOf(batch.samples);
      for (let i = 1; i < fixes.length - 1; i++) {
        const [a, b] = [fixes[i - 1]!, fixes[i + 1]!];
        const fix = fixes[i]!;
        if (fix.headingDeg === undefined || (fix.speedMps ?? 0) < 5 || distM(a, b) < 2) continue;
        const trackDeg = ((Math.atan2((b.lon - a.lon) * kx, (b.lat - a.lat) * ky) * 180) / Math.PI + 360) % 360;
        const offDeg = Math.abs(((fix.headingDeg - trackDeg + 540) % 360) - 180);
        // Within a curve the chord over 0.2 s and the tangent differ by a few degrees at most.
        expect(offDeg, `trip ${trip} fix ${i}: course ${fix.headingDeg} vs track ${trackDeg.toFixed(1)}`).toBeLessThan(
          15,
        );
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(3000);
  });
});

describe('GPS', () => {
  const clean = gpsOf(simulateTrip({ ...base, gps: { sigmaM: 0, speedSigmaMps: 0 }, imuHz: 0 }).batch.samples);
  const noisy = gpsOf(simulateTrip({ ...base, gps: { sigmaM: 5 }, imuHz: 0 }).batch.samples);

  it('adds position noise of the configured size, correlated in time', () => {
    expect(noisy).toHaveLength(clean.length);
    const errors = noisy.map((fix, i) => [(fix.lon - clean[i]!.lon) * kx, (fix.lat - clean[i]!.lat) * ky] as const);
    const rms = Math.sqrt(errors.reduce((s, [x, y]) => s + x * x + y * y, 0) / errors.length / 2);
    expect(rms).toBeGreaterThan(2.5);
    expect(rms).toBeLessThan(8);
    // AR(1) with a 30 s correlation time: one-second steps of the error are far smaller than the error itself.
    const steps = errors.slice(1).map(([x, y], i) => Math.hypot(x - errors[i]![0], y - errors[i]![1]));
    const meanStep = steps.reduce((s, d) => s + d, 0) / steps.length;
    expect(meanStep).toBeLessThan(rms / 2);
    expect(noisy.every((f) => f.accuracyM! >= 5)).toBe(true);
  });

  it('reports Doppler speed and course consistent with the motion', () => {
    let checked = 0;
    for (let i = 1; i < clean.length - 1; i++) {
      const fix = clean[i]!;
      if (fix.speedMps! < 8) continue;
      const moved = distM(clean[i - 1]!, clean[i + 1]!) / 2;
      expect(Math.abs(moved - fix.speedMps!)).toBeLessThan(1.5);
      const dx = (clean[i + 1]!.lon - clean[i - 1]!.lon) * kx;
      const dy = (clean[i + 1]!.lat - clean[i - 1]!.lat) * ky;
      const course = ((Math.atan2(dx, dy) * 180) / Math.PI + 360) % 360;
      const diff = Math.abs(((course - fix.headingDeg! + 540) % 360) - 180);
      if (distM(clean[i - 1]!, clean[i + 1]!) > 20) expect(diff).toBeLessThan(25);
      checked++;
    }
    expect(checked).toBeGreaterThan(50);
    expect(clean.filter((f) => f.speedMps === 0).every((f) => f.headingDeg === undefined)).toBe(true);
  });

  it('has no outliers by default and jumps of 50 m or more when they are switched on', () => {
    const maxJump = (fixes: GpsSample[]) =>
      Math.max(...fixes.slice(1).map((f, i) => distM(f, fixes[i]!) - (f.speedMps ?? 0) * ((f.t - fixes[i]!.t) / 1000)));
    expect(maxJump(noisy)).toBeLessThan(15);
    const wild = gpsOf(simulateTrip({ ...base, gps: { sigmaM: 5, outlierRate: 0.05 }, imuHz: 0 }).batch.samples);
    expect(maxJump(wild)).toBeGreaterThan(40);
  });

  it('sees the same motion at 1 Hz and at 10 Hz', () => {
    const one = simulateTrip({ ...base, gpsHz: 1, imuHz: 0 });
    const ten = simulateTrip({ ...base, gpsHz: 10, imuHz: 0 });
    expect(ten.truth).toEqual(one.truth);
    const tenTimes = new Set(gpsOf(ten.batch.samples).map((f) => f.t));
    expect(gpsOf(one.batch.samples).every((f) => tenTimes.has(f.t))).toBe(true);
    const n1 = gpsOf(one.batch.samples).length;
    expect(gpsOf(ten.batch.samples).length).toBeGreaterThanOrEqual(10 * (n1 - 1) + 1);
    expect(gpsOf(ten.batch.samples).length).toBeLessThanOrEqual(10 * n1);
  });
});

describe('IMU', () => {
  it('reads gravity on z and the motion on x and y in the vehicle frame', () => {
    const accel = simulateTrip({ ...base, phone: false }).batch.samples.filter(
      (s): s is AccelSample => s.type === 'accel',
    );
    const meanZ = accel.reduce((s, a) => s + a.z, 0) / accel.length;
    expect(meanZ).toBeCloseTo(GRAVITY_MPS2, 1);
    expect(Math.max(...accel.map((a) => Math.abs(a.y)))).toBeGreaterThan(1);
  });

  it('rotates the same readings into a fixed device frame', () => {
    const vehicle = simulateTrip({ ...base, phone: false }).batch;
    const device = simulateTrip({ ...base, phone: false, imu: { frame: 'device' } }).batch;
    expect(device.imuFrame).toBe('device');
    const a = vehicle.samples.filter((s): s is AccelSample => s.type === 'accel');
    const b = device.samples.filter((s): s is AccelSample => s.type === 'accel');
    expect(b).toHaveLength(a.length);
    for (let i = 0; i < a.length; i += 97) {
      const na = Math.hypot(a[i]!.x, a[i]!.y, a[i]!.z);
      const nb = Math.hypot(b[i]!.x, b[i]!.y, b[i]!.z);
      expect(Math.abs(na - nb)).toBeLessThan(1e-3);
    }
    expect(Math.abs(b.reduce((s, x) => s + x.z, 0) / b.length - GRAVITY_MPS2)).toBeGreaterThan(0.1);
  });
});

describe('phone and OBD', () => {
  it('emits well-formed phone sessions', () => {
    const heavy = driverProfile({ aggressiveness: 0.5, phoneUse: 1 });
    const phone = [11, 12, 13, 14].flatMap((seed) =>
      simulateTrip({ ...base, driver: heavy, seed, imuHz: 0, gpsHz: 0 }).batch.samples.filter(
        (s): s is PhoneSample => s.type === 'phone',
      ),
    );
    expect(new Set(phone.map((p) => p.event)).size).toBeGreaterThanOrEqual(8);
    let handling = false;
    let call: boolean | null = null;
    for (const event of phone) {
      if (event.event === 'handling_start') {
        expect(handling).toBe(false);
        handling = true;
      }
      if (event.event === 'handling_end') {
        expect(handling).toBe(true);
        handling = false;
      }
      if (event.event === 'call_start') {
        expect(call).toBeNull();
        expect(typeof event.handsFree).toBe('boolean');
        call = event.handsFree!;
      }
      if (event.event === 'call_end') {
        expect(event.handsFree).toBe(call);
        call = null;
      }
    }
    expect(handling).toBe(false);
    expect(call).toBeNull();
  });

  it('reports OBD speed in whole km/h matching the GPS, and engine speed', () => {
    const { batch } = simulateTrip({ ...base, imuHz: 0, obdHz: 1, gps: { sigmaM: 0, speedSigmaMps: 0 } });
    const obd = batch.samples.filter((s): s is ObdSample => s.type === 'obd');
    const gps = gpsOf(batch.samples);
    expect(obd).toHaveLength(gps.length);
    obd.forEach((o, i) => {
      expect(Number.isInteger(o.speedKmh)).toBe(true);
      expect(Math.abs(o.speedKmh! - gps[i]!.speedMps! * 3.6)).toBeLessThanOrEqual(1);
      expect(o.rpm!).toBeGreaterThanOrEqual(550);
      expect(o.throttlePct!).toBeGreaterThanOrEqual(0);
      expect(o.throttlePct!).toBeLessThanOrEqual(100);
    });
  });
});
