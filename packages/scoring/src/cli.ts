import { loadGraph, type RoadGraph } from '@svc/roads';
import { Command, InvalidArgumentError, Option } from 'commander';
import { readTelemetryFile, TelemetryFileError } from './cli/read-telemetry.ts';
import type { ScoredTrip } from './result.ts';
import { scoreTrip, TripNotScorableError } from './score/score-trip.ts';
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

/** One line on stderr, exit 1: user errors never print a stack. */
function fail(message: string): never {
  process.stderr.write(`scoring: ${message}\n`);
  process.exit(1);
}

const program = new Command('scoring')
  .description('Score driving trips from telemetry: events, 100 factors in six themes, overall score and tier')
  .version(SCORING_MODEL_VERSION, '--version', 'print the scoring model version')
  .showHelpAfterError();

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
      let graph: RoadGraph | undefined;
      try {
        const batch = await readTelemetryFile(file);
        if (opts.roads) graph = loadGraph(opts.roads);
        const trip = scoreTrip(batch, {
          ...(graph ? { graph } : {}),
          ...(opts.timeZone ? { timeZone: opts.timeZone } : {}),
          ...(opts.machineType ? { machineType: opts.machineType } : {}),
          ...(opts.imuFrame ? { imuFrame: opts.imuFrame } : {}),
          allowShortTrip: true,
        });
        const shaped = apiShape(trip, batch.vehicle, opts.route === true);
        process.stdout.write(`${JSON.stringify(shaped, null, opts.compact ? undefined : 2)}\n`);
      } catch (error) {
        if (error instanceof TelemetryFileError || error instanceof TripNotScorableError) fail(error.message);
        if (error instanceof Error && opts.roads && graph === undefined) fail(error.message);
        throw error;
      }
    },
  );

await program.parseAsync(process.argv);
