import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { generateCity } from '@svc/roads';
import { planTrips, createFleet as simulatedFleet, simulateFleetTrips } from '@svc/simulator';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApiApp } from '../src/api/build-api-app.ts';
import { acceptUpload } from '../src/ingest/accept-upload.ts';
import { tripsMigrations } from '../src/store/migrations.ts';
import { openTripsDatabase } from '../src/store/open-trips-database.ts';
import { scorableTrip } from './fixtures/scorable-trip.ts';
import { gpsTrip } from './fixtures/telemetry.ts';
import { quietLogger } from './fixtures/world.ts';

const BIN = fileURLToPath(new URL('../bin/trips.js', import.meta.url));
const run = promisify(execFile);

describe('admin CLI (npx trips)', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'trips-cli-'));
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    TRIPS_DATABASE_URL: '',
    DATABASE_URL: '',
    TRIPS_SCORING_THREADS: '1',
  };
  const trips = async (...args: string[]) => run(process.execPath, [BIN, ...args], { env, timeout: 120_000 });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('migrate lists what it applied to a new store, then says the store was up to date', async () => {
    const fresh = mkdtempSync(path.join(tmpdir(), 'trips-cli-migrate-'));
    try {
      const migrate = async () =>
        run(process.execPath, [BIN, 'migrate', '--env', 'sandbox'], {
          env: { ...env, DATA_DIR: fresh },
          timeout: 120_000,
        });
      const known = Object.keys(tripsMigrations);
      const first = (await migrate()).stdout.trim().split('\n');
      expect(first.slice(0, -1)).toEqual(known.map((name) => `sandbox: applied ${name}`));
      expect(first.at(-1)).toBe(
        `sandbox: sqlite:${path.join(fresh, 'trips-sandbox.db')} is up to date (${known.length} migrations)`,
      );
      expect((await migrate()).stdout).toBe(
        `sandbox: sqlite:${path.join(fresh, 'trips-sandbox.db')} was up to date (${known.length} migrations)\n`,
      );
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });

  it('sets up a fleet, imports and scores a file, and the token reads it through the API', async () => {
    expect((await trips('fleets', 'create', '--name', 'CLI fleet', '--id', 'fleet_cli')).stdout).toBe('fleet_cli\n');
    expect(
      (await trips('vehicles', 'create', '--fleet', 'fleet_cli', '--plate', 'cl-42', '--type', 'van')).stdout,
    ).toBe('CL-42\n');
    const created = await trips('tokens', 'create', '--fleet', 'fleet_cli', '--expires', '30d');
    const token = created.stdout.trim();
    expect(token).toMatch(/^trips_live_[A-Za-z0-9_-]{43}$/);
    expect(created.stderr).toContain('shown once');

    const batch = scorableTrip({ startMs: Date.UTC(2026, 10, 3, 7), vehicle: 'CL-42', seed: 3 });
    const ndjson = [
      JSON.stringify({ type: 'header', clientTripId: 'cli-trip-0001', driverId: 'drv-cli' }),
      ...batch.samples.map((s) => JSON.stringify(s)),
    ].join('\n');
    const file = path.join(dataDir, 'trip.ndjson');
    writeFileSync(file, ndjson);
    const imported = await trips('import', file, '--fleet', 'fleet_cli', '--vehicle', 'CL-42');
    expect(imported.stdout).toContain('trip.ndjson: 1 imported, 0 duplicates, 0 rejected');
    expect(imported.stdout).toContain('scoring: 1 scored, 0 failed');
    const again = await trips('import', file, '--fleet', 'fleet_cli', '--vehicle', 'CL-42');
    expect(again.stdout).toContain('0 imported, 1 duplicate, 0 rejected');
    // One of two files fails entirely: both are reported, and the exit status says something failed.
    const broken = path.join(dataDir, 'broken.gpx');
    writeFileSync(broken, '<gpx><trk><trkseg><trkpt lat="95" lon="7"></trkpt></trkseg></trk></gpx>');
    const partial = await trips('import', file, broken, '--fleet', 'fleet_cli', '--vehicle', 'CL-42').catch((e) => e);
    expect(partial.code).toBe(1);
    expect(partial.stdout).toContain('trip.ndjson: 0 imported, 1 duplicate, 0 rejected');
    expect(partial.stdout).toContain('broken.gpx: 0 imported, 0 duplicates, 1 rejected');
    expect(partial.stderr).toContain('trips: 1 of 2 files had no trip imported (see the rejections above)');
    // A file with one good trip and one bad one: the good one is imported, and the status still says one failed.
    const mixed = path.join(dataDir, 'mixed.ndjson');
    const second = scorableTrip({ startMs: Date.UTC(2026, 10, 4, 7), vehicle: 'CL-42', seed: 4 });
    writeFileSync(
      mixed,
      [
        JSON.stringify({ type: 'header', clientTripId: 'cli-trip-0002' }),
        ...second.samples.map((s) => JSON.stringify(s)),
        JSON.stringify({ type: 'header', clientTripId: 'cli-trip-0003' }),
        ...second.samples.map((s) => JSON.stringify({ ...s, lat: 95 })),
      ].join('\n'),
    );
    const someRejected = await trips('import', mixed, '--fleet', 'fleet_cli', '--vehicle', 'CL-42', '--no-score').catch(
      (e) => e,
    );
    expect(someRejected.code).toBe(1);
    expect(someRejected.stdout).toContain('mixed.ndjson: 1 imported, 0 duplicates, 1 rejected');
    expect(someRejected.stderr).toContain('trips: 1 trip was rejected (see the rejections above)');

    let scoredTripId = '';
    const list = await trips('tokens', 'list', '--json');
    const [info] = JSON.parse(list.stdout) as Array<{ tokenId: string; fleets: string[]; status: string }>;
    expect(info).toMatchObject({ fleets: ['fleet_cli'], status: 'active' });
    expect(list.stdout).not.toContain(token);

    const database = await openTripsDatabase({
      environment: 'production',
      sqliteFile: path.join(dataDir, 'trips-production.db'),
    });
    const app = await buildApiApp({ environment: 'production', database, logger: quietLogger() });
    try {
      const res = await app.inject({ url: '/v1/trips', headers: { authorization: `Bearer ${token}` } });
      expect(res.json().pagination.total).toBe(1);
      scoredTripId = res.json().trips[0].tripId;
      expect((await trips('tokens', 'revoke', info!.tokenId)).stdout).toBe(`${info!.tokenId} revoked\n`);
      const revoked = await app.inject({ url: '/v1/trips', headers: { authorization: `Bearer ${token}` } });
      expect(revoked.statusCode).toBe(401);
      // Revoking it again changes nothing and says so, with when it was revoked.
      const again = await trips('tokens', 'revoke', info!.tokenId);
      expect(again.stdout).toMatch(
        new RegExp(`^${info!.tokenId} was already revoked \\(\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\)\n$`),
      );
    } finally {
      await app.close();
      await database.close();
    }

    // Retrying ids that are not failed uploads changes nothing, says so, and fails for an unknown id.
    const retry = await trips('queue', 'retry', scoredTripId, 'trip_doesnotexist01').catch((e) => e);
    expect(retry.code).toBe(1);
    expect(retry.stdout).toContain('0 trips queued again');
    expect(retry.stdout).toContain(`${scoredTripId} is scored, not failed: left as it is`);
    expect(retry.stderr.trim()).toBe('trips: no upload trip_doesnotexist01 in the production store');

    const rescored = await trips('rescore', '--all');
    expect(rescored.stdout).toMatch(/run 1 \(model .+\): 1 rescored, 0 not scorable/);

    // A subject access request: everything stored about the driver, one JSON line per trip.
    const exportFile = path.join(dataDir, 'drv-cli.jsonl');
    const exported = await trips('drivers', 'export', '--fleet', 'fleet_cli', '--id', 'drv-cli', '--out', exportFile);
    expect(exported.stdout).toMatch(
      new RegExp(
        `^exported driver drv-cli of fleet_cli to ${exportFile.replaceAll('.', '\\.')}: 1 trip \\(1 scored\\), [\\d.]+ MB\n$`,
      ),
    );
    const exportedLines = readFileSync(exportFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(exportedLines.map((l) => [l.type, l.tripId ?? l.driverId])).toEqual([
      ['driver', 'drv-cli'],
      ['trip', scoredTripId],
    ]);
    expect(statSync(exportFile).mode & 0o777).toBe(0o600);

    // Location data: retention takes the scored trip of 2026-11-03 (the queued one keeps its telemetry
    // until it is scored), a driver's erasure unlinks them, and rescore then keeps the score it cannot redo.
    const dry = await trips('locations', 'purge', '--older-than', '1d', '--dry-run');
    expect(dry.stdout).toMatch(
      /^would delete the telemetry of 1 upload started before \S+ and the routes of 1 scored trip; nothing changed\n$/,
    );
    const purged = await trips('locations', 'purge', '--older-than', '1d');
    expect(purged.stdout).toMatch(/^deleted the telemetry of 1 upload started before .+; their scores stay\n$/);
    expect((await trips('locations', 'purge', '--older-than', '1d')).stdout).toContain('telemetry of 0 uploads');
    const badDays = await trips('locations', 'purge', '--older-than', '0d').catch((e) => e);
    expect(badDays.code).toBe(1);
    expect(badDays.stderr.trim()).toBe(
      'trips: --older-than "0d" must be a number of days from 1 to 36500, such as 180, 180d or 26w',
    );
    const erase = await trips('drivers', 'erase', '--fleet', 'fleet_cli', '--id', 'drv-cli', '--dry-run');
    expect(erase.stdout).toBe(
      'would erase driver drv-cli of fleet_cli: 1 trip (0 not yet scored) to unlink, with their telemetry and routes; registration to delete; nothing changed\n',
    );
    expect((await trips('drivers', 'erase', '--fleet', 'fleet_cli', '--id', 'drv-cli')).stdout).toBe(
      'erased driver drv-cli of fleet_cli: 1 trip unlinked, with their telemetry and routes deleted (0 not yet scored, dropped); registration deleted\n',
    );
    const gone = await trips('drivers', 'erase', '--fleet', 'fleet_cli', '--id', 'drv-cli').catch((e) => e);
    expect(gone.code).toBe(1);
    expect(gone.stderr.trim()).toBe('trips: driver drv-cli not found in fleet fleet_cli');
    // A backup of the store, taken as the service would run, reads the same trips.
    const backupFile = path.join(dataDir, 'backup.db');
    const backup = await trips('backup', '--out', backupFile);
    expect(backup.stdout).toMatch(
      new RegExp(
        `^backed up the production store to ${backupFile.replaceAll('.', '\\.')}: [\\d.]+ MB in [\\d.]+ s, integrity checked\n$`,
      ),
    );
    const twice = await trips('backup', '--out', backupFile).catch((e) => e);
    expect(twice.code).toBe(1);
    expect(twice.stderr.trim()).toBe(
      `trips: ${backupFile} already exists: give another file, or --force to replace it`,
    );
    const copy = await openTripsDatabase({ environment: 'production', sqliteFile: backupFile });
    try {
      const rows = await copy.db.selectFrom('trips').select('trip_id').execute();
      expect(rows.map((r) => r.trip_id)).toEqual([scoredTripId]);
    } finally {
      await copy.close();
    }

    const kept = await trips('rescore', '--all');
    expect(kept.stdout).toContain(
      "1 trip not rescored, the score staying as it was: location data deleted (retention or a driver's erasure)",
    );

    // The customer leaves: the fleet goes with all it holds (the queued upload of cli-trip-0002 included).
    const dryDelete = await trips('fleets', 'delete', '--id', 'fleet_cli', '--dry-run');
    expect(dryDelete.stdout).toBe(
      'would delete fleet fleet_cli: 1 trip, 2 uploads, 1 vehicle, 0 drivers, 0 ingest keys; tokens: 1 no longer reaching it, 0 of them revoked (they reached nothing else); nothing changed\n',
    );
    expect((await trips('fleets', 'delete', '--id', 'fleet_cli')).stdout).toBe(
      'deleted fleet fleet_cli: 1 trip, 2 uploads, 1 vehicle, 0 drivers, 0 ingest keys; tokens: 1 no longer reaching it, 0 of them revoked (they reached nothing else)\n',
    );
    expect((await trips('fleets', 'list', '--json')).stdout).toBe('[]\n');
  }, 180_000);

  it('import scores only the trips it stored, leaves an upload queued by the ingest endpoint alone, and reports a trip that cannot be scored with its reason and a non-zero status', async () => {
    await trips('fleets', 'create', '--name', 'Own fleet', '--id', 'fleet_own', '--env', 'sandbox');
    await trips('vehicles', 'create', '--fleet', 'fleet_own', '--plate', 'OW-1', '--env', 'sandbox');
    await trips('vehicles', 'create', '--fleet', 'fleet_own', '--plate', 'DV-9', '--env', 'sandbox');
    // A device's upload, queued through the ingest operation as `trips serve` would, for the service to score.
    const sqliteFile = path.join(dataDir, 'trips-sandbox.db');
    const start = Date.UTC(2026, 10, 21, 8, 15);
    let database = await openTripsDatabase({ environment: 'sandbox', sqliteFile });
    const device = await acceptUpload(
      database.db,
      { fleetId: 'fleet_own', vehicleId: null, keyId: null, source: 'ingest' },
      'device-trip-0001',
      scorableTrip({ startMs: start - 3_600_000, vehicle: 'DV-9', seed: 5 }),
      Date.now(),
    );
    await database.close();

    // One file, two trips: a drive the engine scores, and a 40 s roll of 0.5 km it cannot score.
    const drive = scorableTrip({ startMs: start, vehicle: 'OW-1', seed: 8 });
    const roll = gpsTrip({ startMs: start + 3_600_000, points: 40, speedKmh: 45 });
    const file = path.join(dataDir, 'own.ndjson');
    writeFileSync(
      file,
      [
        JSON.stringify({ type: 'header', clientTripId: 'own-drive-1' }),
        ...drive.samples.map((x) => JSON.stringify(x)),
        JSON.stringify({ type: 'header', clientTripId: 'own-roll-1' }),
        ...roll.samples.map((x) => JSON.stringify(x)),
      ].join('\n'),
    );
    const rollLines = `lines ${drive.samples.length + 2}-${drive.samples.length + 2 + roll.samples.length}`;
    const result = await trips('import', file, '--fleet', 'fleet_own', '--vehicle', 'OW-1', '--env', 'sandbox').catch(
      (e) => e,
    );
    expect(result.stdout).toContain('own.ndjson: 2 imported, 0 duplicates, 0 rejected');
    // Counts about this import's two trips, not the store (which also holds the device's queued upload).
    expect(result.stdout).toContain('scoring: 1 scored, 1 failed, 0 waiting for a retry');
    const failedLines = result.stdout.split('\n').filter((line: string) => line.startsWith('  failed '));
    expect(failedLines).toHaveLength(1);
    expect(failedLines[0]).toContain(`  failed ${file} ${rollLines} (trip_`);
    expect(failedLines[0]).toMatch(
      /\(trip_\w+\): the trip is 0\.\d\d km and \d+ s moving; a scorable trip needs 1 km and 120 s moving$/,
    );
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n').at(-1)).toBe('trips: 1 of 2 imported trips were not scored (see above)');

    database = await openTripsDatabase({ environment: 'sandbox', sqliteFile });
    try {
      const other = await database.db
        .selectFrom('trip_uploads')
        .select(['status', 'attempts', 'lease_owner'])
        .where('trip_id', '=', device.tripId)
        .executeTakeFirstOrThrow();
      expect(other).toEqual({ status: 'queued', attempts: 0, lease_owner: null });
      const statuses = await database.db
        .selectFrom('trip_uploads')
        .select(['source', 'status'])
        .where('source', '=', 'import:own.ndjson')
        .orderBy('status')
        .execute();
      expect(statuses.map((r) => r.status)).toEqual(['failed', 'scored']);
    } finally {
      await database.close();
    }
  }, 180_000);

  it('import says when a scored trip lies outside the road graph, and how to score it against its own roads', async () => {
    await trips('fleets', 'create', '--name', 'Far fleet', '--id', 'fleet_far');
    await trips('vehicles', 'create', '--fleet', 'fleet_far', '--plate', 'FAR-1');
    // A drive simulated on the synthetic city a first start scores against (seed 7), matched to its streets...
    const graph = generateCity({ seed: 7 });
    const fleet = simulatedFleet({ seed: 'cli-far', graph, vehicles: 1 });
    const plans = planTrips({ fleet, graph, days: 3, startDate: '2026-10-01' });
    const [simulated] = simulateFleetTrips({ fleet, graph, plans: plans.slice(0, 1), imuHz: 0 });
    const city = path.join(dataDir, 'city.ndjson');
    writeFileSync(city, simulated!.batch.samples.map((x) => JSON.stringify(x)).join('\n'));
    const inCity = (await trips('import', city, '--fleet', 'fleet_far', '--vehicle', 'FAR-1')).stdout;
    // (the simulated day holds stops, so it is stored as several drives)
    const drives = Number(/scoring: (\d+) scored, 0 failed/.exec(inCity)?.[1]);
    expect(drives).toBeGreaterThan(0);
    expect(inCity).not.toContain('without map matching');
    // ...and 3.3 km across Santiago de Chile, where that city has no road.
    const far = gpsTrip({ startMs: Date.UTC(2026, 10, 5, 12), points: 300, speedKmh: 40, origin: [-70.65, -33.45] });
    const file = path.join(dataDir, 'far.ndjson');
    writeFileSync(file, far.samples.map((x) => JSON.stringify(x)).join('\n'));
    const out = (await trips('import', city, file, '--fleet', 'fleet_far', '--vehicle', 'FAR-1')).stdout;
    expect(out).toContain(`city.ndjson: 0 imported, ${drives} duplicate${drives === 1 ? '' : 's'}, 0 rejected`);
    expect(out).toContain('scoring: 1 scored, 0 failed');
    expect(out).toContain(
      'note: 1 of 1 scored trip did not touch the synthetic city (seed 7), so it was scored without map matching',
    );
    expect(out).toContain('set TRIPS_OSM_FILE to an OpenStreetMap extract of the region');
  });

  it('queue status names the stored trips scored by another model version, until rescore brings them up to date', async () => {
    // The sandbox holds the trip the previous test imported and scored with the current model.
    const status = async () => (await trips('queue', 'status', '--env', 'sandbox')).stdout;
    expect(await status()).not.toContain('another model');
    const sqliteFile = path.join(dataDir, 'trips-sandbox.db');
    const database = await openTripsDatabase({ environment: 'sandbox', sqliteFile });
    try {
      // As after an upgrade: the stored score comes from an older release's model.
      const updated = await database.db.updateTable('trips').set({ model_version: '1.0.0' }).executeTakeFirst();
      expect(Number(updated.numUpdatedRows)).toBe(1);
      await database.db
        .updateTable('trip_uploads')
        .set({ model_version: '1.0.0' })
        .where('status', '=', 'scored')
        .execute();
    } finally {
      await database.close();
    }
    const { SCORING_MODEL_VERSION } = await import('@svc/scoring');
    // --json says what the text says: the counts of its first line, the model versions.
    const json = JSON.parse((await trips('queue', 'status', '--env', 'sandbox', '--json')).stdout);
    const line = (await status()).split('\n')[0]!;
    const counts = Object.fromEntries(line.split(', ').map((part) => [part.split(' ')[0], Number(part.split(' ')[1])]));
    expect(Object.keys(counts)).toEqual(['queued', 'scoring', 'scored', 'failed']);
    expect(json).toMatchObject({
      ...counts,
      scored: 1,
      scoredQueuedAgain: 0,
      modelVersion: SCORING_MODEL_VERSION,
      scoredByOtherModels: [{ modelVersion: '1.0.0', trips: 1 }],
    });
    expect(json.lastFailed).toHaveLength(Math.min(20, json.failed));
    for (const failed of json.lastFailed) {
      expect(failed).toEqual({
        tripId: expect.stringMatching(/^trip_/),
        plate: expect.any(String),
        attempts: expect.any(Number),
        reason: expect.any(String),
      });
    }
    expect(await status()).toContain(
      `1 stored trip was scored by another model than the current ${SCORING_MODEL_VERSION} (1 by 1.0.0); they are served with those scores until \`npx trips rescore --env sandbox\` recomputes them\n`,
    );
    // Not the import's roll of 0.5 km, a failed upload: the current model found it unscorable already.
    expect((await trips('rescore', '--env', 'sandbox')).stdout).toContain('1 rescored, 0 not scorable');
    expect(await status()).not.toContain('another model');

    // A scored trip put back in the queue by an earlier trip of its driver (as a rescore that moves a trip's times
    // leaves its driver's later trips), still at an older model: rescore skips a queued trip, so without a running
    // service it stayed queued, and served with the old score, through any number of rescores. Now the rescore
    // scores it after its run.
    const again = await openTripsDatabase({ environment: 'sandbox', sqliteFile });
    let tripId = '';
    try {
      await again.db.updateTable('trips').set({ model_version: '1.0.0' }).execute();
      const row = await again.db
        .updateTable('trip_uploads')
        .set({ status: 'queued', model_version: '1.0.0', attempts: 0, next_attempt_at_ms: Date.now() })
        .where('status', '=', 'scored')
        .returning('trip_id')
        .executeTakeFirstOrThrow();
      tripId = row.trip_id;
    } finally {
      await again.close();
    }
    const rescored = (await trips('rescore', '--env', 'sandbox')).stdout;
    expect(rescored).toContain(
      '1 scored trip waiting in the queue to be scored again (an earlier trip of the driver was rescored with other times): 1 scored, 0 failed',
    );
    const after = JSON.parse((await trips('queue', 'status', '--env', 'sandbox', '--json')).stdout);
    expect(after).toMatchObject({ scoredQueuedAgain: 0, scoredByOtherModels: [] });
    expect(await status()).not.toContain('another model');
    const check = await openTripsDatabase({ environment: 'sandbox', sqliteFile });
    try {
      const upload = await check.db
        .selectFrom('trip_uploads')
        .select(['status', 'model_version'])
        .where('trip_id', '=', tripId)
        .executeTakeFirstOrThrow();
      expect(upload).toEqual({ status: 'scored', model_version: SCORING_MODEL_VERSION });
    } finally {
      await check.close();
    }
  }, 180_000);

  it('refuses an --expires past the last representable date instead of storing a token tokens list cannot show', async () => {
    await trips('fleets', 'create', '--name', 'Expiry fleet', '--id', 'fleet_expiry', '--env', 'sandbox');
    const args = ['tokens', 'create', '--fleet', 'fleet_expiry', '--env', 'sandbox', '--expires'];
    const failure = await trips(...args, '999999999d').catch((e) => e);
    expect(failure.code).toBe(1);
    expect(failure.stdout).toBe('');
    expect(failure.stderr.trim().split('\n')).toEqual([expect.stringContaining('--expires "999999999d"')]);
    const list = await trips('tokens', 'list', '--json', '--env', 'sandbox');
    expect(JSON.parse(list.stdout)).toEqual([]);
  }, 60_000);

  it('takes a --rate-limit written in digits only, and stores no token for another spelling', async () => {
    await trips('fleets', 'create', '--name', 'Limit fleet', '--id', 'fleet_limit', '--env', 'sandbox');
    const args = ['tokens', 'create', '--fleet', 'fleet_limit', '--env', 'sandbox', '--rate-limit'];
    // Before, "0x10" made a token of 16 requests a minute and "1e3" one of 1000.
    for (const limit of ['0x10', '1e3', '0b11', 'abc', '1.5', '']) {
      const failure = await trips(...args, limit).catch((e) => e);
      expect(failure.code, limit).toBe(1);
      expect(failure.stdout, limit).toBe('');
      expect(failure.stderr, limit).toBe(
        `trips: --rate-limit "${limit}" must be a whole number of requests per minute\n`,
      );
    }
    const zero = await trips(...args, '0').catch((e) => e);
    expect(zero.code).toBe(1);
    expect(zero.stderr).toBe('trips: rate limit must be an integer between 1 and 1000000 requests per minute\n');
    const tokensOfFleet = async () =>
      (
        JSON.parse((await trips('tokens', 'list', '--json', '--env', 'sandbox')).stdout) as Array<{ fleets: string[] }>
      ).filter((t) => t.fleets.includes('fleet_limit'));
    expect(await tokensOfFleet()).toEqual([]);
    await trips(...args, '120');
    expect(await tokensOfFleet()).toMatchObject([{ rateLimitPerMin: 120 }]);
  }, 60_000);

  it('renames a vehicle registered under a mistyped plate, with its uploads, deletes one with a dry run first, and renames its fleet', async () => {
    const sandbox = ['--env', 'sandbox'];
    await trips('fleets', 'create', '--name', 'Typo fleet', '--id', 'fleet_typo', ...sandbox);
    await trips('vehicles', 'create', '--fleet', 'fleet_typo', '--plate', 'TY-0O1', '--type', 'van', ...sandbox);
    const file = path.join(dataDir, 'typo.ndjson');
    const batch = scorableTrip({ startMs: Date.UTC(2026, 10, 9, 7), vehicle: 'TY-0O1', seed: 11 });
    writeFileSync(file, batch.samples.map((x) => JSON.stringify(x)).join('\n'));
    await trips('import', file, '--fleet', 'fleet_typo', '--vehicle', 'TY-0O1', '--no-score', ...sandbox);

    const renamed = await trips('vehicles', 'rename', '--plate', 'ty-0o1', '--to', 'ty-001', ...sandbox);
    expect(renamed.stdout).toBe('renamed vehicle TY-0O1 of fleet_typo to TY-001: 0 trips and 1 upload moved\n');
    const list = async () =>
      JSON.parse((await trips('vehicles', 'list', '--fleet', 'fleet_typo', '--json', ...sandbox)).stdout);
    expect(await list()).toMatchObject([{ plate: 'TY-001', machineType: 'van' }]);
    const missing = await trips('vehicles', 'rename', '--plate', 'TY-0O1', '--to', 'TY-002', ...sandbox).catch(
      (e) => e,
    );
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('trips: vehicle TY-0O1 does not exist (see vehicles list)\n');

    const dryRun = await trips('vehicles', 'delete', '--plate', 'TY-001', '--dry-run', ...sandbox);
    expect(dryRun.stdout).toBe(
      'would delete vehicle TY-001 of fleet_typo: 0 trips, 1 upload, 0 device keys; nothing changed\n',
    );
    expect(await list()).toHaveLength(1);
    const deleted = await trips('vehicles', 'delete', '--plate', 'TY-001', ...sandbox);
    expect(deleted.stdout).toBe('deleted vehicle TY-001 of fleet_typo: 0 trips, 1 upload, 0 device keys\n');
    expect(await list()).toEqual([]);

    // The fleet's own name can be corrected too; its id stays.
    const renamedFleet = await trips(
      'fleets',
      'rename',
      '--id',
      'fleet_typo',
      '--name',
      ' Typo Fleet Ltd ',
      ...sandbox,
    );
    expect(renamedFleet.stdout).toBe('fleet_typo: Typo Fleet Ltd\n');
    const fleetsListed = JSON.parse((await trips('fleets', 'list', '--json', ...sandbox)).stdout) as Array<{
      fleetId: string;
      name: string;
    }>;
    expect(fleetsListed.find((f) => f.fleetId === 'fleet_typo')?.name).toBe('Typo Fleet Ltd');
    const noFleet = await trips('fleets', 'rename', '--id', 'fleet_gone', '--name', 'X', ...sandbox).catch((e) => e);
    expect(noFleet.code).toBe(1);
    expect(noFleet.stderr).toBe('trips: fleet fleet_gone does not exist (see fleets list)\n');
  }, 120_000);

  it('stops quietly when its reader goes away (trips tokens list | head -1), without a stack trace', async () => {
    await trips('fleets', 'create', '--name', 'Pipe fleet', '--id', 'fleet_pipe', '--env', 'sandbox');
    const child = spawn(process.execPath, [BIN, 'fleets', 'list', '--env', 'sandbox'], { env });
    // The reader is gone before the command writes its first line: every write fails with EPIPE.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  }, 60_000);

  it('revokes a token or ingest key whose secret its reader did not take, and fails, instead of saying 0 with one active that no one holds', async () => {
    await trips('fleets', 'create', '--name', 'Vault fleet', '--id', 'fleet_vault', '--env', 'sandbox');
    const withReaderGone = async (args: string[]) => {
      const child = spawn(process.execPath, [BIN, ...args, '--env', 'sandbox'], { env });
      // `trips tokens create ... | secret-store-cli` whose reader stopped before reading anything.
      child.stdout.destroy();
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      return { code, stderr };
    };
    const token = await withReaderGone(['tokens', 'create', '--fleet', 'fleet_vault', '--owner', 'vault']);
    expect(token.code).toBe(1);
    expect(token.stderr).toMatch(
      /^trips: tok_[a-z2-7]+ was revoked at once: its secret could not be written to the output \(EPIPE\), so no one holds it; run the command again\n$/,
    );
    const key = await withReaderGone(['ingest-keys', 'create', '--fleet', 'fleet_vault', '--name', 'vault']);
    expect(key.code).toBe(1);
    expect(key.stderr).toMatch(/^trips: ik_[a-z2-7]+ was revoked at once: .*\(EPIPE\)/);
    const listed = async (what: string) =>
      JSON.parse((await trips(what, 'list', '--json', '--env', 'sandbox')).stdout) as Array<Record<string, unknown>>;
    expect((await listed('tokens')).filter((t) => t.owner === 'vault')).toMatchObject([
      { tokenId: token.stderr.split(' ')[1], status: 'revoked' },
    ]);
    expect((await listed('ingest-keys')).filter((k) => k.name === 'vault')).toMatchObject([
      { keyId: key.stderr.split(' ')[1], status: 'revoked' },
    ]);
  }, 120_000);

  it('runs an import piped into a reader that goes away to its end: every file stored and scored, exit 0', async () => {
    await trips('fleets', 'create', '--name', 'Head fleet', '--id', 'fleet_head', '--env', 'sandbox');
    await trips('vehicles', 'create', '--fleet', 'fleet_head', '--plate', 'HD-1', '--env', 'sandbox');
    const files = [0, 1].map((i) => {
      const file = path.join(dataDir, `head-${i}.ndjson`);
      const batch = scorableTrip({ startMs: Date.UTC(2026, 10, 8 + i, 7), vehicle: 'HD-1', seed: 20 + i });
      writeFileSync(file, batch.samples.map((x) => JSON.stringify(x)).join('\n'));
      return file;
    });
    const args = ['import', ...files, '--fleet', 'fleet_head', '--vehicle', 'HD-1', '--env', 'sandbox'];
    // `trips import a b | head -1`: the reader is gone before the first file's line is written.
    const child = spawn(process.execPath, [BIN, ...args], { env });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).not.toMatch(/EPIPE|Error|cannot write/);
    expect(code).toBe(0);
    // Both files were stored (a second import finds them) and scored (the queue holds none of them).
    const again = (await trips(...args, '--no-score')).stdout;
    for (const file of files) expect(again).toContain(`${file}: 0 imported, 1 duplicate, 0 rejected`);
    const database = await openTripsDatabase({
      environment: 'sandbox',
      sqliteFile: path.join(dataDir, 'trips-sandbox.db'),
    });
    try {
      const uploads = await database.db
        .selectFrom('trip_uploads')
        .select('status')
        .where('fleet_id', '=', 'fleet_head')
        .execute();
      expect(uploads.map((u) => u.status)).toEqual(['scored', 'scored']);
    } finally {
      await database.close();
    }
  }, 60_000);

  it('import refuses a malformed --driver with one line before reading any file, instead of rejecting every trip', async () => {
    await trips('fleets', 'create', '--name', 'Driver fleet', '--id', 'fleet_drv', '--env', 'sandbox');
    await trips('vehicles', 'create', '--fleet', 'fleet_drv', '--plate', 'DR-1', '--env', 'sandbox');
    const file = path.join(dataDir, 'driver.ndjson');
    const batch = scorableTrip({ startMs: Date.UTC(2026, 10, 5, 7), vehicle: 'DR-1', seed: 6 });
    writeFileSync(file, batch.samples.map((x) => JSON.stringify(x)).join('\n'));
    const args = ['import', file, '--fleet', 'fleet_drv', '--vehicle', 'DR-1', '--no-score', '--env', 'sandbox'];
    for (const driver of ['Jane Doe', '']) {
      const failure = await trips(...args, '--driver', driver).catch((e) => e);
      expect(failure.code, driver).toBe(1);
      expect(failure.stdout, driver).toBe('');
      expect(failure.stderr.trim().split('\n'), driver).toEqual([
        `trips: --driver "${driver}" is invalid: 1-64 of A-Z, a-z, 0-9 and . _ : @ -`,
      ]);
    }
    // Nothing was stored; the same file with a well-formed driver id imports.
    const imported = await trips(...args, '--driver', 'jane.doe@depot-3');
    expect(imported.stdout).toContain('driver.ndjson: 1 imported, 0 duplicates, 0 rejected');
  }, 60_000);

  it('fails with one line on stderr and a non-zero status for bad input', async () => {
    const failure = await trips('vehicles', 'create', '--fleet', 'fleet_none', '--plate', 'X-1').catch((e) => e);
    expect(failure.code).toBe(1);
    expect(failure.stderr.trim().split('\n')).toEqual(['trips: fleet fleet_none does not exist (see fleets list)']);
    const usage = await trips('tokens', 'create').catch((e) => e);
    expect(usage.code).not.toBe(0);
    expect(usage.stderr).toContain("required option '--fleet <fleetId>'");
  }, 60_000);

  it('shows the control characters of an imported file escaped in its report, not raw to the terminal', async () => {
    await trips('fleets', 'create', '--name', 'Escape fleet', '--id', 'fleet_esc', '--env', 'sandbox');
    await trips('vehicles', 'create', '--fleet', 'fleet_esc', '--plate', 'ES-1', '--env', 'sandbox');
    const file = path.join(dataDir, 'escape.csv');
    writeFileSync(file, 'lon,lat,time,trip_id\n7,95,2026-11-01T00:00:00Z,A\u001b[31mRED\u202e\n');
    const args = ['import', file, '--fleet', 'fleet_esc', '--vehicle', 'ES-1', '--no-score', '--env', 'sandbox'];
    const failure = await trips(...args).catch((e) => e);
    expect(failure.code).toBe(1);
    expect(failure.stdout).toBe(
      `${file}: 0 imported, 0 duplicates, 1 rejected\n  rejected trip "A\\u001b[31mRED\\u202e": line 2: latitude "95" is not a number between -90 and 90\n`,
    );
  }, 60_000);

  it('names a mistyped option, with the option meant, before a required option it leaves missing', async () => {
    // Before, each of these said "required option ... not specified" and hid the typo.
    const cases: Array<[string[], string]> = [
      [['fleets', 'create', '--nme', 'x'], "trips: unknown option '--nme'\n(Did you mean --name?)\n"],
      [
        ['vehicles', 'create', '--fleet', 'fleet_x', '--plat', 'AB-1'],
        "trips: unknown option '--plat'\n(Did you mean --plate?)\n",
      ],
      [
        ['drivers', 'rename', '--fleet', 'fleet_x', '--id', 'd', '--nmae', 'Jo'],
        "trips: unknown option '--nmae'\n(Did you mean --name?)\n",
      ],
      [
        ['tokens', 'create', '--owner', 'x', '--flet', 'fleet_x'],
        "trips: unknown option '--flet'\n(Did you mean --fleet?)\n",
      ],
      [
        ['locations', 'purge', '--older-thn', '30d'],
        "trips: unknown option '--older-thn'\n(Did you mean --older-than?)\n",
      ],
      [
        ['roads', 'build', '--synthetic', '--output', 'x.graph'],
        "trips: unknown option '--output'\n(Did you mean --out?)\n",
      ],
      [['fleets', 'delete', '--zzz'], "trips: unknown option '--zzz'\n"],
      // A required option missing, and nothing unknown, is still said as before.
      [['tokens', 'create', '--owner', 'x'], "trips: required option '--fleet <fleetId>' not specified\n"],
      [
        ['drivers', 'export', '--fleet', 'fleet_x', '--id', 'd'],
        "trips: required option '--out <file>' not specified\n",
      ],
    ];
    const answers = await Promise.all(cases.map(([args]) => trips(...args, '--env', 'sandbox').catch((e) => e)));
    answers.forEach((answer, i) => {
      const [args, stderr] = cases[i]!;
      expect(answer.code, args.join(' ')).toBe(1);
      expect(answer.stdout, args.join(' ')).toBe('');
      expect(answer.stderr, args.join(' ')).toBe(stderr);
    });
  }, 60_000);

  it('takes an empty --fleet or --vehicle (an unset shell variable) as given, not as every fleet', async () => {
    await trips('fleets', 'create', '--name', 'Other customer', '--id', 'fleet_other', '--env', 'sandbox');
    await trips('vehicles', 'create', '--fleet', 'fleet_other', '--plate', 'OT-1', '--env', 'sandbox');
    await trips('drivers', 'create', '--fleet', 'fleet_other', '--id', 'drv-other', '--env', 'sandbox');
    // `vehicles list --fleet "$FLEET" --json`: before, an empty $FLEET listed the vehicles of every customer.
    for (const args of [
      ['vehicles', 'list', '--fleet', '', '--json'],
      ['vehicles', 'list', '--fleet=', '--json'],
      ['drivers', 'list', '--fleet', '', '--json'],
    ]) {
      const failure = await trips(...args, '--env', 'sandbox').catch((e) => e);
      expect(failure.code, args.join(' ')).toBe(1);
      expect(failure.stdout, args.join(' ')).toBe('');
      expect(failure.stderr, args.join(' ')).toBe('trips: fleet  does not exist (see fleets list)\n');
    }
    // An import with an empty --vehicle: one line before any file is read, not every trip rejected for it.
    const file = path.join(dataDir, 'empty-vehicle.ndjson');
    const batch = scorableTrip({ startMs: Date.UTC(2026, 10, 6, 7), vehicle: 'OT-1', seed: 7 });
    writeFileSync(file, batch.samples.map((x) => JSON.stringify(x)).join('\n'));
    const args = ['import', file, '--fleet', 'fleet_other', '--vehicle', '', '--no-score', '--env', 'sandbox'];
    const failure = await trips(...args).catch((e) => e);
    expect(failure.code).toBe(1);
    expect(failure.stdout).toBe('');
    expect(failure.stderr).toBe(
      'trips: plate "" is invalid: 1-20 characters, Latin letters, digits, spaces, dots or dashes, starting with a letter or digit\n',
    );
  }, 60_000);

  it('names the variable and the values it takes when a setting is wrong, once', async () => {
    for (const [name, value, expected] of [
      ['TRIPS_CITY_SEED', 'abc', 'TRIPS_CITY_SEED must be an integer (got "abc")'],
      ['TRIPS_CITY_SEED', '1.5', 'TRIPS_CITY_SEED must be an integer (got "1.5")'],
      ['TRIPS_SCORING_WORKER', 'maybe', 'TRIPS_SCORING_WORKER must be on or off (got "maybe")'],
      [
        'TRIPS_CORS_ORIGINS',
        'https://a.example, https://x.example/path',
        'TRIPS_CORS_ORIGINS must be a comma-separated list of origins like https://dash.example.com, or *; "https://x.example/path" is not one (got "https://a.example, https://x.example/path")',
      ],
    ] as const) {
      const failure = await run(process.execPath, [BIN, 'fleets', 'list'], {
        env: { ...env, [name]: value },
        timeout: 60_000,
      }).catch((e) => e);
      expect(failure.code, name).toBe(1);
      expect(failure.stderr, name).toBe(`trips: Invalid configuration: ${expected}\n`);
    }
  }, 60_000);

  it('serve refuses a TRIPS_ROAD_GRAPH that is a folder or not a graph file at once, instead of running without scoring', async () => {
    const notGraph = path.join(dataDir, 'not-a-graph.graph');
    writeFileSync(notGraph, 'hello');
    const ports = { TRIPS_PORT: '0', TRIPS_SANDBOX_PORT: '0', TRIPS_INGEST_PORT: '0', TRIPS_SANDBOX_INGEST_PORT: '0' };
    for (const [graph, expected] of [
      [
        dataDir,
        `trips: TRIPS_ROAD_GRAPH ${dataDir} is a folder, not a road graph file (build one with npx trips roads build)\n`,
      ],
      [
        notGraph,
        `trips: TRIPS_ROAD_GRAPH ${notGraph} is not a road graph file (build one with npx trips roads build)\n`,
      ],
    ] as const) {
      // Before the check, serve started and ran on: the timeout ends it, and the assertions say so.
      const failure = await run(process.execPath, [BIN, 'serve', '--env', 'sandbox'], {
        env: { ...env, ...ports, TRIPS_ROAD_GRAPH: graph, TRIPS_SANDBOX_SEED_TRIPS: '0' },
        timeout: 30_000,
      }).catch((e) => e);
      expect(failure.code, graph).toBe(1);
      expect(failure.stderr, graph).toBe(expected);
    }
  }, 90_000);

  it('serve with several API workers says a port is in use in one line, not one per worker', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const failure = await run(process.execPath, [BIN, 'serve', '--env', 'sandbox'], {
        env: {
          ...env,
          TRIPS_SANDBOX_PORT: String(port),
          TRIPS_SANDBOX_INGEST_PORT: '0',
          TRIPS_API_WORKERS: '2',
          TRIPS_SANDBOX_SEED_TRIPS: '0',
        },
        timeout: 60_000,
      }).catch((e) => e);
      expect(failure.code).toBe(1);
      expect(failure.stderr).toBe(
        `trips: port ${port} of 127.0.0.1 is already in use (TRIPS_SANDBOX_PORT): stop what uses it, or set TRIPS_SANDBOX_PORT to a free port\n`,
      );
    } finally {
      taken.close();
    }
  }, 90_000);

  it('names HOST, not TRIPS_HOST, when the shared HOST is the address that cannot be listened on', async () => {
    for (const workers of ['1', '2']) {
      const failure = await run(process.execPath, [BIN, 'serve', '--env', 'sandbox'], {
        env: {
          ...env,
          HOST: '256.0.0.1',
          TRIPS_HOST: '',
          TRIPS_SANDBOX_PORT: '0',
          TRIPS_SANDBOX_INGEST_PORT: '0',
          TRIPS_API_WORKERS: workers,
          TRIPS_SANDBOX_SEED_TRIPS: '0',
        },
        timeout: 60_000,
      }).catch((e) => e);
      expect(failure.code, workers).toBe(1);
      expect(failure.stderr, workers).toBe(
        'trips: cannot listen on 256.0.0.1 (HOST): not an address of this machine; use 127.0.0.1, 0.0.0.0 or one of its addresses\n',
      );
    }
  }, 120_000);

  it('never writes its output over a store, of either environment, under any name, --force or not', async () => {
    const store = mkdtempSync(path.join(tmpdir(), 'trips-cli-stores-'));
    const inStore = (...args: string[]) =>
      run(process.execPath, [BIN, ...args], { env: { ...env, DATA_DIR: store }, timeout: 60_000 });
    try {
      await inStore('fleets', 'create', '--name', 'Store fleet', '--id', 'fleet_store');
      await inStore('drivers', 'create', '--fleet', 'fleet_store', '--id', 'drv-store');
      await inStore('fleets', 'create', '--name', 'Sandbox fleet', '--id', 'fleet_store', '--env', 'sandbox');
      const production = path.join(store, 'trips-production.db');
      const sandbox = path.join(store, 'trips-sandbox.db');
      // The same folder under another name.
      const link = path.join(dataDir, 'store-link');
      symlinkSync(store, link);
      const attempts: Array<[string[], string]> = [
        [
          ['drivers', 'export', '--fleet', 'fleet_store', '--id', 'drv-store', '--out', production, '--force'],
          `${production} is the production store itself`,
        ],
        [
          ['drivers', 'export', '--fleet', 'fleet_store', '--id', 'drv-store', '--out', `${sandbox}-journal`],
          `${sandbox}-journal is a file of the sandbox store (${sandbox})`,
        ],
        [['backup', '--out', sandbox, '--force'], `${sandbox} is the sandbox store itself`],
        [
          ['backup', '--env', 'sandbox', '--out', path.join(link, 'trips-production.db'), '--force'],
          `${path.join(link, 'trips-production.db')} is the production store itself`,
        ],
        [['roads', 'build', '--synthetic', '--out', production], `${production} is the production store itself`],
      ];
      for (const [args, expected] of attempts) {
        const failure = await inStore(...args).catch((e) => e);
        expect(failure.code, args.join(' ')).toBe(1);
        expect(failure.stderr, args.join(' ')).toBe(`trips: ${expected}: give another file\n`);
      }
      // A SQLite store left in DATA_DIR when the service moved to PostgreSQL is kept as well.
      const moved = await run(process.execPath, [BIN, 'roads', 'build', '--synthetic', '--out', production], {
        env: { ...env, DATA_DIR: store, DATABASE_URL: 'postgres://127.0.0.1:1/elsewhere' },
        timeout: 60_000,
      }).catch((e) => e);
      expect(moved.code).toBe(1);
      expect(moved.stderr).toBe(`trips: ${production} is the production store itself: give another file\n`);
      // Both stores are as they were.
      expect(JSON.parse((await inStore('drivers', 'list', '--json')).stdout)).toMatchObject([
        { driverId: 'drv-store' },
      ]);
      expect(JSON.parse((await inStore('fleets', 'list', '--json', '--env', 'sandbox')).stdout)).toMatchObject([
        { fleetId: 'fleet_store', name: 'Sandbox fleet' },
      ]);
    } finally {
      rmSync(store, { recursive: true, force: true });
    }
  }, 90_000);

  it('names a folder given where a file is expected, and what to do, in one line', async () => {
    await trips('fleets', 'create', '--name', 'Folder fleet', '--id', 'fleet_fold', '--env', 'sandbox');
    await trips('vehicles', 'create', '--fleet', 'fleet_fold', '--plate', 'FO-1', '--env', 'sandbox');
    const folder = path.join(dataDir, 'a folder');
    mkdirSync(folder);
    // An import of a folder (with no extension): not "unknown format".
    const imported = await trips(
      'import',
      folder,
      '--fleet',
      'fleet_fold',
      '--vehicle',
      'FO-1',
      '--no-score',
      '--env',
      'sandbox',
    ).catch((e) => e);
    expect(imported.code).toBe(1);
    expect(imported.stdout).toBe(
      `${folder}: 0 imported, 0 duplicates, 1 rejected\n  rejected file: cannot read it: it is a folder, not a file\n`,
    );
    expect(imported.stderr.trim().split('\n').at(-1)).toBe('trips: no trip could be imported');
    // --force replaces a file, never a folder or a device: the message does not suggest it (before, /dev/null with
    // --force was told to use --force).
    await trips('drivers', 'create', '--fleet', 'fleet_fold', '--id', 'drv-fold', '--env', 'sandbox');
    const notAFile = [
      [folder, `trips: ${folder} is a folder: give the path of a file to write\n`],
      ['/dev/null', 'trips: /dev/null exists and is not a file: give the path of a file to write\n'],
    ];
    for (const [out, message] of notAFile) {
      for (const force of [[], ['--force']]) {
        const args = ['drivers', 'export', '--fleet', 'fleet_fold', '--id', 'drv-fold', '--out', out!, ...force];
        const exported = await trips(...args, '--env', 'sandbox').catch((e) => e);
        expect(exported.code, `${out} ${force.join()}`).toBe(1);
        expect(exported.stderr, `${out} ${force.join()}`).toBe(message);
      }
    }
    // A folder where the store's file should be.
    const oddDataDir = path.join(dataDir, 'odd data');
    mkdirSync(path.join(oddDataDir, 'trips-sandbox.db'), { recursive: true });
    const store = await run(process.execPath, [BIN, 'fleets', 'list', '--env', 'sandbox'], {
      env: { ...env, DATA_DIR: oddDataDir },
      timeout: 60_000,
    }).catch((e) => e);
    expect(store.code).toBe(1);
    expect(store.stderr).toBe(
      `trips: cannot open SQLite database ${path.join(oddDataDir, 'trips-sandbox.db')}: it is a folder, not a file\n`,
    );
    // roads build into a folder, or into a folder that does not exist.
    const built = await trips('roads', 'build', '--synthetic', '--out', folder).catch((e) => e);
    expect(built.code).toBe(1);
    expect(built.stderr).toBe(`trips: cannot write ${folder}: it is a folder, not a file\n`);
  }, 60_000);

  it('create commands print with --json what they created, as list --json shows it, the secret of a token or key in "secret"', async () => {
    // A store of its own: the other tests count the sandbox's tokens.
    const own = mkdtempSync(path.join(tmpdir(), 'trips-cli-json-'));
    const ownEnv = { ...env, DATA_DIR: own };
    const tripsIn = async (...args: string[]) =>
      run(process.execPath, [BIN, ...args], { env: ownEnv, timeout: 120_000 });
    const created = async (...args: string[]) => {
      const { stdout } = await tripsIn(...args, '--json');
      return JSON.parse(stdout) as Record<string, unknown>;
    };
    const listed = async (what: string) =>
      JSON.parse((await tripsIn(what, 'list', '--json')).stdout) as Array<Record<string, unknown>>;
    try {
      const fleet = await created('fleets', 'create', '--name', 'Json fleet', '--id', 'fleet_json');
      expect(fleet).toMatchObject({ fleetId: 'fleet_json', name: 'Json fleet' });
      expect(await listed('fleets')).toEqual([fleet]);
      const vehicle = await created('vehicles', 'create', '--fleet', 'fleet_json', '--plate', 'js-1', '--make', 'Ford');
      expect(vehicle).toMatchObject({
        plate: 'JS-1',
        fleetId: 'fleet_json',
        machineType: 'car',
        make: 'Ford',
        model: null,
      });
      expect(await listed('vehicles')).toEqual([vehicle]);
      const driver = await created('drivers', 'create', '--fleet', 'fleet_json', '--id', 'drv-json', '--name', 'Jo');
      expect(driver).toMatchObject({ fleetId: 'fleet_json', driverId: 'drv-json', name: 'Jo' });
      expect(await listed('drivers')).toEqual([driver]);
      const { secret: tokenSecret, ...token } = await created('tokens', 'create', '--fleet', 'fleet_json', '--admin');
      expect(tokenSecret).toMatch(/^trips_live_[A-Za-z0-9_-]{43}$/);
      expect(token).toMatchObject({ fleets: ['fleet_json'], admin: true, status: 'active' });
      expect(await listed('tokens')).toEqual([token]);
      const { secret: keySecret, ...key } = await created(
        'ingest-keys',
        'create',
        '--fleet',
        'fleet_json',
        '--vehicle',
        'JS-1',
      );
      expect(keySecret).toMatch(/^ingest_live_[A-Za-z0-9_-]{43}$/);
      expect(key).toMatchObject({ fleetId: 'fleet_json', vehicle: 'JS-1', status: 'active' });
      expect(await listed('ingest-keys')).toEqual([key]);
      // The secret printed is the token's: it reads the fleet.
      const database = await openTripsDatabase({
        environment: 'production',
        sqliteFile: path.join(own, 'trips-production.db'),
      });
      const app = await buildApiApp({ environment: 'production', database, logger: quietLogger() });
      try {
        const res = await app.inject({ url: '/v1/fleets', headers: { authorization: `Bearer ${tokenSecret}` } });
        expect(res.statusCode).toBe(200);
        expect(res.json().fleets.map((f: { fleetId: string }) => f.fleetId)).toEqual(['fleet_json']);
      } finally {
        await app.close();
        await database.close();
      }
      // The text output is as it was: the id, or the secret alone.
      expect((await tripsIn('fleets', 'create', '--name', 'Text', '--id', 'fleet_text')).stdout).toBe('fleet_text\n');
      expect((await tripsIn('tokens', 'create', '--fleet', 'fleet_text')).stdout).toMatch(
        /^trips_live_[A-Za-z0-9_-]{43}\n$/,
      );
      // With --json too, a secret its reader did not take is revoked, and the command fails.
      for (const [what, id] of [
        ['tokens', /^trips: (tok_[a-z2-7]+) was revoked at once: .*\(EPIPE\)/],
        ['ingest-keys', /^trips: (ik_[a-z2-7]+) was revoked at once: .*\(EPIPE\)/],
      ] as const) {
        const child = spawn(process.execPath, [BIN, what, 'create', '--fleet', 'fleet_json', '--json'], {
          env: ownEnv,
        });
        child.stdout.destroy();
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
        });
        const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
        expect(code, what).toBe(1);
        expect(stderr, what).toMatch(id);
        const revoked = (await listed(what)).find((t) => (t.tokenId ?? t.keyId) === id.exec(stderr)![1]);
        expect(revoked, what).toMatchObject({ status: 'revoked' });
      }
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  }, 120_000);

  it('refuses control characters and bidirectional controls in names where they enter, and lists those stored before escaped', async () => {
    // A store of its own: the other tests count the sandbox's tokens.
    const own = mkdtempSync(path.join(tmpdir(), 'trips-cli-names-'));
    const tripsIn = async (...args: string[]) =>
      run(process.execPath, [BIN, ...args], { env: { ...env, DATA_DIR: own }, timeout: 120_000 });
    try {
      await tripsIn('fleets', 'create', '--name', 'Names', '--id', 'fleet_names');
      await tripsIn('vehicles', 'create', '--fleet', 'fleet_names', '--plate', 'NM-1');
      await tripsIn('drivers', 'create', '--fleet', 'fleet_names', '--id', 'drv-names');
      const rule =
        'control characters (U+0000-U+001F, U+007F-U+009F) and bidirectional controls (U+202A-U+202E, U+2066-U+2069) are not allowed';
      for (const [args, field, code, what] of [
        [['fleets', 'create', '--name', 'Evil\u001b[31mRED'], 'fleet name', 'U+001B', 'a control character'],
        [['fleets', 'create', '--name', 'two\nlines'], 'fleet name', 'U+000A', 'a control character'],
        [
          ['drivers', 'create', '--fleet', 'fleet_names', '--id', 'd2', '--name', 'a\u202eb'],
          'driver name',
          'U+202E',
          'a bidirectional control',
        ],
        [
          ['drivers', 'rename', '--fleet', 'fleet_names', '--id', 'drv-names', '--name', 'x\u2066y'],
          'driver name',
          'U+2066',
          'a bidirectional control',
        ],
        [
          ['tokens', 'create', '--fleet', 'fleet_names', '--owner', 'own\rer'],
          'token owner',
          'U+000D',
          'a control character',
        ],
        [
          ['ingest-keys', 'create', '--fleet', 'fleet_names', '--name', 'key\u001b[2J'],
          'ingest key name',
          'U+001B',
          'a control character',
        ],
        [
          ['vehicles', 'create', '--fleet', 'fleet_names', '--plate', 'NM-2', '--make', 'Ford\u0085'],
          'vehicle make',
          'U+0085',
          'a control character',
        ],
        [
          ['vehicles', 'update', '--plate', 'NM-1', '--model', 'T\u007f'],
          'vehicle model',
          'U+007F',
          'a control character',
        ],
      ] as const) {
        const failure = await tripsIn(...args).catch((e) => e);
        expect(failure.code, args.join(' ')).toBe(1);
        expect(failure.stdout, args.join(' ')).toBe('');
        expect(failure.stderr, args.join(' ')).toBe(`trips: ${field} is invalid: ${code} is ${what}; ${rule}\n`);
      }
      // Nothing of it was stored.
      const listed = async (what: string) => JSON.parse((await tripsIn(what, 'list', '--json')).stdout);
      expect((await listed('fleets')).map((f: { fleetId: string }) => f.fleetId)).toEqual(['fleet_names']);
      expect(await listed('drivers')).toMatchObject([{ driverId: 'drv-names', name: null }]);
      expect(await listed('vehicles')).toMatchObject([{ plate: 'NM-1', make: null, model: null }]);
      expect(await listed('tokens')).toEqual([]);
      expect(await listed('ingest-keys')).toEqual([]);

      // Names stored before the rule: the text lists show them escaped, --json as they are.
      await tripsIn('tokens', 'create', '--fleet', 'fleet_names', '--owner', 'owner');
      await tripsIn('ingest-keys', 'create', '--fleet', 'fleet_names', '--name', 'key');
      const evil = 'Evil\u001b[31mRED\nsecond line\u202egnp.exe\u0085';
      const shown = 'Evil\\u001b[31mRED\\u000asecond line\\u202egnp.exe\\u0085';
      const database = await openTripsDatabase({
        environment: 'production',
        sqliteFile: path.join(own, 'trips-production.db'),
      });
      try {
        await database.db.updateTable('fleets').set({ name: evil }).execute();
        await database.db.updateTable('drivers').set({ name: evil }).execute();
        await database.db.updateTable('vehicles').set({ make: evil, model: evil }).execute();
        await database.db.updateTable('api_tokens').set({ owner: evil }).execute();
        await database.db.updateTable('ingest_keys').set({ name: evil }).execute();
      } finally {
        await database.close();
      }
      for (const what of ['fleets', 'drivers', 'vehicles', 'tokens', 'ingest-keys']) {
        const text = (await tripsIn(what, 'list')).stdout;
        // A header and one row, the stored name escaped in it.
        expect(text.split('\n'), what).toHaveLength(3);
        expect(text, what).toContain(shown);
        // biome-ignore lint/suspicious/noControlCharactersInRegex: no control character but the line ends
        expect(text, what).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
        expect(JSON.stringify(await listed(what)), what).toContain(JSON.stringify(evil).slice(1, -1));
      }
      const updated = await tripsIn('vehicles', 'update', '--plate', 'NM-1', '--type', 'van');
      expect(updated.stdout).toBe(`NM-1: van, ${shown} ${shown}\n`);
      // A token of a fleet so named is still issued: its default owner, the fleet's name, is stored escaped.
      const token = await tripsIn('tokens', 'create', '--fleet', 'fleet_names');
      expect(token.stderr).toContain(`(owner ${shown})`);
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  }, 120_000);
});
