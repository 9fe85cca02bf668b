import { arg, dialectOf, runShape } from '@svc/platform';
import { type Kysely, type Migration, sql } from 'kysely';
import { tripItemJson as itemJsonOf, LIST_COLUMNS, type TripListRow } from './trip-item.ts';
import { STAT_THEMES, statTerms } from './vehicle-stat-terms.ts';

/** Name of the table recording applied migrations (services may share a PostgreSQL database). */
export const TRIPS_MIGRATION_TABLE = 'trips_migrations';

// biome-ignore lint/suspicious/noExplicitAny: migrations work on an untyped schema
type AnyDb = Kysely<any>;

const initial: Migration = {
  async up(db: AnyDb) {
    const pg = dialectOf(db) === 'postgres';
    const blob = pg ? 'bytea' : 'blob';
    const float = 'double precision';

    await db.schema
      .createTable('trips_meta')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('fleets')
      .addColumn('fleet_id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('vehicles')
      .addColumn('vehicle_id', 'text', (c) => c.primaryKey())
      .addColumn('plate', 'text', (c) => c.notNull().unique())
      .addColumn('fleet_id', 'text', (c) => c.notNull().references('fleets.fleet_id'))
      .addColumn('machine_type', 'text', (c) => c.notNull())
      .addColumn('make', 'text')
      .addColumn('model', 'text')
      .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('vehicles_fleet').on('vehicles').columns(['fleet_id', 'plate']).execute();

    await db.schema
      .createTable('drivers')
      .addColumn('fleet_id', 'text', (c) => c.notNull().references('fleets.fleet_id'))
      .addColumn('driver_id', 'text', (c) => c.notNull())
      .addColumn('name', 'text')
      .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('drivers_pk', ['fleet_id', 'driver_id'])
      .execute();

    await db.schema
      .createTable('api_tokens')
      .addColumn('token_id', 'text', (c) => c.primaryKey())
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('token_hint', 'text', (c) => c.notNull())
      .addColumn('environment', 'text', (c) => c.notNull())
      .addColumn('owner', 'text', (c) => c.notNull())
      .addColumn('is_admin', 'integer', (c) => c.notNull())
      .addColumn('rate_limit_per_min', 'integer')
      .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
      .addColumn('expires_at_ms', 'bigint')
      .addColumn('revoked_at_ms', 'bigint')
      .execute();

    await db.schema
      .createTable('api_token_fleets')
      .addColumn('token_id', 'text', (c) => c.notNull().references('api_tokens.token_id').onDelete('cascade'))
      .addColumn('fleet_id', 'text', (c) => c.notNull().references('fleets.fleet_id'))
      .addPrimaryKeyConstraint('api_token_fleets_pk', ['token_id', 'fleet_id'])
      .execute();

    await db.schema
      .createTable('ingest_keys')
      .addColumn('key_id', 'text', (c) => c.primaryKey())
      .addColumn('key_hash', 'text', (c) => c.notNull().unique())
      .addColumn('key_hint', 'text', (c) => c.notNull())
      .addColumn('environment', 'text', (c) => c.notNull())
      .addColumn('fleet_id', 'text', (c) => c.notNull().references('fleets.fleet_id'))
      .addColumn('vehicle_id', 'text', (c) => c.references('vehicles.vehicle_id'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
      .addColumn('revoked_at_ms', 'bigint')
      .execute();

    await db.schema
      .createTable('trip_uploads')
      .addColumn('trip_id', 'text', (c) => c.primaryKey())
      .addColumn('fleet_id', 'text', (c) => c.notNull().references('fleets.fleet_id'))
      .addColumn('vehicle_id', 'text', (c) => c.notNull().references('vehicles.vehicle_id'))
      .addColumn('plate', 'text', (c) => c.notNull())
      .addColumn('driver_id', 'text')
      .addColumn('idempotency_key', 'text', (c) => c.notNull())
      .addColumn('ingest_key_id', 'text', (c) => c.references('ingest_keys.key_id'))
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('received_at_ms', 'bigint', (c) => c.notNull())
      .addColumn('sample_count', 'integer', (c) => c.notNull())
      .addColumn('first_sample_ms', 'bigint', (c) => c.notNull())
      .addColumn('telemetry_gz', sql.raw(blob), (c) => c.notNull())
      .addColumn('telemetry_sha256', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('queued', 'scoring', 'scored', 'failed')`))
      .addColumn('attempts', 'integer', (c) => c.notNull())
      .addColumn('next_attempt_at_ms', 'bigint', (c) => c.notNull())
      .addColumn('lease_owner', 'text')
      .addColumn('last_error', 'text')
      .addColumn('scored_at_ms', 'bigint')
      .addColumn('model_version', 'text')
      .addUniqueConstraint('trip_uploads_idempotency', ['fleet_id', 'idempotency_key'])
      .execute();
    // Only runnable jobs are indexed, so the claim query stays cheap however many trips are done.
    await db.schema
      .createIndex('trip_uploads_runnable')
      .on('trip_uploads')
      .column('next_attempt_at_ms')
      .where(sql.ref('status'), 'in', ['queued', 'scoring'])
      .execute();
    await db.schema.createIndex('trip_uploads_status').on('trip_uploads').columns(['status', 'trip_id']).execute();

    await db.schema
      .createTable('trips')
      .addColumn('trip_id', 'text', (c) => c.primaryKey())
      .addColumn('fleet_id', 'text', (c) => c.notNull().references('fleets.fleet_id'))
      .addColumn('vehicle_id', 'text', (c) => c.notNull().references('vehicles.vehicle_id'))
      .addColumn('plate', 'text', (c) => c.notNull())
      .addColumn('driver_id', 'text')
      .addColumn('start_ms', 'bigint', (c) => c.notNull())
      .addColumn('end_ms', 'bigint', (c) => c.notNull())
      .addColumn('start_day', 'integer', (c) => c.notNull())
      .addColumn('overall_score', sql.raw(float), (c) => c.notNull())
      .addColumn('tier', 'text', (c) => c.notNull())
      .addColumn('map_matched', 'integer', (c) => c.notNull())
      .addColumn('matched_share', sql.raw(float), (c) => c.notNull())
      .addColumn('distance_km', sql.raw(float), (c) => c.notNull())
      .addColumn('duration_min', sql.raw(float), (c) => c.notNull())
      .addColumn('machine_type', 'text')
      .addColumn('model_version', 'text', (c) => c.notNull())
      .addColumn('scored_at_ms', 'bigint', (c) => c.notNull())
      .addColumn('theme_speeding', sql.raw(float))
      .addColumn('theme_braking', sql.raw(float))
      .addColumn('theme_acceleration', sql.raw(float))
      .addColumn('theme_cornering', sql.raw(float))
      .addColumn('theme_distraction', sql.raw(float))
      .addColumn('theme_exposure', sql.raw(float))
      .addColumn('weakest_theme', 'text', (c) => c.notNull())
      .addColumn('summary_json', 'text', (c) => c.notNull())
      .execute();
    // Newest first with a stable tie-break, always led by the fleet: every read is scoped by fleet.
    await db.schema
      .createIndex('trips_fleet_start')
      .on('trips')
      .columns(['fleet_id', 'start_ms desc', 'trip_id desc'])
      .execute();
    await db.schema
      .createIndex('trips_fleet_plate_start')
      .on('trips')
      .columns(['fleet_id', 'plate', 'start_ms desc', 'trip_id desc'])
      .execute();
    await db.schema
      .createIndex('trips_fleet_driver_start')
      .on('trips')
      .columns(['fleet_id', 'driver_id', 'start_ms desc', 'trip_id desc'])
      .execute();
    await db.schema.createIndex('trips_model_version').on('trips').columns(['model_version', 'trip_id']).execute();

    await db.schema
      .createTable('trip_day_counts')
      .addColumn('fleet_id', 'text', (c) => c.notNull())
      .addColumn('day', 'integer', (c) => c.notNull())
      .addColumn('tier', 'text', (c) => c.notNull())
      .addColumn('trip_count', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('trip_day_counts_pk', ['fleet_id', 'day', 'tier'])
      .execute();

    await db.schema
      .createTable('score_catalogues')
      .addColumn('catalogue_id', 'text', (c) => c.primaryKey())
      .addColumn('model_version', 'text', (c) => c.notNull())
      .addColumn('body_json', 'text', (c) => c.notNull())
      .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('trip_breakdowns')
      .addColumn('trip_id', 'text', (c) => c.primaryKey().references('trips.trip_id').onDelete('cascade'))
      .addColumn('catalogue_id', 'text', (c) => c.notNull().references('score_catalogues.catalogue_id'))
      .addColumn('values_json', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('trip_routes')
      .addColumn('trip_id', 'text', (c) => c.primaryKey().references('trips.trip_id').onDelete('cascade'))
      .addColumn('geojson', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('rescore_runs')
      .addColumn('run_id', pg ? 'serial' : 'integer', (c) => (pg ? c.primaryKey() : c.primaryKey().autoIncrement()))
      .addColumn('started_at_ms', 'bigint', (c) => c.notNull())
      .addColumn('finished_at_ms', 'bigint')
      .addColumn('model_version', 'text', (c) => c.notNull())
      .addColumn('all_trips', 'integer', (c) => c.notNull())
      .addColumn('cursor', 'text', (c) => c.notNull())
      .addColumn('rescored', 'integer', (c) => c.notNull())
      .addColumn('failed', 'integer', (c) => c.notNull())
      .execute();
  },
};

/**
 * A counter bumped by every change to the scored trips, in the same transaction: readers cache what is
 * expensive to aggregate (the per-day counts behind totals and deep pages) under the version they read,
 * so a cached value is never used once any node has changed the data.
 */
const tripsVersionAndNarrowRows: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('trips_version')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('version', 'bigint', (c) => c.notNull())
      .execute();
    await db.insertInto('trips_version').values({ id: 1, version: 0 }).execute();
    // The list index also carries the tier, so a page's trip ids (tier filter or not) come from the index
    // alone; only the page's own rows are then read from the table.
    await db.schema.dropIndex('trips_fleet_start').execute();
    await db.schema
      .createIndex('trips_fleet_start')
      .on('trips')
      .columns(['fleet_id', 'start_ms desc', 'trip_id desc', 'tier'])
      .execute();
    // The summary metrics (about a kilobyte) move out of the trips rows: narrow rows keep a page of the
    // list, and a vehicle's aggregates, on a few database pages.
    await db.schema
      .createTable('trip_summaries')
      .addColumn('trip_id', 'text', (c) => c.primaryKey().references('trips.trip_id').onDelete('cascade'))
      .addColumn('summary_json', 'text', (c) => c.notNull())
      .execute();
    await sql`insert into trip_summaries (trip_id, summary_json) select trip_id, summary_json from trips`.execute(db);
    await db.schema.alterTable('trips').dropColumn('summary_json').execute();
  },
};

/**
 * Each trip stores its list item's JSON, and a covering index holds it in list order, so a page of
 * `GET /v1/trips` is read from about a page of index entries and sent without re-serialising anything.
 * Existing rows are filled in batches by the same function the writer uses.
 */
const tripItemJson: Migration = {
  async up(db: AnyDb) {
    await db.schema.alterTable('trips').addColumn('item_json', 'text').execute();
    // One transaction for the whole fill (SQLite runs migrations without one: a commit per row would be
    // a WAL sync per row).
    const fill = async (trx: AnyDb) => {
      // Keyset batches by trip id: each batch starts where the last ended, so the fill is one pass.
      let after = '';
      for (;;) {
        const rows = (await trx
          .selectFrom('trips')
          .select([...LIST_COLUMNS])
          .where('trip_id', '>', after)
          .orderBy('trip_id')
          .limit(2000)
          .execute()) as TripListRow[];
        if (rows.length === 0) break;
        for (const row of rows) {
          await runShape(
            trx,
            'fill-item-json',
            () =>
              trx
                .updateTable('trips')
                .set({ item_json: arg(0) })
                .where('trip_id', '=', arg(1)),
            [itemJsonOf(row), row.trip_id],
          );
        }
        after = rows[rows.length - 1]!.trip_id;
      }
    };
    if (db.isTransaction) await fill(db);
    else await db.transaction().execute(fill);
    await db.schema
      .createIndex('trips_list_items')
      .on('trips')
      .columns(['fleet_id', 'start_ms desc', 'trip_id desc', 'item_json'])
      .execute();
  },
};

/**
 * Each day count records the data version of its last change, so list readers holding the counts of an
 * older version read only the changed rows instead of aggregating every day again after each ingest.
 */
const dayCountVersions: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .alterTable('trip_day_counts')
      .addColumn('version', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.createIndex('trip_day_counts_version').on('trip_day_counts').columns(['version']).execute();
  },
};

/**
 * List items in time order across fleets. A scope holding most of the store's trips (an admin token over
 * its fleets) reads a page by walking this index from the page's window down, skipping only the few
 * entries of fleets outside the scope, instead of sorting a day or two of entries from the per-fleet index.
 */
const timeOrderedItems: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createIndex('trips_time_items')
      .on('trips')
      .columns(['start_ms desc', 'trip_id desc', 'fleet_id', 'tier', 'item_json'])
      .execute();
  },
};

/**
 * Trips per UTC day over the whole store, whatever the fleet and tier: `trip_day_totals`, kept by
 * triggers on `trip_day_counts` (so every writer of the counts keeps it exact, in the same transaction)
 * and stamped with the same data version. A list request compares its scope's trips in a page's days
 * with these totals to choose how to read the page (trip-list.ts); reading them costs a few hundred rows
 * however many fleets the store holds, where summing the per-fleet counts would read them all.
 */
const dayTotals: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('trip_day_totals')
      .addColumn('day', 'integer', (c) => c.primaryKey())
      .addColumn('trip_count', 'bigint', (c) => c.notNull())
      .addColumn('version', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('trip_day_totals_version').on('trip_day_totals').columns(['version']).execute();
    await sql`insert into trip_day_totals (day, trip_count, version)
      select day, sum(trip_count), max(version) from trip_day_counts group by day`.execute(db);
    // Adds `delta` trips to a day, stamped with a version (the count row's, or the current one on delete).
    const apply = (day: string, delta: string, version: string) =>
      sql`insert into trip_day_totals (day, trip_count, version) values (${sql.raw(day)}, ${sql.raw(delta)}, ${sql.raw(version)})
        on conflict (day) do update set trip_count = trip_day_totals.trip_count + excluded.trip_count,
        version = excluded.version`;
    const current = '(select version from trips_version where id = 1)';
    if (dialectOf(db) === 'postgres') {
      await sql`create function trip_day_totals_apply() returns trigger language plpgsql as $$
        begin
          if tg_op = 'INSERT' then
            ${apply('new.day', 'new.trip_count', 'new.version')};
          elsif tg_op = 'UPDATE' then
            ${apply('old.day', '-old.trip_count', 'new.version')};
            ${apply('new.day', 'new.trip_count', 'new.version')};
          else
            ${apply('old.day', '-old.trip_count', current)};
          end if;
          return null;
        end $$`.execute(db);
      await sql`create trigger trip_day_totals_apply after insert or update or delete on trip_day_counts
        for each row execute function trip_day_totals_apply()`.execute(db);
    } else {
      await sql`create trigger trip_day_totals_insert after insert on trip_day_counts begin
        ${apply('new.day', 'new.trip_count', 'new.version')}; end`.execute(db);
      await sql`create trigger trip_day_totals_update after update on trip_day_counts begin
        ${apply('old.day', '-old.trip_count', 'new.version')};
        ${apply('new.day', 'new.trip_count', 'new.version')}; end`.execute(db);
      await sql`create trigger trip_day_totals_delete after delete on trip_day_counts begin
        ${apply('old.day', '-old.trip_count', current)}; end`.execute(db);
    }
  },
};

/**
 * A version of the API tokens: one row bumped by triggers on every insert, update or delete of
 * `api_tokens` and `api_token_fleets`, in the changing transaction. The read API caches what a token
 * resolves to under the version it read, and checks the version (one primary-key lookup) on every
 * request, so a revocation, an expiry moved, a fleet added or removed or a rate limit changed, by any
 * process (the CLI, another node, SQL by hand), applies from the next request on, as when every request
 * looked the token up.
 */
const apiTokenVersions: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('api_tokens_version')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('version', 'bigint', (c) => c.notNull())
      .execute();
    await db.insertInto('api_tokens_version').values({ id: 1, version: 0 }).execute();
    const bump = sql`update api_tokens_version set version = version + 1 where id = 1`;
    if (dialectOf(db) === 'postgres') {
      await sql`create function api_tokens_version_bump() returns trigger language plpgsql as $$
        begin
          ${bump};
          return null;
        end $$`.execute(db);
      for (const table of ['api_tokens', 'api_token_fleets']) {
        await sql`create trigger ${sql.id(`${table}_version_bump`)} after insert or update or delete or truncate
          on ${sql.id(table)} for each statement execute function api_tokens_version_bump()`.execute(db);
      }
    } else {
      for (const table of ['api_tokens', 'api_token_fleets']) {
        for (const event of ['insert', 'update', 'delete']) {
          await sql`create trigger ${sql.id(`${table}_version_${event}`)} after ${sql.raw(event)} on ${sql.id(table)}
            begin ${bump}; end`.execute(db);
        }
      }
    }
  },
};

/** The Monday (UTC day number) of the week holding day number `day` (day 0, 1970-01-01, was a Thursday). */
const weekOf = (day: string) => `(${day} - (((${day} + 3) % 7 + 7) % 7))`;

/**
 * Creates a table of sums of scored trips by UTC day (span 1) and week (span 7, Monday to Sunday) per
 * `keys` (columns of `trips`), with the value columns of statTerms, and the triggers that keep it in the
 * writing transaction of `trips` (insert, delete, and update for writers other than the service, which
 * only inserts and deletes). `when` limits it to some trips (a condition on the trip row `{r}`). The
 * caller fills it with the trips already stored.
 */
async function createStatsTable(
  db: AnyDb,
  table: string,
  keys: readonly string[],
  when?: (r: string) => string,
): Promise<void> {
  const pg = dialectOf(db) === 'postgres';
  let create = db.schema.createTable(table);
  for (const key of keys) create = create.addColumn(key, 'text', (c) => c.notNull());
  create = create.addColumn('span', 'integer', (c) => c.notNull()).addColumn('bucket', 'integer', (c) => c.notNull());
  for (const [column] of statTerms('r', '1')) {
    create = create.addColumn(column, column.endsWith('count') ? 'bigint' : sql.raw('double precision'), (c) =>
      c.notNull(),
    );
  }
  // Column names are only known at run time here; the builder's typed column list cannot check them.
  create = create.addPrimaryKeyConstraint(`${table}_pk`, [...keys, 'span', 'bucket'] as never[]);
  // Clustered on the key in SQLite: one key's rows of a window are one range of one b-tree.
  await (pg ? create : create.modifyEnd(sql`without rowid`)).execute();

  await createStatsTriggers(db, table, keys, when);
}

/**
 * The triggers that keep stats table `table` (see createStatsTable) in the writing transaction of `trips`. With
 * `updateOf`, an update fires them only when it sets one of those columns (the keys and the trip columns the sums
 * read): since migration 0018 (statsTriggersOnSummedColumns).
 */
async function createStatsTriggers(
  db: AnyDb,
  table: string,
  keys: readonly string[],
  when?: (r: string) => string,
  updateOf?: readonly string[],
): Promise<void> {
  const pg = dialectOf(db) === 'postgres';
  const columns = statTerms('r', '1').map(([column]) => column);
  const list = columns.join(', ');
  const keyList = keys.join(', ');
  const update = updateOf ? `update of ${updateOf.join(', ')}` : 'update';
  // Adds (sign 1) or takes out (sign -1) trip row `r` in its day and week rows, where `when` holds for it.
  // The WHERE clause also keeps SQLite from reading "on conflict" as part of the select (its parsing rule).
  const apply = (r: string, sign: string) =>
    [
      [1, `${r}.start_day`],
      [7, weekOf(`${r}.start_day`)],
    ]
      .map(([span, bucket]) => {
        const terms = statTerms(r, sign);
        return `insert into ${table} (${keyList}, span, bucket, ${list})
          select ${keys.map((k) => `${r}.${k}`).join(', ')}, ${span}, ${bucket}, ${terms.map(([, t]) => t).join(', ')}
          where ${when ? when(r) : 'true'}
          on conflict (${keyList}, span, bucket) do update set
          ${columns.map((c) => `${c} = ${table}.${c} + excluded.${c}`).join(', ')};`;
      })
      .join('\n');
  if (pg) {
    await sql
      .raw(`create or replace function ${table}_apply() returns trigger language plpgsql as $$
        begin
          if tg_op in ('UPDATE', 'DELETE') then
            ${apply('old', '-1')}
          end if;
          if tg_op in ('INSERT', 'UPDATE') then
            ${apply('new', '1')}
          end if;
          return null;
        end $$`)
      .execute(db);
    await sql
      .raw(`create trigger ${table}_apply after insert or ${update} or delete on trips
        for each row execute function ${table}_apply()`)
      .execute(db);
  } else {
    // An update takes the old row out and adds the new one.
    await sql.raw(`create trigger ${table}_insert after insert on trips begin ${apply('new', '1')} end`).execute(db);
    await sql
      .raw(
        `create trigger ${table}_update after ${update} on trips begin ${apply('old', '-1')} ${apply('new', '1')} end`,
      )
      .execute(db);
    await sql.raw(`create trigger ${table}_delete after delete on trips begin ${apply('old', '-1')} end`).execute(db);
  }
}

/** Fills stats table `table` (keys `keys`) with the sums of the trips already stored (`where` on trips `r`). */
async function fillStatsFromTrips(db: AnyDb, table: string, keys: readonly string[], where = 'true'): Promise<void> {
  const list = statTerms('r', '1')
    .map(([column]) => column)
    .join(', ');
  const sums = statTerms('r', '1')
    .map(([, term]) => `sum(${term})`)
    .join(', ');
  const keyList = keys.map((k) => `r.${k}`).join(', ');
  for (const [span, bucket] of [
    [1, 'r.start_day'],
    [7, weekOf('r.start_day')],
  ] as const) {
    await sql
      .raw(`insert into ${table} (${keys.join(', ')}, span, bucket, ${list})
        select ${keyList}, ${span}, ${bucket}, ${sums} from trips r where ${where}
        group by ${keyList}, ${bucket}`)
      .execute(db);
  }
}

/**
 * Per-vehicle sums of scored trips by UTC day and by week, `vehicle_stats`, kept by triggers on `trips`
 * in the writing transaction. The vehicle list sums a window from whole weeks, the days around them and the
 * trips of the two partial days at its ends (vehicle-window.ts), so its cost follows the number of
 * vehicles, not of trips: on the 1,000,000-trip bench store, every vehicle of four fleets over 90 days
 * went from ~300 ms (grouping 123,000 trips) to a few ms. Existing trips are summed into it here.
 */
const vehicleStats: Migration = {
  async up(db: AnyDb) {
    await createStatsTable(db, 'vehicle_stats', ['fleet_id', 'plate']);
    await fillStatsFromTrips(db, 'vehicle_stats', ['fleet_id', 'plate']);
  },
};

/**
 * Per-fleet sums of scored trips by UTC day and by week, `fleet_stats`, the same columns as
 * `vehicle_stats` and kept the same way. A fleet's window then adds up a few rows instead of every
 * vehicle's: the fleet list over four fleets of 1,000 vehicles went from ~200 ms to a few ms. Filled
 * here from `vehicle_stats`, which already holds every stored trip.
 */
const fleetStats: Migration = {
  async up(db: AnyDb) {
    await createStatsTable(db, 'fleet_stats', ['fleet_id']);
    const columns = statTerms('r', '1').map(([column]) => column);
    await sql
      .raw(`insert into fleet_stats (fleet_id, span, bucket, ${columns.join(', ')})
        select fleet_id, span, bucket, ${columns.map((c) => `sum(${c})`).join(', ')} from vehicle_stats
        group by fleet_id, span, bucket`)
      .execute(db);
  },
};

/**
 * Per-driver sums of scored trips by UTC day and by week, `driver_stats` (trips with a driver only), kept
 * the same way, so the driver list costs a few rows per driver rather than every trip of the window.
 */
const driverStats: Migration = {
  async up(db: AnyDb) {
    await createStatsTable(db, 'driver_stats', ['fleet_id', 'driver_id'], (r) => `${r}.driver_id is not null`);
    await fillStatsFromTrips(db, 'driver_stats', ['fleet_id', 'driver_id'], 'r.driver_id is not null');
  },
};

/**
 * Location data that may be deleted while the scores stay: `trip_uploads.telemetry_deleted_at_ms` marks an
 * upload whose raw telemetry (GPS fixes, IMU samples) was deleted, and `trip_location_deletions` records, per
 * scored trip, when its route and telemetry went and why (`retention`: older than the configured period;
 * `driver-erased`: its driver's personal data was erased). A separate narrow table rather than a column of
 * `trips`: an update of `trips` runs the three sums triggers, and the trip read joins it by primary key. The
 * partial index holds the uploads whose telemetry is still kept, in trip start order, so a retention pass
 * reads only what it deletes.
 */
const locationDataDeletions: Migration = {
  async up(db: AnyDb) {
    await db.schema.alterTable('trip_uploads').addColumn('telemetry_deleted_at_ms', 'bigint').execute();
    await db.schema
      .createIndex('trip_uploads_telemetry_kept')
      .on('trip_uploads')
      .columns(['first_sample_ms', 'trip_id'])
      .where(sql.ref('telemetry_deleted_at_ms'), 'is', null)
      .execute();
    await db.schema
      .createTable('trip_location_deletions')
      .addColumn('trip_id', 'text', (c) => c.primaryKey().references('trips.trip_id').onDelete('cascade'))
      .addColumn('deleted_at_ms', 'bigint', (c) => c.notNull())
      .addColumn('reason', 'text', (c) => c.notNull().check(sql`reason in ('retention', 'driver-erased')`))
      .execute();
  },
};

/**
 * A lease on a rescore run (`lease_owner`, `lease_until_ms`): the process working through a run holds it and
 * renews it with every batch, so a second `trips rescore` started meanwhile stops with a message instead of
 * doing the same work again and moving the cursor back; a run whose process died is free again once its
 * lease has expired.
 */
const rescoreLeases: Migration = {
  async up(db: AnyDb) {
    await db.schema.alterTable('rescore_runs').addColumn('lease_owner', 'text').execute();
    await db.schema.alterTable('rescore_runs').addColumn('lease_until_ms', 'bigint').execute();
  },
};

/**
 * Uploads by fleet and driver, for a driver's erasure and export (store/location-data.ts,
 * service/driver-export.ts), which otherwise read every upload of the store, inside a write transaction for
 * the erasure.
 */
const uploadsByDriver: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createIndex('trip_uploads_fleet_driver')
      .on('trip_uploads')
      .columns(['fleet_id', 'driver_id', 'trip_id'])
      .execute();
  },
};

/**
 * Uploads by driver and by vehicle in time order: when a trip is stored, the later trips of the same driver
 * (or vehicle) whose fatigue context it joins are found through these and scored again
 * (store/fatigue-followers.ts), on every scored trip, so they must not read a driver's whole history.
 */
const uploadsInTimeOrder: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createIndex('trip_uploads_driver_time')
      .on('trip_uploads')
      .columns(['fleet_id', 'driver_id', 'first_sample_ms'])
      .execute();
    await db.schema
      .createIndex('trip_uploads_plate_time')
      .on('trip_uploads')
      .columns(['fleet_id', 'plate', 'first_sample_ms'])
      .execute();
  },
};

/**
 * Uploads split into drives (ingest/accept-upload.ts): `trip_uploads.upload_trip_id` names, on each trip stored
 * from such an upload, the trip of its first drive, and `split_uploads` keeps, beside that first drive, what the
 * upload was (SHA-256 and canonical fingerprint of it whole), its trips and the short movements left out, for
 * repeats of the upload and the status endpoint. Rows of uploads stored whole are untouched (the column is null).
 */
const splitUploads: Migration = {
  async up(db: AnyDb) {
    await db.schema.alterTable('trip_uploads').addColumn('upload_trip_id', 'text').execute();
    await db.schema
      .createTable('split_uploads')
      .addColumn('trip_id', 'text', (c) => c.primaryKey().references('trip_uploads.trip_id').onDelete('cascade'))
      .addColumn('upload_sha256', 'text', (c) => c.notNull())
      .addColumn('upload_fingerprint', 'text', (c) => c.notNull())
      .addColumn('trip_ids', 'text', (c) => c.notNull())
      .addColumn('skipped', 'text', (c) => c.notNull())
      .execute();
  },
};

/**
 * At most one open rescore run per model version and scope. Two `trips rescore` started at the same instant on
 * PostgreSQL could each insert a run and, when the one with the lower id committed after the other had looked,
 * each keep its own and score every trip twice; the unique index makes the second insert wait for the first
 * and then find it (scoring/rescore.ts). Open duplicates left by that race are removed first, keeping the
 * earliest (the one a rescore resumes): the trips the others did keep their scores.
 */
const oneOpenRescoreRun: Migration = {
  async up(db: AnyDb) {
    await sql`delete from rescore_runs where finished_at_ms is null and exists (
      select 1 from rescore_runs earlier where earlier.finished_at_ms is null
        and earlier.model_version = rescore_runs.model_version and earlier.all_trips = rescore_runs.all_trips
        and earlier.run_id < rescore_runs.run_id)`.execute(db);
    await sql`create unique index rescore_runs_one_open on rescore_runs (model_version, all_trips)
      where finished_at_ms is null`.execute(db);
  },
};

/**
 * `trip_uploads.rescore_run_id`: the rescore run that last rescored or failed each trip, written in that trip's
 * transaction with the run's count, so a run resumed after its process was killed (no checkpoint since its last
 * batch) skips what it already did and counts exactly (scoring/rescore.ts).
 */
const rescoreRunOfUpload: Migration = {
  async up(db: AnyDb) {
    await db.schema.alterTable('trip_uploads').addColumn('rescore_run_id', 'integer').execute();
  },
};

/**
 * The sums triggers (migrations 0008-0010) fire on an update of `trips` only when it sets a column their sums or
 * keys read. A vehicle's rename sets the plate and list item of every trip it has (store/vehicle-changes.ts): each
 * trip then took itself out of and back into its fleet's and driver's day and week rows, which held those rows
 * locked until the rename committed (every scoring worker writing a trip of the fleet on those days waited for it,
 * or deadlocked with it), tripled the rename's time (some 22 s for 6,600 trips on PostgreSQL, the vehicle's
 * uploads waiting all along), and added float rounding to sums nothing had changed. `vehicle_stats` still follows
 * a plate set by any writer.
 */
const statsTriggersOnSummedColumns: Migration = {
  async up(db: AnyDb) {
    const summed = [
      'start_day',
      'distance_km',
      'duration_min',
      'overall_score',
      ...STAT_THEMES.map((t) => `theme_${t}`),
    ];
    const tables: Array<[string, string[], ((r: string) => string) | undefined]> = [
      ['vehicle_stats', ['fleet_id', 'plate'], undefined],
      ['fleet_stats', ['fleet_id'], undefined],
      ['driver_stats', ['fleet_id', 'driver_id'], (r) => `${r}.driver_id is not null`],
    ];
    for (const [table, keys, when] of tables) {
      if (dialectOf(db) === 'postgres') {
        await sql`drop trigger ${sql.id(`${table}_apply`)} on trips`.execute(db);
      } else {
        for (const event of ['insert', 'update', 'delete'])
          await sql`drop trigger ${sql.id(`${table}_${event}`)}`.execute(db);
      }
      await createStatsTriggers(db, table, keys, when, [...keys, ...summed]);
    }
  },
};

/** Every migration of the trip store, in order; the same set runs on SQLite and PostgreSQL. */
export const tripsMigrations: Record<string, Migration> = {
  '0001_initial': initial,
  '0002_trips_version_narrow_rows': tripsVersionAndNarrowRows,
  '0003_trip_item_json': tripItemJson,
  '0004_day_count_versions': dayCountVersions,
  '0005_time_ordered_items': timeOrderedItems,
  '0006_day_totals': dayTotals,
  '0007_api_tokens_version': apiTokenVersions,
  '0008_vehicle_stats': vehicleStats,
  '0009_fleet_stats': fleetStats,
  '0010_driver_stats': driverStats,
  '0011_location_data_deletions': locationDataDeletions,
  '0012_rescore_leases': rescoreLeases,
  '0013_uploads_by_driver': uploadsByDriver,
  '0014_uploads_in_time_order': uploadsInTimeOrder,
  '0015_split_uploads': splitUploads,
  '0016_one_open_rescore_run': oneOpenRescoreRun,
  '0017_rescore_run_of_upload': rescoreRunOfUpload,
  '0018_stats_triggers_on_summed_columns': statsTriggersOnSummedColumns,
};
