import type { ObdSample } from './contract.ts';
import type { DriverParams } from './driver-profile.ts';
import { sampleTimesMs } from './gps-sensor.ts';
import type { Kinematics } from './kinematics.ts';
import type { Rng } from './random.ts';
import { engineRpm, type MachineSpec } from './vehicle-model.ts';

/**
 * OBD-II readings: vehicle speed as the whole km/h the PID reports, engine speed from a gearbox model (the driver
 * shifts at their shift rpm, so a heavy right foot shows as high rpm) and a throttle position estimated from the
 * power the motion needs.
 */
export function synthesizeObd(
  kin: Kinematics,
  startMs: number,
  hz: number,
  spec: MachineSpec,
  params: DriverParams,
  rng: Rng,
): ObdSample[] {
  const out: ObdSample[] = [];
  for (const t of sampleTimesMs(startMs, kin.durationS, hz)) {
    const tS = (t - startMs) / 1000;
    const k = Math.min(kin.count - 1, Math.round(tS / kin.dtS));
    const v = kin.speedMps[k]!;
    const a = kin.accelMps2[k]!;
    const rpm = engineRpm(spec, v, params.shiftRpm) * (1 + 0.01 * rng.normal());
    // Power per kg: inertia + rolling resistance + aerodynamic drag (rough passenger-car coefficients).
    const powerWPerKg = Math.max(0, a) * v + 0.012 * 9.81 * v + 0.0004 * v * v * v;
    const throttle =
      v < 0.3
        ? 0
        : Math.min(100, Math.max((100 * powerWPerKg) / spec.powerWPerKg, (100 * Math.max(0, a)) / spec.maxAccelMps2));
    out.push({
      type: 'obd',
      t,
      speedKmh: Math.round(v * 3.6),
      rpm: Math.round(rpm),
      throttlePct: Math.round(throttle),
    });
  }
  return out;
}
