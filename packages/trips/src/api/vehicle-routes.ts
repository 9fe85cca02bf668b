import type { FastifyInstance, FastifyRequest } from 'fastify';
import { canonicalPlate, isValidPlate, plateCharacterProblem } from '../ids.ts';
import type { TripsDatabase } from '../store/open-trips-database.ts';
import type { WindowReads } from '../store/window-reads.ts';
import { badRequest, notFound } from './api-error.ts';
import { parseVehicleListQuery, parseVehicleQuery } from './query-params.ts';

interface Deps {
  database: TripsDatabase;
  clock: () => number;
  /** Where the window sums are read (reader threads on a SQLite file, see store/window-reads.ts). */
  reads: WindowReads;
}

/**
 * `GET /v1/vehicles`: the vehicles in scope with their window's scores, under `vehicles`, paged like the
 * trip list; `GET /v1/vehicles/{plate}`: the vehicle risk profile and its driver roster, under `vehicle`.
 */
export function registerVehicleRoutes(app: FastifyInstance, { clock, reads }: Deps): void {
  app.get('/vehicles', async (req, reply) => {
    const scope = req.scope;
    if (!scope) throw new Error('request reached a handler without a scope');
    const query = parseVehicleListQuery(req.query as Record<string, unknown>);
    const { vehicles, total, window } = await reads.read('vehicleList', scope.fleets, {
      nowMs: clock(),
      windowDays: query.windowDays,
      sort: query.sort,
      tiers: query.tiers,
      machineTypes: query.machineTypes,
      offset: (query.page - 1) * query.limit,
      limit: query.limit,
    });
    const pagination = { page: query.page, limit: query.limit, totalPages: Math.ceil(total / query.limit), total };
    return reply
      .type('application/json; charset=utf-8')
      .send(JSON.stringify({ ok: true, vehicles, window, pagination }));
  });

  app.get('/vehicles/:plate', async (req: FastifyRequest<{ Params: { plate: string } }>, reply) => {
    const scope = req.scope;
    if (!scope) throw new Error('request reached a handler without a scope');
    const raw = req.params.plate;
    const plate = canonicalPlate(raw);
    if (!isValidPlate(plate)) {
      // A form encoder (Java's URLEncoder, Python's quote_plus) writes a space as '+', which only a query string
      // reads as one: say so when that is what made the plate malformed; else name the character at fault.
      const plus = raw.includes('+') && isValidPlate(canonicalPlate(raw.replaceAll('+', ' ')));
      const problem = plus ? 'a space in the path must be sent as %20, not "+"' : plateCharacterProblem(plate);
      throw badRequest(
        `malformed plate ${JSON.stringify(raw.slice(0, 40))}: 1-20 Latin letters, digits, spaces, dots or dashes (URL-encode spaces as %20)${problem ? `; ${problem}` : ''}`,
      );
    }
    const { windowDays } = parseVehicleQuery(req.query as Record<string, unknown>);
    const vehicle = await reads.read('vehicleProfile', scope.fleets, plate, { nowMs: clock(), windowDays });
    if (!vehicle) throw notFound(`vehicle ${plate} not found`);
    return reply.type('application/json; charset=utf-8').send(JSON.stringify({ ok: true, vehicle }));
  });
}
