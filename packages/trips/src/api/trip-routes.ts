import type { FastifyInstance, FastifyRequest } from 'fastify';
import { TRIP_ID_PATTERN } from '../ids.ts';
import { fleetsWithDriver } from '../store/driver-profile.ts';
import type { TripsDatabase } from '../store/open-trips-database.ts';
import { listTrips } from '../store/trip-list.ts';
import { breakdownBody, findBreakdownRow, findRoute, findTrip, themeLabelsOf } from '../store/trip-reads.ts';
import { badRequest, notFound } from './api-error.ts';
import type { ConfirmScope, RequestScope } from './auth.ts';
import { conditional, tripEntityTag } from './conditional.ts';
import { tripDetail } from './present.ts';
import { parseListQuery, parseNoQuery } from './query-params.ts';

interface Deps {
  database: TripsDatabase;
  clock: () => number;
  confirm: ConfirmScope;
}

type IdRequest = FastifyRequest<{ Params: { id: string } }>;

function scopeOf(req: FastifyRequest): RequestScope {
  // The onRequest hook of /v1 sets it or fails the request, so a handler never runs without one.
  if (!req.scope) throw new Error('request reached a handler without a scope');
  return req.scope;
}

function tripIdOf(req: IdRequest): string {
  const id = req.params.id;
  if (!TRIP_ID_PATTERN.test(id)) {
    throw badRequest(
      `malformed trip id ${JSON.stringify(id.slice(0, 110))}: trip ids look like trip_<letters and digits>`,
    );
  }
  return id;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const LIST_HEAD = '{"ok":true,"trips":[';
const LIST_HEAD_BYTES = Buffer.from(LIST_HEAD);

/**
 * The routes read most often answer from one statement that also reads the tokens' version: their scope
 * comes from this process's token cache (`optimisticAuth`) and is confirmed by that statement (confirmScope),
 * which saves each request a read of the version before its data (on PostgreSQL, a round trip).
 */
const OPTIMISTIC = { config: { optimisticAuth: true } };

/** `GET /v1/trips`, `/v1/trips/{id}`, `/v1/trips/{id}/score-breakdown` and `/v1/trips/{id}/route`. */
export function registerTripRoutes(app: FastifyInstance, { database, confirm }: Deps): void {
  const db = database.db;

  app.get('/trips', OPTIMISTIC, async (req, reply) => {
    const query = parseListQuery(req.query as Record<string, unknown>);
    const readPage = async () => {
      let { fleets } = scopeOf(req);
      const driverId = query.filter.driverId;
      if (driverId !== undefined && fleets.length > 1) {
        // Driver ids are unique per fleet: the same id in two fleets of the scope is two people, as for
        // `GET /v1/drivers/{driverId}`. One fleet knowing the id narrows the list to it.
        const known = await fleetsWithDriver(db, fleets, driverId);
        if (known.length > 1) {
          throw badRequest(
            `driver id ${driverId} exists in fleets ${known.join(', ')}: send x-fleet-id with the fleet you mean`,
          );
        }
        if (known.length === 1) fleets = known;
      }
      return listTrips(db, fleets, query.filter, {
        offset: (query.page - 1) * query.limit,
        limit: query.limit,
      });
    };
    let page = await readPage();
    if (!(await confirm(req, reply, page.tokenVersion))) page = await readPage();
    const { itemsJson, total } = page;
    // The items are stored JSON (see store/trip-item.ts), joined by the database; only the envelope is
    // serialised here.
    const pagination = JSON.stringify({
      page: query.page,
      limit: query.limit,
      totalPages: Math.ceil(total / query.limit),
      total,
    });
    const tail = `],"pagination":${pagination}}`;
    if (typeof itemsJson === 'string') {
      return reply.type(JSON_TYPE).send(`${LIST_HEAD}${itemsJson}${tail}`);
    }
    return reply.type(JSON_TYPE).send(Buffer.concat([LIST_HEAD_BYTES, itemsJson, Buffer.from(tail)]));
  });

  app.get('/trips/:id', OPTIMISTIC, async (req: IdRequest, reply) => {
    const tripId = tripIdOf(req);
    parseNoQuery(req.query as Record<string, unknown>);
    let row = await findTrip(db, scopeOf(req).fleets, tripId);
    if (!(await confirm(req, reply, row?.token_version))) row = await findTrip(db, scopeOf(req).fleets, tripId);
    if (!row) throw notFound(`trip ${tripId} not found`);
    const labels = await themeLabelsOf(db, row.newest_catalogue_id);
    const label = (id: string) => labels.get(id) ?? id;
    // The body is the stored result plus the current label of its weakest theme (labels belong to the
    // newest scoring model's catalogue), and what a driver's erasure or retention may change later without
    // a new scoring: the driver, the deletion of the location data, and the vehicle's plate (`vehicles rename`).
    const extra = `${label(row.weakest_theme)}\n${row.driver_id ?? ''}\n${row.locations_deleted_at_ms ?? ''}\n${row.plate}`;
    if (conditional(req, reply, tripEntityTag('trip', tripId, row.scored_at_ms, extra))) return reply;
    const trip = tripDetail(row, label);
    return reply.type(JSON_TYPE).send(JSON.stringify({ ok: true, trip }));
  });

  app.get('/trips/:id/score-breakdown', OPTIMISTIC, async (req: IdRequest, reply) => {
    const tripId = tripIdOf(req);
    parseNoQuery(req.query as Record<string, unknown>);
    let row = await findBreakdownRow(db, scopeOf(req).fleets, tripId);
    if (!(await confirm(req, reply, row?.token_version))) {
      row = await findBreakdownRow(db, scopeOf(req).fleets, tripId);
    }
    if (!row || row.catalogue_id === null || row.values_json === null) throw notFound(`trip ${tripId} not found`);
    // Everything in the body was written when the trip was scored; its catalogue is immutable by id.
    if (conditional(req, reply, tripEntityTag('breakdown', tripId, row.scored_at_ms, row.catalogue_id))) return reply;
    // The body is built as bytes (see breakdownBytes) and sent as it is.
    const body = await breakdownBody(db, row, tripId, '{"ok":true,"breakdown":', '}');
    if (body === null) throw notFound(`trip ${tripId} not found`);
    return reply.type(JSON_TYPE).send(body);
  });

  app.get('/trips/:id/route', OPTIMISTIC, async (req: IdRequest, reply) => {
    const tripId = tripIdOf(req);
    parseNoQuery(req.query as Record<string, unknown>);
    let found = await findRoute(db, scopeOf(req).fleets, tripId);
    if (!(await confirm(req, reply, found.tokenVersion))) found = await findRoute(db, scopeOf(req).fleets, tripId);
    const { route } = found;
    if (route === null) throw notFound(`trip ${tripId} not found`);
    if ('deleted' in route) {
      const on = new Date(route.deleted.atMs).toISOString();
      throw notFound(
        route.deleted.reason === 'retention'
          ? `the route of trip ${tripId} was deleted on ${on} under the location data retention period; its scores are kept`
          : `the route of trip ${tripId} was deleted on ${on} with its driver's personal data; its scores are kept`,
      );
    }
    if (conditional(req, reply, tripEntityTag('route', tripId, route.scoredAtMs))) return reply;
    // `ok` joins the stored FeatureCollection as a GeoJSON foreign member.
    return reply.type('application/geo+json; charset=utf-8').send(`{"ok":true,${route.geojson.slice(1)}`);
  });
}
