import type { FastifyInstance, FastifyRequest } from 'fastify';
import { FLEET_ID_PATTERN } from '../ids.ts';
import { sortFleets } from '../store/fleet-profile.ts';
import type { TripsDatabase } from '../store/open-trips-database.ts';
import type { WindowReads } from '../store/window-reads.ts';
import { badRequest, notFound } from './api-error.ts';
import { parseFleetListQuery, parseVehicleQuery } from './query-params.ts';

interface Deps {
  database: TripsDatabase;
  clock: () => number;
  /** Where the window sums are read (reader threads on a SQLite file, see store/window-reads.ts). */
  reads: WindowReads;
}

/**
 * `GET /v1/fleets`: the fleets in scope with their window's risk, under `fleets`, paged like the other
 * lists; `GET /v1/fleets/{fleetId}`: one fleet's risk profile with its riskiest vehicles, under `fleet`.
 */
export function registerFleetRoutes(app: FastifyInstance, { clock, reads }: Deps): void {
  app.get('/fleets', async (req, reply) => {
    const scope = req.scope;
    if (!scope) throw new Error('request reached a handler without a scope');
    const query = parseFleetListQuery(req.query as Record<string, unknown>);
    const nowMs = clock();
    const all = sortFleets(
      await reads.read('fleetList', scope.fleets, { nowMs, windowDays: query.windowDays }),
      query.sort,
    );
    const total = all.length;
    const fleets = all.slice((query.page - 1) * query.limit, query.page * query.limit);
    const pagination = { page: query.page, limit: query.limit, totalPages: Math.ceil(total / query.limit), total };
    const from = new Date(nowMs - query.windowDays * 86_400_000).toISOString();
    const window = { days: query.windowDays, from, to: new Date(nowMs).toISOString() };
    return reply.type('application/json; charset=utf-8').send(JSON.stringify({ ok: true, fleets, window, pagination }));
  });

  app.get('/fleets/:fleetId', async (req: FastifyRequest<{ Params: { fleetId: string } }>, reply) => {
    const scope = req.scope;
    if (!scope) throw new Error('request reached a handler without a scope');
    const fleetId = req.params.fleetId;
    if (!FLEET_ID_PATTERN.test(fleetId)) {
      throw badRequest(
        `malformed fleet id ${JSON.stringify(fleetId.slice(0, 80))}: fleet_ followed by 1-64 of a-z, 0-9, _ or -`,
      );
    }
    const { windowDays } = parseVehicleQuery(req.query as Record<string, unknown>);
    const fleet = await reads.read('fleetProfile', scope.fleets, fleetId, { nowMs: clock(), windowDays });
    if (!fleet) throw notFound(`fleet ${fleetId} not found`);
    return reply.type('application/json; charset=utf-8').send(JSON.stringify({ ok: true, fleet }));
  });
}
