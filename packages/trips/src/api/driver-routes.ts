import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DRIVER_ID_PATTERN } from '../ids.ts';
import { fleetsWithDriver } from '../store/driver-profile.ts';
import type { TripsDatabase } from '../store/open-trips-database.ts';
import type { WindowReads } from '../store/window-reads.ts';
import { badRequest, notFound } from './api-error.ts';
import { parseDriverListQuery, parseVehicleQuery } from './query-params.ts';

interface Deps {
  database: TripsDatabase;
  clock: () => number;
  /** Where the window sums are read (reader threads on a SQLite file, see store/window-reads.ts). */
  reads: WindowReads;
}

/**
 * `GET /v1/drivers`: the drivers in scope with their window's scores, under `drivers`, paged like the other
 * lists; `GET /v1/drivers/{driverId}`: a driver's risk profile and the vehicles they drove, under `driver`.
 */
export function registerDriverRoutes(app: FastifyInstance, { database, clock, reads }: Deps): void {
  app.get('/drivers', async (req, reply) => {
    const scope = req.scope;
    if (!scope) throw new Error('request reached a handler without a scope');
    const query = parseDriverListQuery(req.query as Record<string, unknown>);
    const { drivers, total, window } = await reads.read('driverList', scope.fleets, {
      nowMs: clock(),
      windowDays: query.windowDays,
      sort: query.sort,
      tiers: query.tiers,
      offset: (query.page - 1) * query.limit,
      limit: query.limit,
    });
    const pagination = { page: query.page, limit: query.limit, totalPages: Math.ceil(total / query.limit), total };
    return reply
      .type('application/json; charset=utf-8')
      .send(JSON.stringify({ ok: true, drivers, window, pagination }));
  });

  app.get('/drivers/:driverId', async (req: FastifyRequest<{ Params: { driverId: string } }>, reply) => {
    const scope = req.scope;
    if (!scope) throw new Error('request reached a handler without a scope');
    const driverId = req.params.driverId;
    if (!DRIVER_ID_PATTERN.test(driverId)) {
      throw badRequest(
        `malformed driver id ${JSON.stringify(driverId.slice(0, 70))}: 1-64 of A-Z, a-z, 0-9 and . _ : @ -`,
      );
    }
    const { windowDays } = parseVehicleQuery(req.query as Record<string, unknown>);
    // Driver ids are unique per fleet: an admin token over several fleets may reach two drivers by one id.
    const fleets = await fleetsWithDriver(database.db, scope.fleets, driverId);
    if (fleets.length === 0) throw notFound(`driver ${driverId} not found`);
    if (fleets.length > 1) {
      throw badRequest(
        `driver id ${driverId} exists in fleets ${fleets.join(', ')}: send x-fleet-id with the fleet you mean`,
      );
    }
    const driver = await reads.read('driverProfile', fleets[0]!, driverId, { nowMs: clock(), windowDays });
    if (!driver) throw notFound(`driver ${driverId} not found`);
    return reply.type('application/json; charset=utf-8').send(JSON.stringify({ ok: true, driver }));
  });
}
