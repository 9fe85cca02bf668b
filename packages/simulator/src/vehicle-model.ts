import type { MachineType } from './contract.ts';

/**
 * What a machine type can physically do. The driver's wishes are capped by these: an aggressive bus driver still
 * cannot launch at 3.5 m/s^2 nor run above the bus's speed limiter.
 */
export interface MachineSpec {
  /** Speed limiter or top speed, km/h. */
  maxSpeedKmh: number;
  /** Best acceleration from standstill, m/s^2. */
  maxAccelMps2: number;
  /** Specific power (W/kg) bounding acceleration at speed: a <= power / v. */
  powerWPerKg: number;
  /** Hardest braking the vehicle achieves, m/s^2. */
  maxDecelMps2: number;
  /** Lateral acceleration before the vehicle slides or tips, m/s^2. */
  maxLateralMps2: number;
  /** Idle engine speed, rpm. */
  idleRpm: number;
  /** Engine speed per m/s of road speed in each gear (wheel, gearbox and final drive combined). */
  rpmPerMpsByGear: readonly number[];
  /** Radius of the smallest junction turn the vehicle takes, metres (long vehicles swing wide). */
  minTurnRadiusM: number;
}

export const MACHINE_SPECS: Readonly<Record<MachineType, MachineSpec>> = Object.freeze({
  car: {
    maxSpeedKmh: 190,
    maxAccelMps2: 3.8,
    powerWPerKg: 75,
    maxDecelMps2: 9,
    maxLateralMps2: 7,
    idleRpm: 800,
    rpmPerMpsByGear: [430, 250, 165, 125, 100, 82],
    minTurnRadiusM: 7,
  },
  van: {
    maxSpeedKmh: 160,
    maxAccelMps2: 3.0,
    powerWPerKg: 45,
    maxDecelMps2: 8,
    maxLateralMps2: 6,
    idleRpm: 750,
    rpmPerMpsByGear: [400, 230, 150, 112, 90, 75],
    minTurnRadiusM: 8,
  },
  truck: {
    maxSpeedKmh: 90,
    maxAccelMps2: 1.6,
    powerWPerKg: 12,
    maxDecelMps2: 6.5,
    maxLateralMps2: 4.2,
    idleRpm: 600,
    rpmPerMpsByGear: [520, 390, 290, 215, 160, 120, 92, 72],
    minTurnRadiusM: 12,
  },
  motorcycle: {
    maxSpeedKmh: 200,
    maxAccelMps2: 4.5,
    powerWPerKg: 160,
    maxDecelMps2: 9,
    maxLateralMps2: 7.5,
    idleRpm: 1200,
    rpmPerMpsByGear: [900, 620, 470, 390, 330, 290],
    minTurnRadiusM: 6,
  },
  bus: {
    maxSpeedKmh: 100,
    maxAccelMps2: 1.8,
    powerWPerKg: 14,
    maxDecelMps2: 6.5,
    maxLateralMps2: 4.2,
    idleRpm: 600,
    rpmPerMpsByGear: [420, 260, 170, 120, 90, 72],
    minTurnRadiusM: 12,
  },
});

/** Acceleration available at speed `speedMps` for a wish of `wishMps2`, capped by the machine. */
export function availableAccelMps2(spec: MachineSpec, wishMps2: number, speedMps: number): number {
  const byPower = spec.powerWPerKg / Math.max(speedMps, 1);
  // Drivers ease off as they approach cruising speed; the taper keeps launches sharp and motorway merges gentle.
  const taper = Math.max(0.35, 1 - speedMps / 45);
  return Math.max(0.05, Math.min(wishMps2 * taper, spec.maxAccelMps2, byPower));
}

/** Engine speed for a road speed, shifting up at `shiftRpm`. */
export function engineRpm(spec: MachineSpec, speedMps: number, shiftRpm: number): number {
  if (speedMps < 0.5) return spec.idleRpm;
  const gears = spec.rpmPerMpsByGear;
  for (const ratio of gears) {
    const rpm = ratio * speedMps;
    if (rpm <= shiftRpm) return Math.max(spec.idleRpm, rpm);
  }
  return Math.max(spec.idleRpm, gears[gears.length - 1]! * speedMps);
}
