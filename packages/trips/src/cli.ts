// `npx trips ...`: the admin CLI of the trip-scoring service. Every command works on one environment's
// database (--env, default production) through the same operations the HTTP endpoints use.
import { existsSync, statSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import {
  backupSqlite,
  connectRedis,
  createLogger,
  describeConfig,
  loadConfig,
  probeListen,
  runCli,
} from '@svc/platform';
import { Command, Option } from 'commander';
import { parseDays, parseExpiry, parseSeed, printRows } from './cli/output.ts';
import { countProgress } from './cli/progress.ts';
import { refuseStoreFile, type StoreFile } from './cli/store-files.ts';
import { type TripsConfig, tripsConfigSpec } from './config.ts';
import { escapeUnprintable } from './display-text.ts';
import { ENVIRONMENTS, type Environment, parseEnvironment } from './environment.ts';
import type { TripScorer } from './scoring/trip-scorer.ts';
import { type ApiTokenInfo, createApiToken, listApiTokens, revokeApiToken } from './store/api-tokens.ts';
import { checkNewDriverId, createDriver, listDrivers, renameDriver } from './store/drivers.ts';
import { deleteFleet, fleetDeletionCounts } from './store/fleet-deletion.ts';
import { createFleet, listFleets, renameFleet, requireFleet } from './store/fleets.ts';
import { createIngestKey, type IngestKeyInfo, listIngestKeys, revokeIngestKey } from './store/ingest-keys.ts';
import { queueCounts, requeue } from './store/job-queue.ts';
import { deleteLocationData, driverDataCounts, eraseDriver } from './store/location-data.ts';
import { tripsMigrations } from './store/migrations.ts';
import { otherModelsNotice, tripsScoredByOtherModels } from './store/model-versions.ts';
import { openTripsDatabase, type TripsDatabase } from './store/open-trips-database.ts';
import { deleteVehicle, renameVehicle, vehicleDeletionCounts } from './store/vehicle-changes.ts';
import { createVehicle, listVehicles, requireVehicle, updateVehicle, type Vehicle } from './store/vehicles.ts';

const envOption = () =>
  new Option('--env <environment>', 'environment whose database to use')
    .choices([...ENVIRONMENTS])
    .default('production');

function config(): TripsConfig {
  return loadConfig(tripsConfigSpec);
}

// Commands load what they need when they run: the service, the simulator and the road tools are heavy,
// and `trips tokens list` should not wait for them.
const lazy = {
  service: () => import('./service/environment-service.ts'),
  apiCluster: () => import('./service/api-cluster.ts'),
  sandbox: () => import('./sandbox/seed-sandbox.ts'),
  driverExport: () => import('./service/driver-export.ts'),
  roadGraph: () => import('./service/road-graph.ts'),
  scorer: () => import('./service/scorer-factory.ts'),
  pool: () => import('./scoring/thread-pool-scorer.ts'),
  worker: () => import('./ingest/scoring-worker.ts'),
  rescore: () => import('./scoring/rescore.ts'),
  importer: () => import('./connectors/import-files.ts'),
  roads: () => import('@svc/roads'),
  progress: () => import('cli-progress'),
};

/** Opens (and migrates) one environment's database, as the service would. */
async function openEnvironmentDatabase(cfg: TripsConfig, environment: Environment): Promise<TripsDatabase> {
  const { databaseOptionsFor } = await import('./service/database-location.ts');
  const { description: _d, ...options } = databaseOptionsFor(cfg, environment);
  return openTripsDatabase({ environment, ...options });
}

/** Opens the environment's database, runs `work`, closes it. */
async function withDatabase<T>(env: string, work: (db: TripsDatabase, environment: Environment) => Promise<T>) {
  const environment = parseEnvironment(env);
  const database = await openEnvironmentDatabase(config(), environment);
  try {
    return await work(database, environment);
  } finally {
    await database.close();
  }
}

/**
 * The SQLite files of both environments' stores under DATA_DIR, which no command writes its output over: in use,
 * or left there when the service moved to PostgreSQL. Only DATA_DIR is read, so that `roads build`, which uses
 * no store, is not stopped by another setting.
 */
async function storeFiles(): Promise<StoreFile[]> {
  const { databaseOptionsFor } = await import('./service/database-location.ts');
  const { dataDir } = loadConfig({ dataDir: tripsConfigSpec.dataDir });
  return ENVIRONMENTS.flatMap((environment) => {
    const { sqliteFile } = databaseOptionsFor(
      { dataDir, databaseUrl: undefined, sandboxDatabaseUrl: undefined },
      environment,
    );
    return sqliteFile ? [{ environment, file: sqliteFile }] : [];
  });
}

const err = (text: string) => process.stderr.write(`${text}\n`);

/**
 * Writes the output holding a new secret, the one result of `tokens create` and `ingest-keys create` (the secret,
 * or with --json the object holding it), and says whether the write failed: a reader gone before it
 * (`... | vault-cli` that stopped at once) got no secret, while the command said 0 and left the credential active,
 * held by no one.
 */
function writeSecret(text: string): Promise<NodeJS.ErrnoException | null> {
  return new Promise((resolve) => {
    process.stdout.write(`${text}\n`, (error) => resolve(error ?? null));
  });
}

/**
 * The JSON of what a create command made, with --json: one object, shaped as the matching `list --json` shows it,
 * so that a script reads the id from stdout instead of from a sentence.
 */
const asJson = (created: object) => JSON.stringify(created, null, 2);
const jsonOption = (what = 'what was created') =>
  new Option('--json', `print ${what} as a JSON object, as list --json shows it`);

const undelivered = (id: string, error: NodeJS.ErrnoException) =>
  new Error(
    `${id} was revoked at once: its secret could not be written to the output (${error.code ?? error.message}), so no one holds it; run the command again`,
  );
const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

const program = new Command('trips')
  .description(
    'Admin CLI of the trip-scoring service (fleets, vehicles, drivers, tokens, ingest keys, import, rescore)',
  )
  .addHelpText('after', `\nConfiguration (environment variables):\n${describeConfig(tripsConfigSpec)}`);

program
  .command('serve')
  .description('run one environment: public API, private ingest endpoint and scoring worker (until SIGTERM)')
  .addOption(envOption())
  .action(async (opts: { env: string }) => {
    const environment = parseEnvironment(opts.env);
    const cfg = config();
    const logger = createLogger({ level: cfg.logLevel, name: 'trips' });
    const { ensureRoadGraph } = await lazy.roadGraph();
    const { startScorer } = await lazy.scorer();
    const { startEnvironment } = await lazy.service();
    const { prepareSandbox } = await lazy.sandbox();
    const graph = await ensureRoadGraph(cfg, logger);
    const scorer = cfg.scoringWorker === 'on' ? await startScorer(graph.file, cfg.scoringThreads, logger) : null;
    const redis = cfg.redisUrl ? await connectRedis(cfg.redisUrl) : undefined;
    // With several API workers this process keeps ingest and scoring, and the workers serve the API. The
    // database is opened (and migrated) here first, so workers never race a migration.
    const workers = cfg.apiWorkers;
    const running = await startEnvironment({
      environment,
      config: cfg,
      logger,
      scorer,
      redis,
      serveApi: workers === 1,
    });
    let apiUrl = running.apiUrl;
    let apiCluster: Awaited<ReturnType<Awaited<ReturnType<typeof lazy.apiCluster>>['startApiCluster']>> | undefined;
    if (workers > 1) {
      if (!redis) {
        logger.warn(
          { workers },
          'TRIPS_API_WORKERS > 1 without REDIS_URL: each API worker counts rate limits on its own, so a token gets up to that many budgets',
        );
      }
      const { startApiCluster } = await lazy.apiCluster();
      const { apiSettings } = await lazy.service();
      try {
        // A port in use or a host not of this machine: one line from here, not one from each API worker.
        await probeListen({
          host: cfg.host,
          port: environment === 'production' ? cfg.port : cfg.sandboxPort,
          settings: apiSettings(cfg, environment),
        });
        apiCluster = await startApiCluster({
          environment,
          count: workers,
          logger,
          shutdownTimeoutMs: cfg.shutdownTimeoutMs,
        });
      } catch (err) {
        await running.shutdown();
        await scorer?.close();
        redis?.disconnect();
        throw err;
      }
      apiUrl = apiCluster.url;
    }
    const sandbox =
      environment === 'sandbox'
        ? await prepareSandbox({
            database: running.database,
            dataDir: cfg.dataDir,
            graphFile: graph.file,
            ingestUrl: running.ingestUrl,
            tripCount: cfg.sandboxSeedTrips,
            logger,
          })
        : undefined;
    logger.info(
      {
        environment,
        api: `${apiUrl}/v1`,
        apiWorkers: workers,
        ingest: `${running.ingestUrl}/ingest/v1`,
        roadGraph: graph.description,
      },
      'trips service listening',
    );
    await new Promise<void>((resolve) => {
      const stop = () => {
        void (async () => {
          await apiCluster?.stop();
          await sandbox?.stop();
          await running.shutdown();
          await scorer?.close();
          redis?.disconnect();
          resolve();
        })();
      };
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
    });
  });

// One API worker process of `serve` with TRIPS_API_WORKERS > 1, started by it (service/api-cluster.ts).
program
  .command('api-worker', { hidden: true })
  .description('serve the public API of one environment as a worker of `serve` (started by serve)')
  .addOption(envOption())
  .action(async (opts: { env: string }) => {
    const environment = parseEnvironment(opts.env);
    const cfg = config();
    const logger = createLogger({ level: cfg.logLevel, name: 'trips' });
    const redis = cfg.redisUrl ? await connectRedis(cfg.redisUrl) : undefined;
    const { runApiWorker } = await lazy.service();
    await runApiWorker({ environment, config: cfg, logger, redis });
  });

program
  .command('migrate')
  .description('apply pending database migrations and list them (both environments unless --env is given)')
  .addOption(new Option('--env <environment>', 'only this environment').choices([...ENVIRONMENTS]))
  .action(async (opts: { env?: string }) => {
    // Opening a store applies what is pending (serve does the same at start); this says what that was.
    const known = Object.keys(tripsMigrations).length;
    for (const environment of opts.env ? [parseEnvironment(opts.env)] : ENVIRONMENTS) {
      await withDatabase(environment, async (db) => {
        for (const name of db.migrationsApplied) process.stdout.write(`${environment}: applied ${name}\n`);
        const what = db.migrationsApplied.length === 0 ? 'was up to date' : 'is up to date';
        process.stdout.write(`${environment}: ${db.location} ${what} (${plural(known, 'migration')})\n`);
      });
    }
  });

const fleets = program.command('fleets').description('fleets: the unit a token reaches');
fleets
  .command('create')
  .description('create a fleet')
  .requiredOption('--name <name>', 'display name')
  .option('--id <fleetId>', 'fleet id (fleet_ + a-z, 0-9, _ or -); generated when omitted')
  .addOption(jsonOption())
  .addOption(envOption())
  .action((opts: { name: string; id?: string; json?: boolean; env: string }) =>
    withDatabase(opts.env, async (db) => {
      const fleet = await createFleet(db.db, { name: opts.name, fleetId: opts.id });
      process.stdout.write(`${opts.json ? asJson(fleet) : fleet.fleetId}\n`);
    }),
  );
fleets
  .command('rename')
  .description('change the display name of a fleet (its id, and everything that names it, stay)')
  .requiredOption('--id <fleetId>', 'the fleet')
  .requiredOption('--name <name>', 'the new display name')
  .addOption(jsonOption('the renamed fleet'))
  .addOption(envOption())
  .action((opts: { id: string; name: string; json?: boolean; env: string }) =>
    withDatabase(opts.env, async (db) => {
      const fleet = await renameFleet(db.db, { fleetId: opts.id, name: opts.name });
      process.stdout.write(`${opts.json ? asJson(fleet) : `${fleet.fleetId}: ${fleet.name}`}\n`);
    }),
  );
fleets
  .command('list')
  .description('list fleets')
  .option('--json', 'JSON output')
  .addOption(envOption())
  .action((opts: { json?: boolean; env: string }) =>
    withDatabase(opts.env, async (db) => printRows((await listFleets(db.db)) as never, { json: opts.json })),
  );
fleets
  .command('delete')
  .description(
    'delete a fleet and all of its data (trips, uploads, sums, vehicles, drivers, ingest keys); tokens stop reaching it, and one that reached only it is revoked',
  )
  .requiredOption('--id <fleetId>', 'the fleet')
  .option('--dry-run', 'only count what would be deleted')
  .addOption(envOption())
  .action((opts: { id: string; dryRun?: boolean; env: string }) =>
    withDatabase(opts.env, async (db) => {
      const c = opts.dryRun
        ? await fleetDeletionCounts(db.db, opts.id)
        : await deleteFleet(db.db, opts.id, { nowMs: Date.now() });
      const what = `${plural(c.trips, 'trip')}, ${plural(c.uploads, 'upload')}, ${plural(c.vehicles, 'vehicle')}, ${plural(c.drivers, 'driver')}, ${plural(c.ingestKeys, 'ingest key')}; tokens: ${c.tokensNarrowed} no longer reaching it, ${c.tokensRevoked} of them revoked (they reached nothing else)`;
      process.stdout.write(
        opts.dryRun
          ? `would delete fleet ${opts.id}: ${what}; nothing changed\n`
          : `deleted fleet ${opts.id}: ${what}\n`,
      );
    }),
  );

const vehicles = program.command('vehicles').description('vehicles, addressed by plate');
/** A vehicle as `vehicles list` shows it (its internal id is no one's business). */
const vehicleRow = (v: Vehicle) => ({
  plate: v.plate,
  fleetId: v.fleetId,
  machineType: v.machineType,
  make: v.make,
  model: v.model,
  createdAt: v.createdAt,
});
vehicles
  .command('create')
  .description('register a vehicle in a fleet')
  .requiredOption('--fleet <fleetId>', 'fleet it belongs to')
  .requiredOption('--plate <plate>', 'plate or unit identifier (unique in the environment)')
  .option('--type <machineType>', 'car, van, truck, motorcycle or bus', 'car')
  .option('--make <make>', 'manufacturer')
  .option('--model <model>', 'model')
  .addOption(jsonOption())
  .addOption(envOption())
  .action(
    (opts: {
      fleet: string;
      plate: string;
      type: string;
      make?: string;
      model?: string;
      json?: boolean;
      env: string;
    }) =>
      withDatabase(opts.env, async (db) => {
        const v = await createVehicle(db.db, {
          fleetId: opts.fleet,
          plate: opts.plate,
          machineType: opts.type,
          make: opts.make,
          model: opts.model,
        });
        process.stdout.write(`${opts.json ? asJson(vehicleRow(v)) : v.plate}\n`);
      }),
  );
vehicles
  .command('list')
  .description('list vehicles')
  .option('--fleet <fleetId>', 'only this fleet')
  .option('--json', 'JSON output')
  .addOption(envOption())
  .action((opts: { fleet?: string; json?: boolean; env: string }) =>
    withDatabase(opts.env, async (db) => {
      if (opts.fleet !== undefined) await requireFleet(db.db, opts.fleet);
      printRows((await listVehicles(db.db, { fleetId: opts.fleet })).map(vehicleRow), { json: opts.json });
    }),
  );

vehicles
  .command('update')
  .description('change the machine type, make or model of a vehicle (trips already scored keep theirs)')
  .requiredOption('--plate <plate>', 'the vehicle')
  .option('--type <machineType>', 'car, van, truck, motorcycle or bus')
  .option('--make <make>', 'manufacturer')
  .option('--model <model>', 'model')
  .addOption(envOption())
  .action((opts: { plate: string; type?: string; make?: string; model?: string; env: string }) =>
    withDatabase(opts.env, async (db) => {
      const v = await updateVehicle(db.db, {
        plate: opts.plate,
        machineType: opts.type,
        make: opts.make,
        model: opts.model,
      });
      // Make and model may be from before control characters were refused: shown escaped, as the list shows them.
      const shown = (text: string | null) => (text === null ? '-' : escapeUnprintable(text));
      process.stdout.write(`${v.plate}: ${v.machineType}, ${shown(v.make)} ${shown(v.model)}\n`);
    }),
  );

vehicles
  .command('rename')
  .description(
    'give a vehicle a new plate (a mistyped one corrected): its trips, uploads and sums move to it in one transaction; its device keys keep working',
  )
  .requiredOption('--plate <plate>', 'the plate it has now')
  .requiredOption('--to <plate>', 'the new plate (unique in the environment)')
  .addOption(envOption())
  .action((opts: { plate: string; to: string; env: string }) =>
    withDatabase(opts.env, async (db) => {
      const r = await renameVehicle(db.db, { plate: opts.plate, to: opts.to });
      process.stdout.write(
        `renamed vehicle ${r.previousPlate} of ${r.vehicle.fleetId} to ${r.vehicle.plate}: ${plural(r.trips, 'trip')} and ${plural(r.uploads, 'upload')} moved\n`,
      );
    }),
  );
vehicles
  .command('delete')
  .description(
    'delete a vehicle and all of its data (trips, uploads and their telemetry, sums, device keys); its drivers stay registered',
  )
  .requiredOption('--plate <plate>', 'the vehicle')
  .option('--dry-run', 'only count what would be deleted')
  .addOption(envOption())
  .action((opts: { plate: string; dryRun?: boolean; env: string }) =>
    withDatabase(opts.env, async (db) => {
      const c = opts.dryRun
        ? await vehicleDeletionCounts(db.db, opts.plate)
        : await deleteVehicle(db.db, opts.plate, { nowMs: Date.now() });
      const what = `${plural(c.trips, 'trip')}, ${plural(c.uploads, 'upload')}, ${plural(c.deviceKeys, 'device key')}`;
      process.stdout.write(
        opts.dryRun
          ? `would delete vehicle ${c.vehicle.plate} of ${c.vehicle.fleetId}: ${what}; nothing changed\n`
          : `deleted vehicle ${c.vehicle.plate} of ${c.vehicle.fleetId}: ${what}\n`,
      );
    }),
  );

const drivers = program.command('drivers').description('drivers of a fleet');
drivers
  .command('create')
  .description('register a driver (telemetry may also name new drivers; they are then registered without a name)')
  .requiredOption('--fleet <fleetId>', 'fleet')
  .requiredOption('--id <driverId>', 'driver id as the telematics report it')
  .option('--name <name>', 'display name')
  .addOption(jsonOption())
  .addOption(envOption())
  .action((opts: { fleet: string; id: string; name?: string; json?: boolean; env: string }) =>
    withDatabase(opts.env, async (db) => {
      const d = await createDriver(db.db, { fleetId: opts.fleet, driverId: opts.id, name: opts.name });
      process.stdout.write(`${opts.json ? asJson(d) : d.driverId}\n`);
    }),
  );
drivers
  .command('rename')
  .description('set the display name of a driver (one registered by telemetry has none)')
  .requiredOption('--fleet <fleetId>', 'fleet')
  .requiredOption('--id <driverId>', 'driver id')
  .requiredOption('--name <name>', 'display name')
  .addOption(envOption())
  .action((opts: { fleet: string; id: string; name: string; env: string }) =>
    withDatabase(opts.env, async (db) => {
      const d = await renameDriver(db.db, { fleetId: opts.fleet, driverId: opts.id, name: opts.name });
      process.stdout.write(`${d.driverId}: ${d.name}\n`);
    }),
  );
drivers
  .command('list')
  .description('list drivers')
  .option('--fleet <fleetId>', 'only this fleet')
  .option('--json', 'JSON output')
  .addOption(envOption())
  .action((opts: { fleet?: string; json?: boolean; env: string }) =>
    withDatabase(opts.env, async (db) =>
      printRows((await listDrivers(db.db, { fleetId: opts.fleet })) as never, { json: opts.json }),
    ),
  );

drivers
  .command('erase')
  .description(
    "erase a driver's personal data: their trips lose GPS telemetry and routes and no longer name them (scores stay, as trips without a driver), trips not yet scored are dropped, and the registration goes",
  )
  .requiredOption('--fleet <fleetId>', 'fleet')
  .requiredOption('--id <driverId>', 'driver id')
  .option('--dry-run', 'only count what would be erased')
  .addOption(envOption())
  .action((opts: { fleet: string; id: string; dryRun?: boolean; env: string }) =>
    withDatabase(opts.env, async (db) => {
      if (opts.dryRun) {
        const c = await driverDataCounts(db.db, { fleetId: opts.fleet, driverId: opts.id });
        process.stdout.write(
          `would erase driver ${opts.id} of ${opts.fleet}: ${plural(c.trips, 'trip')} (${c.unscored} not yet scored) to unlink, with their telemetry and routes; registration ${c.registered ? 'to delete' : 'already gone'}; nothing changed\n`,
        );
        return;
      }
      const r = await eraseDriver(db.db, { fleetId: opts.fleet, driverId: opts.id, nowMs: Date.now() });
      process.stdout.write(
        `erased driver ${opts.id} of ${opts.fleet}: ${plural(r.trips, 'trip')} unlinked, with their telemetry and routes deleted (${r.unscored} not yet scored, dropped); registration ${r.registrationDeleted ? 'deleted' : 'already gone'}\n`,
      );
    }),
  );

drivers
  .command('export')
  .description(
    'write everything stored about a driver (registration, trips with breakdowns and routes, raw telemetry) to a JSON Lines file, for a subject access request',
  )
  .requiredOption('--fleet <fleetId>', 'fleet')
  .requiredOption('--id <driverId>', 'driver id')
  .requiredOption('--out <file>', 'the file to write (its folder must exist)')
  .option('--force', 'replace the file if it exists')
  .addOption(envOption())
  .action((opts: { fleet: string; id: string; out: string; force?: boolean; env: string }) =>
    withDatabase(opts.env, async (db) => {
      const { exportDriverData } = await lazy.driverExport();
      const file = path.resolve(opts.out);
      const partial = path.join(path.dirname(file), `.${path.basename(file)}.partial-${process.pid}`);
      refuseStoreFile(file, await storeFiles());
      if (!existsSync(path.dirname(file)))
        throw new Error(`folder ${path.dirname(file)} does not exist: create it first`);
      if (existsSync(file) && statSync(file).isDirectory()) {
        throw new Error(`${file} is a folder: give the path of a file to write`);
      }
      // A device, pipe or socket (/dev/null): --force replaces a file, so it is not suggested.
      if (existsSync(file) && !statSync(file).isFile()) {
        throw new Error(`${file} exists and is not a file: give the path of a file to write`);
      }
      if (existsSync(file) && !opts.force) {
        throw new Error(`${file} already exists: give another file, or --force to replace it`);
      }
      // Written under a temporary name and renamed when complete, readable by its owner only: it is
      // personal data.
      const handle = await open(partial, 'wx', 0o600);
      try {
        const r = await exportDriverData(db.db, { fleetId: opts.fleet, driverId: opts.id, nowMs: Date.now() }, (line) =>
          handle.write(`${line}\n`).then(() => undefined),
        );
        await handle.close();
        await rename(partial, file);
        process.stdout.write(
          `exported driver ${opts.id} of ${opts.fleet} to ${file}: ${plural(r.trips, 'trip')} (${r.scored} scored), ${(statSync(file).size / 1e6).toFixed(1)} MB\n`,
        );
      } catch (err) {
        await handle.close().catch(() => {});
        await rm(partial, { force: true });
        throw err;
      }
    }),
  );

const locations = program
  .command('locations')
  .description('location data of trips (GPS telemetry and routes), which retention deletes while scores stay');
locations
  .command('purge')
  .description(
    'delete the telemetry and routes of trips that started more than --older-than ago; scores, breakdowns and summaries stay (TRIPS_LOCATION_RETENTION_DAYS makes `serve` do this every hour)',
  )
  .requiredOption('--older-than <days>', 'age of the trips whose location data goes: 180, 180d or 26w')
  .option('--fleet <fleetId>', 'only this fleet')
  .option('--dry-run', 'only count what would be deleted')
  .addOption(envOption())
  .action((opts: { olderThan: string; fleet?: string; dryRun?: boolean; env: string }) =>
    withDatabase(opts.env, async (db) => {
      const days = parseDays(opts.olderThan, '--older-than');
      const nowMs = Date.now();
      const beforeMs = nowMs - days * 86_400_000;
      const r = await deleteLocationData(db.db, { beforeMs, nowMs, fleetId: opts.fleet, dryRun: opts.dryRun ?? false });
      const before = new Date(beforeMs).toISOString();
      process.stdout.write(
        opts.dryRun
          ? `would delete the telemetry of ${plural(r.uploads, 'upload')} started before ${before} and the routes of ${plural(r.trips, 'scored trip')}; nothing changed\n`
          : `deleted the telemetry of ${plural(r.uploads, 'upload')} started before ${before} and the routes of ${plural(r.trips, 'scored trip')}; their scores stay\n`,
      );
    }),
  );

const collect = (value: string, previous: string[] = []) => [...previous, value];

const tokens = program.command('tokens').description('API tokens (bearer tokens of /v1)');
/** A token as `tokens list` shows it at `nowMs`: its hint, never its secret. */
const tokenRow = (t: ApiTokenInfo, nowMs: number) => ({
  tokenId: t.tokenId,
  hint: `${t.hint}...`,
  owner: t.owner,
  admin: t.admin,
  fleets: t.fleets,
  rateLimitPerMin: t.rateLimitPerMin,
  status: t.revokedAt ? 'revoked' : t.expiresAt && Date.parse(t.expiresAt) <= nowMs ? 'expired' : 'active',
  expiresAt: t.expiresAt,
  createdAt: t.createdAt,
});
tokens
  .command('create')
  .description('issue a token; it is printed once on stdout and stored only as a SHA-256 hash')
  .requiredOption('--fleet <fleetId>', 'fleet the token reaches (repeat for several)', collect)
  .option('--admin', 'without x-fleet-id the token reads all its fleets at once')
  .option('--owner <owner>', 'who holds the token (default: the fleet names)')
  .option('--expires <when>', 'expiry: a duration (90d, 12h, 30m, 2w) or an ISO 8601 date')
  .option('--rate-limit <perMinute>', 'requests per minute for this token (default: the service limit)')
  .addOption(
    new Option(
      '--json',
      'print the token as a JSON object, as tokens list --json shows it, with its secret in "secret"',
    ),
  )
  .addOption(envOption())
  .action(
    (opts: {
      fleet: string[];
      admin?: boolean;
      owner?: string;
      expires?: string;
      rateLimit?: string;
      json?: boolean;
      env: string;
    }) =>
      withDatabase(opts.env, async (db, environment) => {
        // Digits only: Number() also reads "0x10" (16), "1e3" and "0b11", which no one means as a limit.
        if (opts.rateLimit !== undefined && !/^\d+$/.test(opts.rateLimit.trim())) {
          throw new Error(`--rate-limit "${opts.rateLimit}" must be a whole number of requests per minute`);
        }
        const rate = opts.rateLimit !== undefined ? Number(opts.rateLimit) : undefined;
        const { token, secret } = await createApiToken(db.db, {
          environment,
          fleets: opts.fleet,
          admin: opts.admin ?? false,
          owner: opts.owner,
          expiresAtMs: opts.expires !== undefined ? parseExpiry(opts.expires) : null,
          rateLimitPerMin: rate,
        });
        const failed = await writeSecret(opts.json ? asJson({ ...tokenRow(token, Date.now()), secret }) : secret);
        if (failed) {
          await revokeApiToken(db.db, token.tokenId);
          throw undelivered(token.tokenId, failed);
        }
        err(
          `${token.tokenId}: ${environment}${token.admin ? ' admin' : ''} token for ${token.fleets.join(', ')} (owner ${token.owner}${token.expiresAt ? `, expires ${token.expiresAt}` : ''}). It is shown once: store it now.`,
        );
      }),
  );
tokens
  .command('list')
  .description('list tokens (ids and hints, never secrets)')
  .option('--json', 'JSON output')
  .addOption(envOption())
  .action((opts: { json?: boolean; env: string }) =>
    withDatabase(opts.env, async (db) => {
      const now = Date.now();
      printRows(
        (await listApiTokens(db.db)).map((t) => tokenRow(t, now)),
        { json: opts.json },
      );
    }),
  );
tokens
  .command('revoke')
  .description('revoke a token; its next request gets 401')
  .argument('<tokenId>', 'tok_... from tokens list')
  .addOption(envOption())
  .action((tokenId: string, opts: { env: string }) =>
    withDatabase(opts.env, async (db) => {
      const earlier = await revokeApiToken(db.db, tokenId);
      process.stdout.write(earlier ? `${tokenId} was already revoked (${earlier})\n` : `${tokenId} revoked\n`);
    }),
  );

const keys = program
  .command('ingest-keys')
  .description('keys of devices and connectors for the private ingest endpoint');
/** An ingest key as `ingest-keys list` shows it: its hint, never its secret. */
const ingestKeyRow = (k: IngestKeyInfo) => ({
  keyId: k.keyId,
  hint: `${k.hint}...`,
  fleetId: k.fleetId,
  vehicle: k.plate,
  name: k.name,
  status: k.revokedAt ? 'revoked' : 'active',
  createdAt: k.createdAt,
});
keys
  .command('create')
  .description('issue an ingest key for a fleet (printed once); --vehicle makes it a device key for that vehicle only')
  .requiredOption('--fleet <fleetId>', 'fleet the uploads go to')
  .option('--vehicle <plate>', 'bind the key to one vehicle (device key)')
  .option('--name <name>', 'label, e.g. the device or connector name')
  .addOption(
    new Option(
      '--json',
      'print the key as a JSON object, as ingest-keys list --json shows it, with its secret in "secret"',
    ),
  )
  .addOption(envOption())
  .action((opts: { fleet: string; vehicle?: string; name?: string; json?: boolean; env: string }) =>
    withDatabase(opts.env, async (db, environment) => {
      const { key, secret } = await createIngestKey(db.db, {
        environment,
        fleetId: opts.fleet,
        plate: opts.vehicle,
        name: opts.name,
      });
      const failed = await writeSecret(opts.json ? asJson({ ...ingestKeyRow(key), secret }) : secret);
      if (failed) {
        await revokeIngestKey(db.db, key.keyId);
        throw undelivered(key.keyId, failed);
      }
      err(
        `${key.keyId}: ${key.plate ? `device key for ${key.plate}` : 'connector key'} in ${key.fleetId}. It is shown once: store it now.`,
      );
    }),
  );
keys
  .command('list')
  .description('list ingest keys')
  .option('--json', 'JSON output')
  .addOption(envOption())
  .action((opts: { json?: boolean; env: string }) =>
    withDatabase(opts.env, async (db) => {
      printRows((await listIngestKeys(db.db)).map(ingestKeyRow), { json: opts.json });
    }),
  );
keys
  .command('revoke')
  .description('revoke an ingest key')
  .argument('<keyId>', 'ik_... from ingest-keys list')
  .addOption(envOption())
  .action((keyId: string, opts: { env: string }) =>
    withDatabase(opts.env, async (db) => {
      const earlier = await revokeIngestKey(db.db, keyId);
      process.stdout.write(earlier ? `${keyId} was already revoked (${earlier})\n` : `${keyId} revoked\n`);
    }),
  );

program
  .command('import')
  .description(
    'import trips from GPX, CSV, GeoJSON, JSON samples or NDJSON files (optionally .gz) through the ingest operation',
  )
  .argument('<files...>', 'files to import')
  .requiredOption('--fleet <fleetId>', 'fleet the trips belong to')
  .option('--vehicle <plate>', 'vehicle of the trips (required unless each trip names its vehicle)')
  .option('--driver <driverId>', 'driver of the trips')
  .option('--no-score', 'only store and queue the trips; a running service scores them')
  .addOption(envOption())
  .addHelpText(
    'after',
    `
Without --no-score, the trips this command stored are scored here, and only they: other uploads in the
queue (a device's, another import's) are left to the service. Trips a running service takes first are
waited for. Then one line counts this import's trips (scored, failed, waiting for a retry) and each one not
scored is listed with its file, its place in the file, its trip id and the reason. A trip waiting for a
retry gets it from a running \`trips serve\`; a failed one can be queued again with \`trips queue retry\`.

Exit status: 0 when every trip of every file was imported (or already stored) and every trip imported by
this run was scored. 1 when a file had no trip imported (unreadable, or all its trips rejected), when a
trip was rejected, or when a trip imported by this run was not scored (it failed, or waits for a retry):
the other files and trips are imported and scored all the same, and one line on stderr says what went
wrong. Importing the same files again reports duplicates and scores nothing, so this run's status is the
one that tells.`,
  )
  .action((files: string[], opts: { fleet: string; vehicle?: string; driver?: string; score: boolean; env: string }) =>
    withDatabase(opts.env, async (db) => {
      // Checked before any file is read: otherwise every trip of every file is rejected for it, one by one.
      if (opts.driver !== undefined) checkNewDriverId(opts.driver, '--driver');
      const { importFile, readImportFile } = await lazy.importer();
      const { SingleBar } = await lazy.progress();
      await requireFleet(db.db, opts.fleet);
      if (opts.vehicle !== undefined) {
        const vehicle = await requireVehicle(db.db, opts.vehicle);
        if (vehicle.fleetId !== opts.fleet)
          throw new Error(`vehicle ${vehicle.plate} belongs to fleet ${vehicle.fleetId}`);
      }
      const bar = new SingleBar({
        format: 'importing {bar} {value}/{total} trips | {file}',
        noTTYOutput: false,
        stream: process.stderr,
      });
      // Each file is read once; the bar's total grows as the files are read (holding every file's trips
      // in memory to count them first would hold the whole import at once).
      let total = 0;
      bar.start(total, 0, { file: '' });
      const summaries = [];
      for (const file of files) {
        bar.update({ file: path.basename(file) });
        const read = await readImportFile(file);
        total += read.contents.trips.length;
        bar.setTotal(total);
        summaries.push(
          await importFile(
            db.db,
            file,
            { fleetId: opts.fleet, plate: opts.vehicle, driverId: opts.driver, onTrip: () => bar.increment() },
            read,
          ),
        );
      }
      bar.stop();
      let failedFiles = 0;
      // What a file says about itself (a CSV's trip_id, a track's name, a value a rejection quotes) is shown
      // escaped: an ESC sequence in a file sent by a customer would otherwise reach the operator's terminal.
      for (const s of summaries) {
        process.stdout.write(
          `${escapeUnprintable(s.file)}: ${s.imported} imported, ${s.duplicates} duplicate${s.duplicates === 1 ? '' : 's'}, ${s.rejected.length} rejected\n`,
        );
        for (const r of s.rejected) {
          process.stdout.write(`  rejected ${escapeUnprintable(`${r.location}: ${r.reason}`)}\n`);
        }
        for (const r of s.skipped) {
          process.stdout.write(`  skipped ${escapeUnprintable(`${r.location}: ${r.reason}`)}\n`);
        }
        if (s.imported + s.duplicates === 0) failedFiles++;
      }
      const imported = summaries.flatMap((s) => s.importedTrips.map((t) => ({ ...t, file: s.file })));
      const unscored = opts.score && imported.length > 0 ? await scoreImported(db, imported) : 0;
      const problems: string[] = [];
      if (failedFiles === files.length) problems.push('no trip could be imported');
      // Like cp with several files: the others were imported, and the status still says one failed.
      else if (failedFiles > 0) {
        problems.push(`${failedFiles} of ${files.length} files had no trip imported (see the rejections above)`);
      }
      // Rejected trips of files that had others imported (a file with none is counted above).
      const rejected = summaries
        .filter((s) => s.imported + s.duplicates > 0)
        .reduce((n, s) => n + s.rejected.length, 0);
      if (rejected > 0) {
        problems.push(`${rejected} trip${rejected === 1 ? ' was' : 's were'} rejected (see the rejections above)`);
      }
      if (unscored > 0) {
        problems.push(
          `${unscored} of ${imported.length} imported trip${imported.length === 1 ? ' was' : 's were'} not scored (see above)`,
        );
      }
      if (problems.length > 0) throw new Error(problems.join('; '));
    }),
  );

/**
 * Scores the trips this import stored, and no other job of the queue, with a progress bar; prints how
 * each ended and returns how many were not scored.
 */
async function scoreImported(
  db: TripsDatabase,
  trips: Array<{ tripId: string; label: string; file: string }>,
): Promise<number> {
  const cfg = config();
  const { ensureRoadGraph } = await lazy.roadGraph();
  const { createThreadPoolScorer } = await lazy.pool();
  const logger = createLogger({ level: 'warn', name: 'trips' });
  const graph = await ensureRoadGraph(cfg, logger);
  const scorer = await createThreadPoolScorer({ graphFile: graph.file, threads: cfg.scoringThreads });
  let outcomes: JobOutcomes;
  try {
    outcomes = await scoreWithBar(
      db,
      scorer,
      cfg.scoringThreads,
      trips.map((t) => t.tripId),
      'scoring  ',
    );
  } finally {
    await scorer.close();
  }
  const count = (status: string) => outcomes.filter((o) => o.status === status).length;
  process.stdout.write(
    `scoring: ${count('scored')} scored, ${count('failed')} failed, ${count('queued')} waiting for a retry\n`,
  );
  let unscored = 0;
  outcomes.forEach((o, i) => {
    if (o.status === 'scored') return;
    unscored++;
    const trip = trips[i]!;
    // Escaped as the import's own lines are (see the import command).
    const where = escapeUnprintable(`${trip.file} ${trip.label} (${o.tripId})`);
    if (o.status === 'failed') process.stdout.write(`  failed ${where}: ${o.reason}\n`);
    else if (o.status === 'queued') {
      const at = new Date(o.nextAttemptAtMs ?? 0).toISOString();
      process.stdout.write(
        `  waiting for a retry ${where}: ${o.reason}; next attempt at ${at}, by a running trips serve\n`,
      );
    } else process.stdout.write(`  missing ${where}: the upload is no longer stored\n`);
  });
  // A trip driven somewhere the road graph does not cover (the synthetic city of a first start, a real trace
  // from elsewhere) is scored without its roads: no speed limits, road classes or junctions. Worth saying
  // once, with how to score such trips against their own region.
  const scoredIds = outcomes.filter((o) => o.status === 'scored').map((o) => o.tripId);
  let offGraph = 0;
  // In slices: an import may hold more trips than a statement may have parameters (SQLite: 32,766).
  for (let i = 0; i < scoredIds.length; i += 500) {
    const { n } = await db.db
      .selectFrom('trips')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('trip_id', 'in', scoredIds.slice(i, i + 500))
      .where('matched_share', '=', 0)
      .executeTakeFirstOrThrow();
    offGraph += Number(n);
  }
  if (offGraph > 0) {
    process.stdout.write(
      `note: ${offGraph} of ${scoredIds.length} scored trip${scoredIds.length === 1 ? '' : 's'} did not touch the ${graph.description}, so ${offGraph === 1 ? 'it was' : 'they were'} scored without map matching (no speed limits, road classes or junctions); to score ${offGraph === 1 ? 'it' : 'them'} against ${offGraph === 1 ? 'its' : 'their'} roads, set TRIPS_OSM_FILE to an OpenStreetMap extract of the region (or TRIPS_ROAD_GRAPH to a graph from \`npx trips roads build\`) and run \`npx trips rescore --all\`\n`,
    );
  }
  return unscored;
}

type JobOutcomes = Awaited<ReturnType<import('./ingest/scoring-worker.ts').ScoringWorker['scoreTrips']>>;

/**
 * Scores the given queued trips, and no other job of the queue, with a progress bar labelled `label`. The outcome of
 * every trip is for the caller to print, so the worker logs errors only (its per-trip warnings would repeat them as
 * JSON in the middle of the report).
 */
async function scoreWithBar(
  db: TripsDatabase,
  scorer: TripScorer,
  concurrency: number,
  tripIds: string[],
  label: string,
): Promise<JobOutcomes> {
  const { ScoringWorker } = await lazy.worker();
  const { SingleBar } = await lazy.progress();
  const logger = createLogger({ level: 'error', name: 'trips' });
  const worker = new ScoringWorker({ db, scorer, logger, concurrency });
  const bar = countProgress(SingleBar, label, process.stderr);
  bar.start(tripIds.length, 0);
  try {
    return await worker.scoreTrips(tripIds, { onProgress: (settled) => bar.update(settled) });
  } finally {
    bar.stop();
  }
}

/**
 * After a rescore: the scored trips waiting in the queue to be scored again, scored here. A trip rescored with other
 * times puts its driver's later trips back in the queue (their fatigue context changed), and the run skips a trip it
 * finds queued, so without a running service they stayed queued, served with their old model's scores, and a second
 * rescore did not take them either (a helper's upgrade of 3,250 trips left 474 queued, 309 at the old model). New
 * uploads waiting for their first score are left to the service, as `import --no-score` means them to be.
 */
async function scoreQueuedAgain(
  db: TripsDatabase,
  scorer: TripScorer,
  concurrency: number,
  signal: AbortSignal,
): Promise<void> {
  const rows = await db.db
    .selectFrom('trip_uploads')
    .select('trip_id')
    .where('status', '=', 'queued')
    .where('scored_at_ms', 'is not', null)
    .where('next_attempt_at_ms', '<=', Date.now())
    .execute();
  if (rows.length === 0 || signal.aborted) return;
  const outcomes = await scoreWithBar(
    db,
    scorer,
    concurrency,
    rows.map((r) => r.trip_id),
    'queued   ',
  );
  const count = (status: string) => outcomes.filter((o) => o.status === status).length;
  process.stdout.write(
    `${plural(rows.length, 'scored trip')} waiting in the queue to be scored again (an earlier trip of the driver was rescored with other times): ${count('scored')} scored, ${count('failed')} failed, ${count('queued')} waiting for a retry by a running trips serve\n`,
  );
}

program
  .command('rescore')
  .description('recompute stored trips with the current scoring model (resumable: run it again after an interruption)')
  .option('--all', 'every trip, not only those scored by another model version (and failed ones)')
  .addOption(envOption())
  .action((opts: { all?: boolean; env: string }) =>
    withDatabase(opts.env, async (db) => {
      const cfg = config();
      const { ensureRoadGraph } = await lazy.roadGraph();
      const { createThreadPoolScorer } = await lazy.pool();
      const { rescore } = await lazy.rescore();
      const { SingleBar } = await lazy.progress();
      const graph = await ensureRoadGraph(cfg);
      const scorer = await createThreadPoolScorer({ graphFile: graph.file, threads: cfg.scoringThreads });
      const bar = countProgress(SingleBar, 'rescoring', process.stderr);
      let started = false;
      // Ctrl-C (or a SIGTERM) finishes the trips being scored, records the run's progress and releases it, so
      // running the command again resumes at once; before, the process died holding the run for 5 minutes.
      // A second Ctrl-C stops at once.
      const interrupt = new AbortController();
      const stop = () => interrupt.abort();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      try {
        const result = await rescore(db, scorer, {
          signal: interrupt.signal,
          all: opts.all ?? false,
          concurrency: cfg.scoringThreads,
          onProgress: (done, total) => {
            if (!started) bar.start(total, done);
            started = true;
            bar.setTotal(total);
            bar.update(done);
          },
        });
        bar.stop();
        if (result.takenOverFrom) {
          process.stdout.write(
            `took run ${result.runId} over from ${result.takenOverFrom}, a process of this machine that is no longer running\n`,
          );
        }
        process.stdout.write(
          `${result.resumed ? 'resumed run' : 'run'} ${result.runId} (model ${result.modelVersion}): ${result.rescored} rescored, ${result.failed} not scorable${result.interrupted ? `, interrupted with ${result.total - result.rescored - result.failed} to go: run this command again to resume` : ''}\n`,
        );
        if (result.interrupted) process.exitCode = 130;
        else {
          await scoreQueuedAgain(db, scorer, cfg.scoringThreads, interrupt.signal);
          // Scored by a node of another release after the run's cursor had passed them (old nodes still running).
          const { otherModelsLeftNotice } = await import('./store/model-versions.ts');
          const left = await otherModelsLeftNotice(db.db, result.modelVersion);
          if (left) err(`trips: ${left}`);
        }
        if (result.keptWithoutTelemetry > 0) {
          process.stdout.write(
            `${plural(result.keptWithoutTelemetry, 'trip')} not rescored, the score staying as it was: location data deleted (retention or a driver's erasure)\n`,
          );
        }
        const unreadable = result.unreadableTelemetry;
        if (unreadable.length > 0) {
          // Damaged storage is worth a failing status (a script notices), but the run itself went through.
          const named = unreadable.slice(0, 5).map((u) => u.tripId);
          const more = unreadable.length > named.length ? ` and ${unreadable.length - named.length} more` : '';
          err(
            `trips: ${plural(unreadable.length, 'trip')} not rescored, the score staying as it was: ${unreadable[0]!.reason}: ${named.join(', ')}${more}; restore their uploads from a backup, or leave those scores as they are`,
          );
          if (!result.interrupted) process.exitCode = 1;
        }
      } finally {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        bar.stop();
        await scorer.close();
      }
    }),
  );

program
  .command('backup')
  .description(
    "copy an environment's SQLite store, while the service runs, into one checked file (PostgreSQL: use pg_dump)",
  )
  .requiredOption('--out <file>', 'the backup file (its folder must exist)')
  .option('--force', 'replace the file if it exists')
  .addOption(envOption())
  .action((opts: { out: string; force?: boolean; env: string }) =>
    withDatabase(opts.env, async (db, environment) => {
      refuseStoreFile(opts.out, await storeFiles());
      const r = await backupSqlite(db.db, opts.out, { overwrite: opts.force ?? false });
      process.stdout.write(
        `backed up the ${environment} store to ${r.file}: ${(r.bytes / 1e6).toFixed(1)} MB in ${(r.ms / 1000).toFixed(1)} s, integrity checked\n`,
      );
    }),
  );

const queue = program.command('queue').description('the scoring queue');
queue
  .command('status')
  .description('uploads per status, the last 20 failed with their reasons, trips scored by another model')
  .addOption(envOption())
  .option('--json', 'JSON output')
  .action((opts: { env: string; json?: boolean }) =>
    withDatabase(opts.env, async (db) => {
      const counts = await queueCounts(db.db);
      const failed = await db.db
        .selectFrom('trip_uploads')
        .select(['trip_id', 'plate', 'attempts', 'last_error'])
        .where('status', '=', 'failed')
        .orderBy('received_at_ms', 'desc')
        .limit(20)
        .execute();
      // Scored trips back in the queue because an earlier trip of their driver arrived (fatigue context).
      const again = await db.db
        .selectFrom('trip_uploads')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('status', 'in', ['queued', 'scoring'])
        .where('scored_at_ms', 'is not', null)
        .executeTakeFirstOrThrow();
      // Loaded here, not at the top: the engine's modules are not needed by the other commands.
      const { SCORING_MODEL_VERSION } = await import('@svc/scoring');
      const otherModels = await tripsScoredByOtherModels(db.db, SCORING_MODEL_VERSION);
      if (opts.json) {
        process.stdout.write(
          `${JSON.stringify(
            {
              ...counts,
              scoredQueuedAgain: Number(again.n),
              lastFailed: failed.map((f) => ({
                tripId: f.trip_id,
                plate: f.plate,
                attempts: Number(f.attempts),
                reason: f.last_error,
              })),
              modelVersion: SCORING_MODEL_VERSION,
              scoredByOtherModels: otherModels,
            },
            null,
            2,
          )}\n`,
        );
        return;
      }
      process.stdout.write(
        `${Object.entries(counts)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}\n`,
      );
      if (Number(again.n) > 0) {
        process.stdout.write(
          `  ${again.n} of the queued are scored trips to be scored again (an earlier trip of their driver arrived)\n`,
        );
      }
      for (const f of failed) process.stdout.write(`  failed ${f.trip_id} (${f.plate}): ${f.last_error}\n`);
      const notice = otherModelsNotice(otherModels, SCORING_MODEL_VERSION, opts.env);
      if (notice) process.stdout.write(`${notice}\n`);
    }),
  );
queue
  .command('retry')
  .description('queue failed trips again (all, or the ids given)')
  .argument('[tripIds...]', 'trip ids; all failed trips when omitted')
  .addOption(envOption())
  .action((tripIds: string[], opts: { env: string }) =>
    withDatabase(opts.env, async (db) => {
      const n = await requeue(db.db, { ...(tripIds.length > 0 ? { tripIds } : {}), failedOnly: true }, Date.now());
      process.stdout.write(`${n} trip${n === 1 ? '' : 's'} queued again\n`);
      if (tripIds.length === 0) return;
      // Ids given that were not failed uploads: say what they are, and fail for ids that do not exist.
      const found = await db.db
        .selectFrom('trip_uploads')
        .select(['trip_id', 'status', 'telemetry_deleted_at_ms'])
        .where('trip_id', 'in', tripIds)
        .execute();
      const status = new Map(found.map((r) => [r.trip_id, r]));
      const unknown = tripIds.filter((id) => !status.has(id));
      for (const id of tripIds) {
        const row = status.get(id);
        if (row === undefined || row.status === 'queued') continue;
        if (row.telemetry_deleted_at_ms !== null) {
          process.stdout.write(`  ${id} is ${row.status} and its telemetry was deleted: it cannot be scored again\n`);
        } else {
          process.stdout.write(`  ${id} is ${row.status}, not failed: left as it is\n`);
        }
      }
      if (unknown.length > 0) throw new Error(`no upload ${unknown.join(', ')} in the ${opts.env} store`);
    }),
  );

const roads = program.command('roads').description('the road graph trips are scored against');
roads
  .command('build')
  .description('build a road graph file from an OpenStreetMap extract, or generate the synthetic city')
  .option('--osm <file>', 'OpenStreetMap extract (.osm.pbf, .osm, .osm.gz)')
  .option('--synthetic', 'generate the synthetic city instead')
  .option('--seed <n>', 'seed of the synthetic city', '7')
  .option('--country <code>', 'ISO country whose default speed limits apply (OSM)')
  .requiredOption('--out <file>', 'graph file to write (then set TRIPS_ROAD_GRAPH to it)')
  .action(async (opts: { osm?: string; synthetic?: boolean; seed: string; country?: string; out: string }) => {
    if (!opts.osm === !opts.synthetic) throw new Error('give exactly one of --osm <file> or --synthetic');
    refuseStoreFile(opts.out, await storeFiles());
    const { buildGraphFromOsm, generateCity, writeGraph } = await lazy.roads();
    const { SingleBar } = await lazy.progress();
    let graph: import('@svc/roads').RoadGraph;
    if (opts.osm) {
      const bar = new SingleBar({ format: 'reading OSM {bar} {percentage}%', stream: process.stderr });
      bar.start(100, 0);
      graph = await buildGraphFromOsm(opts.osm, {
        ...(opts.country ? { country: opts.country } : {}),
        onProgress: (read, totalBytes) => bar.update(Math.floor((read / Math.max(1, totalBytes)) * 100)),
      });
      bar.stop();
    } else {
      graph = generateCity({ seed: parseSeed(opts.seed) });
    }
    writeGraph(graph, opts.out);
    process.stdout.write(`${opts.out}: ${graph.edgeCount} directed edges, ${graph.nodeCount} nodes\n`);
  });

await runCli(program);
