import type { AccelSample, GyroSample } from './contract.ts';
import type { DrivePath } from './drive-path.ts';
import { sampleTimesMs } from './gps-sensor.ts';
import { type Kinematics, motionAt, newMotionState } from './kinematics.ts';
import type { Rng } from './random.ts';

/**
 * Accelerometer and gyroscope model. In the vehicle frame (x forward, y left, z up) the accelerometer reads the
 * specific force: longitudinal acceleration on x, centripetal v^2 k on y, +g on z; the gyroscope reads the yaw rate
 * v k on z. Both carry white noise, a constant bias and speed-dependent road vibration. In the device frame the
 * same vectors are rotated by a fixed random mounting rotation, and while the phone is handled the rotation swings
 * away and back (and the readings get hand jitter), as a picked-up phone does.
 */
export interface ImuOptions {
  /** Samples per second for both sensors (default 25). */
  hz: number;
  /** `vehicle`: axes aligned with the vehicle (mounted unit); `device`: a phone at a random fixed orientation. */
  frame: 'vehicle' | 'device';
  /** White noise of the accelerometer, m/s^2 (default 0.04). */
  accelNoiseMps2: number;
  /** White noise of the gyroscope, rad/s (default 0.003). */
  gyroNoiseRadS: number;
  /** Road vibration per m/s of speed, m/s^2 (default 0.008; vertical is twice this). */
  vibrationPerMps: number;
}

export const DEFAULT_IMU: Readonly<ImuOptions> = Object.freeze({
  hz: 25,
  frame: 'vehicle',
  accelNoiseMps2: 0.04,
  gyroNoiseRadS: 0.003,
  vibrationPerMps: 0.008,
});

/** Standard gravity, m/s^2. */
export const GRAVITY_MPS2 = 9.80665;

/** A 3x3 rotation matrix, row-major. */
export type Matrix3 = [number, number, number, number, number, number, number, number, number];

/** A uniformly random rotation (Shoemake's method): maps vehicle-frame vectors to device-frame vectors. */
export function randomRotation(rng: Rng): Matrix3 {
  const u1 = rng.next();
  const u2 = rng.next() * 2 * Math.PI;
  const u3 = rng.next() * 2 * Math.PI;
  const a = Math.sqrt(1 - u1);
  const b = Math.sqrt(u1);
  const qx = a * Math.sin(u2);
  const qy = a * Math.cos(u2);
  const qz = b * Math.sin(u3);
  const qw = b * Math.cos(u3);
  return [
    1 - 2 * (qy * qy + qz * qz),
    2 * (qx * qy - qz * qw),
    2 * (qx * qz + qy * qw),
    2 * (qx * qy + qz * qw),
    1 - 2 * (qx * qx + qz * qz),
    2 * (qy * qz - qx * qw),
    2 * (qx * qz - qy * qw),
    2 * (qy * qz + qx * qw),
    1 - 2 * (qx * qx + qy * qy),
  ];
}

/** Rotation by `angle` about the unit vector (ax, ay, az) (Rodrigues). */
function axisAngle(ax: number, ay: number, az: number, angle: number): Matrix3 {
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  const t = 1 - c;
  return [
    t * ax * ax + c,
    t * ax * ay - s * az,
    t * ax * az + s * ay,
    t * ax * ay + s * az,
    t * ay * ay + c,
    t * ay * az - s * ax,
    t * ax * az - s * ay,
    t * ay * az + s * ax,
    t * az * az + c,
  ];
}

function multiply(a: Matrix3, b: Matrix3): Matrix3 {
  const out = new Array(9) as Matrix3;
  for (let r = 0; r < 3; r++) {
    for (let c = 0; c < 3; c++) {
      out[r * 3 + c] = a[r * 3]! * b[c]! + a[r * 3 + 1]! * b[3 + c]! + a[r * 3 + 2]! * b[6 + c]!;
    }
  }
  return out;
}

/** An interval (seconds from the trip's first sample) during which the phone is in the driver's hand. */
export interface HandlingInterval {
  startS: number;
  endS: number;
}

interface Swing {
  startS: number;
  endS: number;
  axis: [number, number, number];
  angleRad: number;
}

const SWING_RAMP_S = 0.8;
const round4 = (v: number) => Math.round(v * 1e4) / 1e4;

/** Smooth 0 -> 1 -> 0 envelope of a handling swing and its time derivative. */
function swingEnvelope(swing: Swing, tS: number): [number, number] {
  const { startS, endS } = swing;
  if (tS <= startS || tS >= endS) return [0, 0];
  const ramp = Math.min(SWING_RAMP_S, (endS - startS) / 2);
  const smooth = (u: number): [number, number] => [
    0.5 - 0.5 * Math.cos(Math.PI * u),
    (0.5 * Math.PI * Math.sin(Math.PI * u)) / ramp,
  ];
  if (tS < startS + ramp) return smooth((tS - startS) / ramp);
  if (tS > endS - ramp) {
    const [value, rate] = smooth((endS - tS) / ramp);
    return [value, -rate];
  }
  return [1, 0];
}

/** The accelerometer and gyroscope samples of a trip. */
export function synthesizeImu(
  path: DrivePath,
  kin: Kinematics,
  startMs: number,
  options: ImuOptions,
  rng: Rng,
  handling: readonly HandlingInterval[] = [],
): { accel: AccelSample[]; gyro: GyroSample[]; mounting: Matrix3 | null } {
  const noise = rng.fork('noise');
  const biasRng = rng.fork('bias');
  const mountRng = rng.fork('mounting');
  // Hand jitter has its own stream so phone use never shifts the sensor noise of the rest of the trip.
  const hand = rng.fork('hand');
  const device = options.frame === 'device';
  const mounting = device ? randomRotation(mountRng) : null;
  const accelBias = [biasRng.gaussian(0, 0.03), biasRng.gaussian(0, 0.03), biasRng.gaussian(0, 0.03)];
  const gyroBias = [biasRng.gaussian(0, 0.002), biasRng.gaussian(0, 0.002), biasRng.gaussian(0, 0.002)];
  const swings: Swing[] = device
    ? handling.map((h) => {
        // A pick-up tilts the phone towards the driver's face: 40-100 degrees about a random axis.
        const z = mountRng.uniform(-1, 1);
        const phi = mountRng.uniform(0, 2 * Math.PI);
        const r = Math.sqrt(1 - z * z);
        return {
          startS: h.startS,
          endS: h.endS,
          axis: [r * Math.cos(phi), r * Math.sin(phi), z],
          angleRad: mountRng.uniform((40 * Math.PI) / 180, (100 * Math.PI) / 180),
        };
      })
    : [];

  const accel: AccelSample[] = [];
  const gyro: GyroSample[] = [];
  const motion = newMotionState();
  let swingIndex = 0;
  for (const t of sampleTimesMs(startMs, kin.durationS, options.hz)) {
    const tS = (t - startMs) / 1000;
    motionAt(kin, path, tS, motion);
    const v = motion.speedMps;
    const vib = options.vibrationPerMps * v;
    // Specific force (f) and angular rate (w) in the vehicle frame.
    const accelSd = options.accelNoiseMps2 + vib;
    const gyroSd = options.gyroNoiseRadS + 0.05 * vib;
    let fx = motion.accelMps2 + accelBias[0]! + accelSd * noise.normal();
    let fy = v * v * motion.curvature + accelBias[1]! + accelSd * noise.normal();
    let fz = GRAVITY_MPS2 + accelBias[2]! + (options.accelNoiseMps2 + 2 * vib) * noise.normal();
    const wx = gyroBias[0]! + gyroSd * noise.normal();
    const wy = gyroBias[1]! + gyroSd * noise.normal();
    const wz = v * motion.curvature + gyroBias[2]! + gyroSd * noise.normal();
    let ox = fx;
    let oy = fy;
    let oz = fz;
    let rx = wx;
    let ry = wy;
    let rz = wz;
    if (mounting) {
      while (swingIndex < swings.length && swings[swingIndex]!.endS <= tS) swingIndex++;
      let m = mounting;
      let ex = 0;
      let ey = 0;
      let ez = 0;
      const swing = swings[swingIndex];
      if (swing && tS > swing.startS) {
        const [level, levelRate] = swingEnvelope(swing, tS);
        const [ax, ay, az] = swing.axis;
        m = multiply(axisAngle(ax, ay, az, swing.angleRad * level), mounting);
        const spin = swing.angleRad * levelRate;
        // Hand jitter: the phone is never still in a hand.
        ex = ax * spin + hand.gaussian(0, 0.08);
        ey = ay * spin + hand.gaussian(0, 0.08);
        ez = az * spin + hand.gaussian(0, 0.08);
        fx += hand.gaussian(0, 0.35);
        fy += hand.gaussian(0, 0.35);
        fz += hand.gaussian(0, 0.35);
      }
      ox = m[0] * fx + m[1] * fy + m[2] * fz;
      oy = m[3] * fx + m[4] * fy + m[5] * fz;
      oz = m[6] * fx + m[7] * fy + m[8] * fz;
      rx = m[0] * wx + m[1] * wy + m[2] * wz + ex;
      ry = m[3] * wx + m[4] * wy + m[5] * wz + ey;
      rz = m[6] * wx + m[7] * wy + m[8] * wz + ez;
    }
    accel.push({ type: 'accel', t, x: round4(ox), y: round4(oy), z: round4(oz) });
    gyro.push({ type: 'gyro', t, x: round4(rx), y: round4(ry), z: round4(rz) });
  }
  return { accel, gyro, mounting };
}
