import type { GpsSample } from './contract.ts';
import { type DrivePath, toLonLat } from './drive-path.ts';
import { type Kinematics, motionAt, newMotionState } from './kinematics.ts';
import type { Rng } from './random.ts';

/**
 * GPS receiver model. Position error is a first-order Gauss-Markov (AR(1)) process per axis: real fixes wander
 * slowly (multipath, atmosphere) rather than jump independently each second. The process is defined in continuous
 * time, so the same trip sampled at 1 Hz and at 10 Hz sees the same error statistics. Doppler speed and course are
 * far more precise than position and are reported only while moving, as receivers do.
 */
export interface GpsOptions {
  /** Fixes per second (default 1). */
  hz: number;
  /** Standard deviation of the position error per axis, metres (default 4). */
  sigmaM: number;
  /** Correlation time of the position error, seconds (default 30). */
  correlationS: number;
  /** Standard deviation of the Doppler speed, m/s (default 0.15). */
  speedSigmaMps: number;
  /**
   * Correlation time of the speed and course errors, seconds (default 2): receivers filter their velocity, so at
   * 10 Hz consecutive errors are nearly equal instead of independent.
   */
  velocityCorrelationS: number;
  /** Probability that a fix is an outlier (a jump of 50-300 m), default 0 (off). */
  outlierRate: number;
}

export const DEFAULT_GPS: Readonly<GpsOptions> = Object.freeze({
  hz: 1,
  sigmaM: 4,
  correlationS: 30,
  speedSigmaMps: 0.15,
  velocityCorrelationS: 2,
  outlierRate: 0,
});

const round = (value: number, decimals: number) => {
  const f = 10 ** decimals;
  return Math.round(value * f) / f;
};

/** Compass course (degrees clockwise from north) of a heading in radians counter-clockwise from east. */
export function compassDeg(headingRad: number): number {
  let deg = 90 - (headingRad * 180) / Math.PI;
  deg %= 360;
  if (deg < 0) deg += 360;
  return deg;
}

/** Sample times of a stream at `hz` over `durationS`, as whole epoch milliseconds. */
export function sampleTimesMs(startMs: number, durationS: number, hz: number): number[] {
  const out: number[] = [];
  const periodMs = 1000 / hz;
  const lastMs = durationS * 1000 + 1e-6;
  for (let k = 0; k * periodMs <= lastMs; k++) out.push(startMs + Math.round(k * periodMs));
  return out;
}

/** The GPS fixes of a trip. */
export function synthesizeGps(
  path: DrivePath,
  kin: Kinematics,
  startMs: number,
  options: GpsOptions,
  rng: Rng,
): GpsSample[] {
  const noise = rng.fork('noise');
  const outliers = rng.fork('outliers');
  const motion = newMotionState();
  const out: GpsSample[] = [];
  const sigma = options.sigmaM;
  let ex = noise.gaussian(0, sigma);
  let ey = noise.gaussian(0, sigma);
  const velocity = rng.fork('velocity');
  let speedErr = velocity.normal();
  let courseErr = velocity.normal();
  let lastT = 0;
  for (const t of sampleTimesMs(startMs, kin.durationS, options.hz)) {
    const tS = (t - startMs) / 1000;
    const phi = Math.exp(-(tS - lastT) / options.correlationS);
    const innovation = sigma * Math.sqrt(1 - phi * phi);
    ex = phi * ex + innovation * noise.normal();
    ey = phi * ey + innovation * noise.normal();
    // Unit-variance AR(1) states for speed and course, scaled below.
    const psi = Math.exp(-(tS - lastT) / Math.max(options.velocityCorrelationS, 1e-3));
    const kick = Math.sqrt(1 - psi * psi);
    speedErr = psi * speedErr + kick * velocity.normal();
    courseErr = psi * courseErr + kick * velocity.normal();
    lastT = tS;
    // The receiver's own accuracy estimate tracks the true error level loosely.
    // Receivers never claim better than about a metre.
    const accuracyM = Math.max(1, sigma * (1.2 + 0.3 * Math.abs(noise.normal())));
    motionAt(kin, path, tS, motion);
    let x = motion.x + ex;
    let y = motion.y + ey;
    const isOutlier = outliers.chance(options.outlierRate);
    const jumpM = outliers.uniform(50, 300);
    const jumpDir = outliers.uniform(0, 2 * Math.PI);
    if (isOutlier) {
      x += jumpM * Math.cos(jumpDir);
      y += jumpM * Math.sin(jumpDir);
    }
    const [lon, lat] = toLonLat(path, x, y);
    const speed = Math.max(0, motion.speedMps + options.speedSigmaMps * speedErr);
    const sample: GpsSample = {
      type: 'gps',
      t,
      lon: round(lon, 7),
      lat: round(lat, 7),
      speedMps: motion.speedMps < 0.3 ? 0 : round(speed, 2),
      accuracyM: round(accuracyM, 1),
    };
    if (motion.speedMps >= 1) {
      // Course noise grows as speed falls: the Doppler velocity vector gets short relative to its error.
      const sdDeg = Math.min(20, (Math.atan2(options.speedSigmaMps, motion.speedMps) * 180) / Math.PI + 0.3);
      let course = compassDeg(motion.headingRad) + sdDeg * courseErr;
      course = ((course % 360) + 360) % 360;
      const rounded = round(course, 1);
      sample.headingDeg = rounded >= 360 ? 0 : rounded;
    }
    out.push(sample);
  }
  return out;
}
