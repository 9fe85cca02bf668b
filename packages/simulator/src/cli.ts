import { createWriteStream, mkdirSync, openSync, type WriteStream, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli } from '@svc/platform/cli';
import { generateCity, loadGraph, type RoadGraph } from '@svc/roads';
import { Command, InvalidArgumentError } from 'commander';
import type { LonLat } from './drive-route.ts';
import { BEHAVIOURS, type BehaviourLevels, driverProfile } from './driver-profile.ts';
import { createFleet } from './fleet.ts';
import { simulateFleetTrips } from './fleet-trips.ts';
import { batchToNdjson } from './ndjson.ts';
import { simulateTrip } from './simulate-trip.ts';

/**
 * `simulator`: synthetic telemetry from the command line.
 *   simulator fleet --seed 1 --trips 100 -o out.ndjson      a fleet's trips as NDJSON (header line per trip)
 *   simulator trip --from 4.49,45.48 --to 4.53,45.52 ...    one trip
 * Roads come from `--graph <file>` (a `roads build` graph) or a synthetic city (`--city-seed`, default 1).
 */

class UserError extends Error {}

const number = (name: string, min: number, max: number) => (value: string) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n < min || n > max)
    throw new InvalidArgumentError(`${name} must be a number from ${min} to ${max}`);
  return n;
};
const integer = (name: string, min: number, max: number) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}`);
  return n;
};
const lonLat = (value: string): LonLat => {
  const parts = value.split(',').map(Number);
  if (parts.length !== 2 || !parts.every(Number.isFinite) || Math.abs(parts[0]!) > 180 || Math.abs(parts[1]!) > 90) {
    throw new InvalidArgumentError('must be lon,lat in degrees, e.g. 4.49,45.48');
  }
  return [parts[0]!, parts[1]!];
};
// Sample times the telemetry contract takes (validateTelemetry of @svc/scoring; simulate-trip.ts checks the same).
const FIRST_MS = Date.UTC(2000, 0, 1);
const END_MS = Date.UTC(2099, 11, 31);
const DAY_MS = 86_400_000;

const isCalendarDay = (year: number, month: number, day: number): boolean => {
  const d = new Date(Date.UTC(year, month - 1, day));
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
};

// Date.parse alone takes "March 3, 2025", rolls 2025-02-30 over into March and reads hour 24 as the next day:
// the option asks for what it says, a real ISO 8601 time with its zone.
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):?(\d{2}))$/i;

const isoTime = (value: string): number => {
  const m = ISO_TIME.exec(value);
  const [year, month, day, hour, minute, second, zoneHour, zoneMinute] = (m ?? []).slice(1).map((x) => Number(x ?? 0));
  const ms = Date.parse(value);
  if (
    !m ||
    !Number.isFinite(ms) ||
    !isCalendarDay(year!, month!, day!) ||
    hour! > 23 ||
    minute! > 59 ||
    second! > 59 ||
    zoneHour! > 23 ||
    zoneMinute! > 59
  ) {
    throw new InvalidArgumentError('--start must be an ISO 8601 time with its zone, e.g. 2025-03-03T08:00:00Z');
  }
  if (ms < FIRST_MS || ms >= END_MS) {
    throw new InvalidArgumentError('--start must be from 2000-01-01 to 2099-12-30 UTC: telemetry takes no other years');
  }
  return ms;
};

const isoDay = (value: string): string => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m || !isCalendarDay(Number(m[1]), Number(m[2]), Number(m[3]))) {
    throw new InvalidArgumentError('--start-date must be a day of the calendar as YYYY-MM-DD, e.g. 2025-03-03');
  }
  return value;
};

/**
 * A schedule's trips start on its days at local times up to 04:30 the next morning, in zones up to 14 h from UTC:
 * all of them lie within the telemetry's years when its first day is from 2000-01-02 and its last before 2099-12-30.
 */
function checkScheduleYears(startDate: string, days: number): void {
  const firstMs = Date.parse(`${startDate}T00:00:00Z`);
  if (firstMs < FIRST_MS + DAY_MS || firstMs + (days + 1) * DAY_MS > END_MS) {
    throw new UserError(
      `--start-date ${startDate} with --days ${days}: the schedule must lie from 2000-01-02 to 2099-12-29, the years telemetry takes`,
    );
  }
}

const seedValue = (value: string): number | string => (/^-?\d+$/.test(value) ? Number(value) : value);

function openGraph(options: { graph?: string; citySeed: number }): RoadGraph {
  if (options.graph) {
    try {
      return loadGraph(options.graph);
    } catch (error) {
      throw new UserError(`cannot load road graph ${options.graph}: ${(error as Error).message}`);
    }
  }
  return generateCity({ seed: options.citySeed });
}

/** A sink for NDJSON text: a file or stdout. The file is opened at once, so a bad path fails before any work. */
function sink(file: string | undefined): { write: (text: string) => void; close: () => Promise<void> } {
  if (!file || file === '-') {
    return { write: (text) => process.stdout.write(text), close: async () => {} };
  }
  let stream: WriteStream;
  try {
    mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    stream = createWriteStream(file, { fd: openSync(file, 'w') });
  } catch (error) {
    throw new UserError(`cannot write ${file}: ${(error as Error).message}`);
  }
  // A write that fails later (disk full) is reported when the sink closes, not as an unhandled 'error' event.
  let failure: Error | undefined;
  stream.on('error', (error) => {
    failure ??= error;
  });
  return {
    write: (text) => stream.write(text),
    close: () =>
      new Promise((resolve, reject) =>
        stream.end((error?: Error | null) => {
          const problem = error ?? failure;
          if (problem) reject(new UserError(`cannot write ${file}: ${problem.message}`));
          else resolve();
        }),
      ),
  };
}

/** Writes a whole JSON document; a path that cannot be written is a user error. */
function writeJson(file: string, value: unknown): void {
  try {
    mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
  } catch (error) {
    throw new UserError(`cannot write ${file}: ${(error as Error).message}`);
  }
}

const program = new Command('simulator').description(
  'Deterministic synthetic fleet telemetry (GPS, IMU, phone, OBD) in the ingest NDJSON format',
);

const sensorOptions = (command: Command, frameDefault: string) =>
  command
    .option('--graph <file>', 'road graph file (from `roads build`); default: a synthetic city')
    .option('--city-seed <n>', 'seed of the synthetic city', integer('--city-seed', 0, 2 ** 31), 1)
    .option('--gps-hz <hz>', 'GPS fixes per second (0 = none)', number('--gps-hz', 0, 100), 1)
    .option('--imu-hz <hz>', 'accelerometer/gyroscope samples per second (0 = none)', number('--imu-hz', 0, 1000), 25)
    .option('--obd-hz <hz>', 'OBD readings per second (0 = none)', number('--obd-hz', 0, 100), 0)
    .option('--gps-sigma <m>', 'GPS position error per axis, metres', number('--gps-sigma', 0, 100))
    .option('--outliers <rate>', 'share of GPS fixes that are outliers', number('--outliers', 0, 1), 0)
    .option('--device-frame', `IMU in a phone frame with a random fixed rotation (default: ${frameDefault})`)
    .option('--no-phone', 'leave out phone events');

interface SensorFlags {
  graph?: string;
  citySeed: number;
  gpsHz: number;
  imuHz: number;
  obdHz: number;
  gpsSigma?: number;
  outliers: number;
  deviceFrame?: boolean;
  phone: boolean;
}

const sensorSettings = (o: SensorFlags) => ({
  gpsHz: o.gpsHz,
  imuHz: o.imuHz,
  obdHz: o.obdHz,
  gps: { outlierRate: o.outliers, ...(o.gpsSigma !== undefined ? { sigmaM: o.gpsSigma } : {}) },
  ...(o.deviceFrame ? { imu: { frame: 'device' as const } } : {}),
  phone: o.phone,
});

sensorOptions(
  program
    .command('fleet')
    .description("simulate a fleet's scheduled trips; NDJSON with one header line per trip")
    .option('--seed <seed>', 'fleet seed (same seed, same bytes)', seedValue, 1)
    .option('--vehicles <n>', 'vehicles (mixed machine types)', integer('--vehicles', 1, 100_000), 10)
    .option('--drivers-per-vehicle <n>', 'drivers sharing each vehicle', integer('--drivers-per-vehicle', 1, 10), 1)
    .option('--days <n>', 'days of schedule', integer('--days', 1, 366), 7)
    .option('--start-date <date>', 'first day, YYYY-MM-DD', isoDay, '2025-03-03')
    .option('--time-zone <zone>', 'IANA time zone of the fleet', 'Europe/Paris')
    .option('--trips <n>', 'stop after this many trips', integer('--trips', 1, 10_000_000))
    .option('-o, --out <file>', 'telemetry NDJSON file (default stdout)')
    .option('--truth <file>', 'write the ground truth of each trip as NDJSON here')
    .option('--fleet-out <file>', 'write the fleet (vehicles, drivers, profiles) as JSON here'),
  "each vehicle's own: a fixed unit in trucks, buses and most vans, mostly a loose phone in cars and motorcycles",
).action(async (o: SensorFlags & Record<string, unknown>) => {
  checkScheduleYears(o.startDate as string, o.days as number);
  const graph = openGraph(o);
  const created = createFleet({
    seed: o.seed as number | string,
    vehicles: o.vehicles as number,
    driversPerVehicle: o.driversPerVehicle as number,
    graph,
    timeZone: o.timeZone as string,
  });
  // A fleet vehicle's own frame wins over the trip option, so the flag has to change the vehicles.
  const fleet = o.deviceFrame
    ? { ...created, vehicles: created.vehicles.map((v) => ({ ...v, imuFrame: 'device' as const })) }
    : created;
  if (o.fleetOut) writeJson(o.fleetOut as string, fleet);
  const out = sink(o.out as string | undefined);
  const truth = o.truth ? sink(o.truth as string) : null;
  let trips = 0;
  let samples = 0;
  for (const trip of simulateFleetTrips({
    fleet,
    graph,
    days: o.days as number,
    startDate: o.startDate as string,
    limit: o.trips as number | undefined,
    ...sensorSettings(o),
  })) {
    out.write(batchToNdjson(trip.batch));
    truth?.write(
      `${JSON.stringify({ clientTripId: trip.plan.id, kind: trip.plan.kind, driverId: trip.driver.id, vehicle: trip.vehicle.plate, machineType: trip.vehicle.machineType, trueRisk: trip.driver.profile.trueRisk, levels: trip.driver.profile.levels, ...trip.truth })}\n`,
    );
    trips++;
    samples += trip.batch.samples.length;
  }
  await out.close();
  await truth?.close();
  if (o.out && o.out !== '-') console.log(`${trips} trips, ${samples} samples -> ${o.out as string}`);
});

const levelOptions = (command: Command) => {
  for (const b of BEHAVIOURS) {
    const flag = b.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    command.option(`--${flag} <level>`, `${b} level 0..1 (default: --aggressiveness)`, number(`--${flag}`, 0, 1));
  }
  return command;
};

sensorOptions(
  levelOptions(
    program
      .command('trip')
      .description('simulate one trip between two points')
      .requiredOption('--from <lon,lat>', 'start position', lonLat)
      .requiredOption('--to <lon,lat>', 'end position', lonLat)
      .option('--seed <seed>', 'trip seed', seedValue, 1)
      .option(
        '--aggressiveness <level>',
        'overall behaviour level 0 (calm) .. 1 (aggressive)',
        number('--aggressiveness', 0, 1),
        0.3,
      )
      .option('--machine <type>', 'car, van, truck, motorcycle or bus', 'car')
      .option('--start <iso>', 'start time (ISO 8601 with its zone)', isoTime, Date.parse('2025-03-03T08:00:00Z'))
      .option('--time-zone <zone>', 'IANA time zone', 'UTC')
      .option('-o, --out <file>', 'telemetry NDJSON file (default stdout)')
      .option('--truth <file>', 'write the ground truth as JSON here'),
  ),
  'vehicle frame',
).action(async (o: SensorFlags & Record<string, unknown>) => {
  const startMs = o.start as number;
  const levels: Partial<BehaviourLevels> = {};
  for (const b of BEHAVIOURS) if (o[b] !== undefined) levels[b] = o[b] as number;
  const graph = openGraph(o);
  const { batch, truth } = simulateTrip({
    graph,
    from: o.from as LonLat,
    to: o.to as LonLat,
    driver: driverProfile({ aggressiveness: o.aggressiveness as number, ...levels }),
    vehicle: { machineType: o.machine as never },
    startMs,
    seed: o.seed as number | string,
    timeZone: o.timeZone as string,
    ...sensorSettings(o),
  });
  const out = sink(o.out as string | undefined);
  out.write(batchToNdjson(batch));
  await out.close();
  if (o.truth) writeJson(o.truth as string, truth);
  if (o.out && o.out !== '-')
    console.log(`${batch.samples.length} samples, ${(truth.distanceM / 1000).toFixed(1)} km -> ${o.out as string}`);
});

// Usage mistakes and failures (a bad option value, no route between the points, a file that cannot be
// written) are one line on stderr and exit status 1, the stack only with DEBUG set; `| head` ends quietly.
await runCli(program);
