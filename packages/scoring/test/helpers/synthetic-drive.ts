import type { Sample, TelemetryBatch } from '../../src/telemetry.ts';

/**
 * A tiny deterministic driving model for unit tests: a list of phases is integrated at 100 Hz into the
 * true motion, which is then sampled by a GPS (any rate, noise), an IMU (25 Hz, vehicle or rotated device
 * frame) and phone events. The population tests use @svc/simulator instead.
 */
export type Phase =
  | { cruise: number }
  | { to: number; a: number }
  | { turn: number; over: number }
  | { stop: number }
  /** A harsh pulse: longitudinal (or lateral with `lateral: true`) acceleration held for `s` seconds. */
  | { pulse: number; s: number; lateral?: boolean };

export interface Truth {
  dtS: number;
  t0Ms: number;
  x: Float64Array;
  y: Float64Array;
  v: Float64Array;
  heading: Float64Array;
  along: Float64Array;
  alat: Float64Array;
  yawRad: Float64Array;
}

const DT = 0.01;
const G = 9.80665;

/** Integrates phases into the true motion (x east, y north, heading compass degrees). */
export function drive(phases: readonly Phase[], t0Ms = Date.UTC(2024, 4, 14, 8, 0, 0), startHeadingDeg = 0): Truth {
  const x: number[] = [];
  const y: number[] = [];
  const v: number[] = [];
  const h: number[] = [];
  const al: number[] = [];
  const at: number[] = [];
  const yw: number[] = [];
  let px = 0;
  let py = 0;
  let speed = 0;
  let heading = startHeadingDeg;
  const step = (a: number, yawDps: number, extraLat = 0) => {
    speed = Math.max(0, speed + a * DT);
    heading = (heading - yawDps * DT + 360) % 360; // positive yaw = left = counter-clockwise
    const r = (heading * Math.PI) / 180;
    px += speed * Math.sin(r) * DT;
    py += speed * Math.cos(r) * DT;
    x.push(px);
    y.push(py);
    v.push(speed);
    h.push(heading);
    al.push(speed > 0 || a > 0 ? a : 0);
    at.push(speed * ((yawDps * Math.PI) / 180) + extraLat);
    yw.push((yawDps * Math.PI) / 180);
  };
  for (const p of phases) {
    if ('cruise' in p) for (let k = 0; k < p.cruise / DT; k++) step(0, 0);
    else if ('stop' in p) for (let k = 0; k < p.stop / DT; k++) step(0, 0);
    else if ('to' in p) {
      const target = p.to / 3.6;
      const a = target > speed ? Math.abs(p.a) : -Math.abs(p.a);
      while (a > 0 ? speed < target : speed > target) step(a, 0);
    } else if ('turn' in p) {
      const rate = p.turn / p.over;
      for (let k = 0; k < p.over / DT; k++) step(0, rate);
    } else if ('pulse' in p) {
      for (let k = 0; k < p.s / DT; k++) {
        if (p.lateral) step(0, 0, p.pulse);
        else step(p.pulse, 0);
      }
    }
  }
  return {
    dtS: DT,
    t0Ms,
    x: Float64Array.from(x),
    y: Float64Array.from(y),
    v: Float64Array.from(v),
    heading: Float64Array.from(h),
    along: Float64Array.from(al),
    alat: Float64Array.from(at),
    yawRad: Float64Array.from(yw),
  };
}

/** Mulberry32: small, fast, deterministic. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gauss(r: () => number): number {
  return Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());
}

export interface EmitOptions {
  gpsHz?: number;
  /** White position noise, metres (default 1.5). */
  gpsNoiseM?: number;
  doppler?: boolean;
  imu?: 'none' | 'vehicle' | 'device';
  imuHz?: number;
  gyro?: boolean;
  imuNoise?: number;
  phone?: Array<{ atS: number; event: string; handsFree?: boolean }>;
  phoneMonitored?: boolean;
  seed?: number;
  lon0?: number;
  lat0?: number;
  timeZone?: string;
}

/** A fixed device orientation: the phone tilted in a holder and turned on the dashboard. */
const DEVICE_ROTATION = (() => {
  const rz = (35 * Math.PI) / 180;
  const rx = (-65 * Math.PI) / 180;
  const cz = Math.cos(rz);
  const sz = Math.sin(rz);
  const cx = Math.cos(rx);
  const sx = Math.sin(rx);
  // R = Rx * Rz maps vehicle vectors into device coordinates.
  return [
    [cz, -sz, 0],
    [cx * sz, cx * cz, -sx],
    [sx * sz, sx * cz, cx],
  ];
})();

function rotate(vx: number, vy: number, vz: number): [number, number, number] {
  const r = DEVICE_ROTATION;
  return [
    r[0]![0]! * vx + r[0]![1]! * vy + r[0]![2]! * vz,
    r[1]![0]! * vx + r[1]![1]! * vy + r[1]![2]! * vz,
    r[2]![0]! * vx + r[2]![1]! * vy + r[2]![2]! * vz,
  ];
}

/** Samples the true motion into a telemetry batch. */
export function emit(truth: Truth, options: EmitOptions = {}): TelemetryBatch {
  const r = rng(options.seed ?? 1);
  const gpsHz = options.gpsHz ?? 1;
  const noise = options.gpsNoiseM ?? 1.5;
  const lon0 = options.lon0 ?? 11.5;
  const lat0 = options.lat0 ?? 48.1;
  const kx = 111_320 * Math.cos((lat0 * Math.PI) / 180);
  const ky = 111_132;
  const samples: Sample[] = [];
  const n = truth.x.length;
  const durationS = n * truth.dtS;
  const at = (tS: number) => Math.min(n - 1, Math.max(0, Math.round(tS / truth.dtS)));
  for (let k = 0; k * (1 / gpsHz) < durationS; k++) {
    const tS = k / gpsHz;
    const i = at(tS);
    const fix: Sample = {
      type: 'gps',
      t: truth.t0Ms + Math.round(tS * 1000),
      lon: lon0 + (truth.x[i]! + gauss(r) * noise) / kx,
      lat: lat0 + (truth.y[i]! + gauss(r) * noise) / ky,
      accuracyM: 5,
    };
    if (options.doppler !== false) {
      fix.speedMps = Math.max(0, truth.v[i]! + gauss(r) * 0.1);
      if (truth.v[i]! > 1) fix.headingDeg = truth.heading[i]!;
    }
    samples.push(fix);
  }
  const imu = options.imu ?? 'none';
  if (imu !== 'none') {
    const hz = options.imuHz ?? 25;
    const sigma = options.imuNoise ?? 0.3;
    for (let k = 0; k * (1 / hz) < durationS; k++) {
      const tS = k / hz;
      const i = at(tS);
      const t = truth.t0Ms + Math.round(tS * 1000);
      let a: [number, number, number] = [
        truth.along[i]! + gauss(r) * sigma,
        truth.alat[i]! + gauss(r) * sigma,
        G + gauss(r) * sigma,
      ];
      let w: [number, number, number] = [gauss(r) * 0.005, gauss(r) * 0.005, truth.yawRad[i]! + gauss(r) * 0.005];
      if (imu === 'device') {
        a = rotate(...a);
        w = rotate(...w);
      }
      samples.push({ type: 'accel', t, x: a[0], y: a[1], z: a[2] });
      if (options.gyro !== false) samples.push({ type: 'gyro', t, x: w[0], y: w[1], z: w[2] });
    }
  }
  for (const p of options.phone ?? []) {
    samples.push({
      type: 'phone',
      t: truth.t0Ms + Math.round(p.atS * 1000),
      event: p.event as never,
      ...(p.handsFree !== undefined ? { handsFree: p.handsFree } : {}),
    });
  }
  samples.sort((a, b) => a.t - b.t);
  return {
    schemaVersion: 1,
    imuFrame: imu === 'vehicle' ? 'vehicle' : 'device',
    ...(options.phoneMonitored !== undefined ? { phoneMonitored: options.phoneMonitored } : {}),
    ...(options.timeZone ? { timeZone: options.timeZone } : {}),
    samples,
  };
}

/** A 12-minute urban drive with stops, turns and one motorway-ish stretch; calm unless `harsh` phases are added. */
export function urbanDrive(extra: readonly Phase[] = []): Phase[] {
  return [
    { stop: 10 },
    { to: 50, a: 1.5 },
    { cruise: 40 },
    { turn: 90, over: 8 },
    { cruise: 30 },
    { to: 0, a: 1.8 },
    { stop: 20 },
    { to: 50, a: 1.6 },
    { cruise: 60 },
    { turn: -45, over: 6 },
    { cruise: 20 },
    { to: 90, a: 1.2 },
    { cruise: 120 },
    { turn: 30, over: 10 },
    { cruise: 60 },
    ...extra,
    { to: 50, a: 1.5 },
    { cruise: 60 },
    { turn: -90, over: 8 },
    { cruise: 40 },
    { to: 0, a: 2 },
    { stop: 15 },
  ];
}

export interface PositionOnlyOptions {
  /** Position error per axis, metres. */
  sigmaM: number;
  /** Correlation time of the error, s: 0 draws it afresh per fix; above 0 it drifts (a receiver's slow random walk). */
  tauS?: number;
  /** Reported accuracy of every fix; absent leaves the fixes without one. */
  accuracyM?: number;
  seed?: number;
}

/**
 * The GPS fixes of a batch as a GPX or CSV export gives them: positions only (no Doppler speed or course), with
 * an error of `sigmaM` per axis added, white or drifting. Emit the batch with `gpsNoiseM: 0`.
 */
export function positionOnly(batch: TelemetryBatch, options: PositionOnlyOptions): TelemetryBatch {
  const r = rng(options.seed ?? 1);
  const sigma = options.sigmaM;
  const tauS = options.tauS ?? 0;
  let ex = gauss(r) * sigma;
  let ey = gauss(r) * sigma;
  let lastT = Number.NaN;
  const samples = batch.samples.map((s): Sample => {
    if (s.type !== 'gps') return s;
    if (tauS > 0 && Number.isFinite(lastT)) {
      const rho = Math.exp(-(s.t - lastT) / 1000 / tauS);
      const k = sigma * Math.sqrt(1 - rho * rho);
      ex = rho * ex + k * gauss(r);
      ey = rho * ey + k * gauss(r);
    } else if (tauS === 0) {
      ex = gauss(r) * sigma;
      ey = gauss(r) * sigma;
    }
    lastT = s.t;
    const ky = 111_132;
    const kx = 111_320 * Math.cos((s.lat * Math.PI) / 180);
    return {
      type: 'gps',
      t: s.t,
      lon: s.lon + ex / kx,
      lat: s.lat + ey / ky,
      ...(options.accuracyM !== undefined ? { accuracyM: options.accuracyM } : {}),
    };
  });
  return { ...batch, samples };
}
