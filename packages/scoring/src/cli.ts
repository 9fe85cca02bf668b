import { runCli } from '@svc/platform/cli';
import { loadGraph } from '@svc/roads';
import { Command, InvalidArgumentError, Option } from 'commander';
import { readTelemetryFile } from './cli/read-telemetry.ts';
import type { ScoredTrip } from './result.ts';
import { scoreTrip } from './score/score-trip.ts';
import { SCORING_MODEL_VERSION } from './score/version.ts';
import { MACHINE_TYPES, type MachineType } from './telemetry.ts';
import { isValidTimeZone } from './validate.ts';

/** The trip as the API shows it: the Trip fields, then the score breakdown, events and explanation. */
export function apiShape(trip: ScoredTrip, vehicle: string | undefined, withRoute: boolean) {
  const { route, themes, weakestTheme, events, reasons, summary, dataQuality } = trip;
  return {
    startDate: new Date(trip.startMs).toISOString(),
    ...(vehicle ? { vehicle } : {}),
    overallScore: trip.overallScore,
    tier: trip.tier,
    mapMatched: trip.mapMatched,
    matchedShare: trip.matchedShare,
    distanceKm: trip.distanceKm,
    durationMin: trip.durationMin,
    ...(trip.machineType ? { machineType: trip.machineType } : {}),
    modelVersion: trip.modelVersion,
    startMs: trip.startMs,
    endMs: trip.endMs,
    weakestTheme,
    themes,
    reasons,
    summary,
    events,
    dataQuality,
    ...(withRoute ? { route } : {}),
  };
}

const timeZone = (value: string) => {
  if (!isValidTimeZone(value)) throw new InvalidArgumentError('must be an IANA time zone such as Europe/Berlin');
  return value;
};

const program = new Command('scoring')
  .description('Score driving trips from telemetry: events, 100 factors in six themes, overall score and tier')
  .version(SCORING_MODEL_VERSION, '--version', 'print the scoring model version');

program
  .command('score')
  .description('score one trip from a trace or telemetry file and print it as JSON in the API shape')
  .argument(
    '<trace-file>',
    'telemetry batch (.json), telemetry NDJSON, or a GPS trace (GPX, GeoJSON, CSV, NDJSON); .gz ok',
  )
  .option('--roads <graph-file>', 'road graph to map-match against (from `roads build` or `roads generate`)')
  .option(
    '--time-zone <zone>',
    'IANA time zone for night driving (default: the file, else from the position)',
    timeZone,
  )
  .addOption(new Option('--machine-type <type>', 'vehicle type').choices([...MACHINE_TYPES]))
  .addOption(new Option('--imu-frame <frame>', 'frame of the IMU samples').choices(['vehicle', 'device']))
  .option('--route', 'include the cleaned and matched route geometry')
  .option('--compact', 'print JSON on one line')
  .action(
    async (
      file: string,
      opts: {
        roads?: string;
        timeZone?: string;
        machineType?: MachineType;
        imuFrame?: 'vehicle' | 'device';
        route?: boolean;
        compact?: boolean;
      },
    ) => {
      // A file that cannot be read or scored fails in one line naming the file and the record (runCli).
      const batch = await readTelemetryFile(file);
      const graph = opts.roads ? loadGraph(opts.roads) : undefined;
      const trip = scoreTrip(batch, {
        ...(graph ? { graph } : {}),
        ...(opts.timeZone ? { timeZone: opts.timeZone } : {}),
        ...(opts.machineType ? { machineType: opts.machineType } : {}),
        ...(opts.imuFrame ? { imuFrame: opts.imuFrame } : {}),
        allowShortTrip: true,
      });
      const shaped = apiShape(trip, batch.vehicle, opts.route === true);
      process.stdout.write(`${JSON.stringify(shaped, null, opts.compact ? undefined : 2)}\n`);
    },
  );

// Usage mistakes and failures are one line on stderr and exit status 1; `| head` ends quietly.
await runCli(program);
