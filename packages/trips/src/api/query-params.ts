import { canonicalPlate, DRIVER_ID_PATTERN, isValidPlate, plateCharacterProblem } from '../ids.ts';
import { TIERS } from '../scoring/tiers.ts';
import { DRIVER_SORTS, type DriverSort } from '../store/driver-list.ts';
import { FLEET_SORTS, type FleetSort } from '../store/fleet-profile.ts';
import type { TripListFilter } from '../store/trip-list.ts';
import { VEHICLE_SORTS, type VehicleSort } from '../store/vehicle-list.ts';
import { VEHICLE_MACHINE_TYPES } from '../store/vehicles.ts';
import { badRequest } from './api-error.ts';

/** Defaults and bounds of the list parameters (documented in the OpenAPI document and the README). */
export const PAGE_DEFAULT = 1;
export const PAGE_MAX = 1_000_000;
export const LIMIT_DEFAULT = 20;
export const LIMIT_MIN = 10;
export const LIMIT_MAX = 100;
export const WINDOW_DAYS_DEFAULT = 90;
export const WINDOW_DAYS_MIN = 7;
export const WINDOW_DAYS_MAX = 365;

const DAY_MS = 86_400_000;
const INTEGER = /^(0|[1-9][0-9]{0,15})$/;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
// A zone is `Z` or an offset in any of ISO 8601's spellings, `±hh:mm`, `±hhmm` or `±hh`, as trace files are read.
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}(:?\d{2})?)$/;

type Query = Record<string, unknown>;

/** Rejects parameters this endpoint does not know and repeated ones: a typo must not silently widen a query. */
function checkNames(query: Query, allowed: readonly string[]): void {
  for (const [name, value] of Object.entries(query)) {
    if (!allowed.includes(name)) {
      const hint = allowed.length > 0 ? `allowed: ${allowed.join(', ')}` : 'this endpoint takes no query parameters';
      throw badRequest(`unknown query parameter "${name.slice(0, 50)}"; ${hint}`);
    }
    if (Array.isArray(value)) throw badRequest(`query parameter "${name}" is given more than once; give it once`);
  }
}

function single(query: Query, name: string): string | undefined {
  const value = query[name];
  return typeof value === 'string' ? value : undefined;
}

function integer(query: Query, name: string, min: number, max: number, fallback: number): number {
  const raw = single(query, name);
  if (raw === undefined) return fallback;
  if (!INTEGER.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw badRequest(`${name} must be an integer from ${min} to ${max} (got ${show(raw)})`);
  }
  return Number(raw);
}

function show(raw: string): string {
  return JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}...` : raw);
}

/** Midnight UTC of a `YYYY-MM-DD` calendar day, or NaN when no such day exists (2026-02-29, 2026-11-31). */
function utcMidnight(date: string): number {
  const match = DATE_ONLY.exec(date);
  if (!match) return Number.NaN;
  const ms = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return new Date(ms).toISOString().slice(0, 10) === date ? ms : Number.NaN;
}

/**
 * An ISO 8601 date (`2026-11-20`, midnight UTC) or date-time with an offset (`2026-11-20T08:00:00+01:00`).
 * A date-only `to` means the end of that day, so `from=2026-11-01&to=2026-11-30` covers all of November.
 */
function instant(query: Query, name: 'from' | 'to'): number | undefined {
  const raw = single(query, name);
  if (raw === undefined) return undefined;
  let ms = Number.NaN;
  if (DATE_ONLY.test(raw)) {
    ms = utcMidnight(raw);
    if (name === 'to') ms += DAY_MS;
  } else if (DATE_TIME.test(raw) && Number.isFinite(utcMidnight(raw.slice(0, 10)))) {
    // The date part is checked on its own: Date.parse rolls an impossible day over (2026-02-30 -> March 2).
    // Date.parse reads only `±hh:mm` offsets: the other spellings are rewritten to it first.
    ms = Date.parse(raw.replace(/([+-])(\d{2}):?(\d{2})?$/, (_m, sign, hh, mm) => `${sign}${hh}:${mm ?? '00'}`));
  }
  if (!Number.isFinite(ms)) {
    // A '+' written into a URL as it is arrives as a space (form encoding): say so, it is the usual cause. Only
    // then: a value that came with its '+' (an impossible date or offset) has another problem.
    const hint =
      raw.includes(' ') && DATE_TIME.test(raw.replace(' ', '+')) ? '; a "+" in a URL must be sent as %2B' : '';
    throw badRequest(
      `${name} must be an ISO 8601 date (2026-11-20) or date-time with offset (2026-11-20T08:00:00Z) (got ${show(raw)})${hint}`,
    );
  }
  return ms;
}

/** `tier=Critical,Fair`: one or more tiers, any case; undefined when not given. */
function tierList(query: Query): string[] | undefined {
  const tier = single(query, 'tier');
  if (tier === undefined) return undefined;
  const tiers = new Set<string>();
  for (const part of tier.split(',')) {
    const match = TIERS.find((t) => t.toLowerCase() === part.trim().toLowerCase());
    if (!match)
      throw badRequest(`tier must be one or more of ${TIERS.join(', ')}, comma-separated (got ${show(tier)})`);
    tiers.add(match);
  }
  return [...tiers];
}

/** `sort=`: one of `orders` (a field, `-` for descending), or `fallback` when not given. */
function sortParam<T extends string>(query: Query, orders: readonly T[], fallback: T): T {
  const sort = single(query, 'sort') ?? fallback;
  if (!(orders as readonly string[]).includes(sort)) {
    throw badRequest(`sort must be one of ${orders.join(', ')} (a leading "-" sorts descending; got ${show(sort)})`);
  }
  return sort as T;
}

export interface ListQuery {
  page: number;
  limit: number;
  filter: TripListFilter;
}

export const LIST_PARAMETERS = ['page', 'limit', 'vehicle', 'driver', 'tier', 'from', 'to'] as const;

/** Parses and checks the query of `GET /v1/trips`; throws a 400 naming the parameter. */
export function parseListQuery(query: Query): ListQuery {
  checkNames(query, LIST_PARAMETERS);
  const page = integer(query, 'page', 1, PAGE_MAX, PAGE_DEFAULT);
  const limit = integer(query, 'limit', LIMIT_MIN, LIMIT_MAX, LIMIT_DEFAULT);
  const filter: TripListFilter = {};
  const vehicle = single(query, 'vehicle');
  if (vehicle !== undefined) {
    const plate = canonicalPlate(vehicle);
    if (!isValidPlate(plate)) {
      const problem = plateCharacterProblem(plate);
      throw badRequest(
        `vehicle must be a plate such as "AB-123-CD" (got ${show(vehicle)})${problem ? `; ${problem}` : ''}`,
      );
    }
    filter.plate = plate;
  }
  const driver = single(query, 'driver');
  if (driver !== undefined) {
    if (!DRIVER_ID_PATTERN.test(driver)) {
      throw badRequest(`driver must be a driver id: 1-64 of A-Z, a-z, 0-9 and . _ : @ - (got ${show(driver)})`);
    }
    filter.driverId = driver;
  }
  const tiers = tierList(query);
  if (tiers) filter.tiers = tiers;
  filter.fromMs = instant(query, 'from');
  filter.toMs = instant(query, 'to');
  if (filter.fromMs !== undefined && filter.toMs !== undefined && filter.fromMs >= filter.toMs) {
    throw badRequest('from must be before to');
  }
  return { page, limit, filter };
}

/** Parses the query of the profiles (`/v1/vehicles/{plate}`, `/v1/drivers/{driverId}`, `/v1/fleets/{fleetId}`): the rolling window in days. */
export function parseVehicleQuery(query: Query): { windowDays: number } {
  checkNames(query, ['window']);
  return { windowDays: integer(query, 'window', WINDOW_DAYS_MIN, WINDOW_DAYS_MAX, WINDOW_DAYS_DEFAULT) };
}

/** `page`, `limit` and `window` of the summary lists (vehicles, drivers, fleets), each checked. */
function pagedWindow(query: Query): { page: number; limit: number; windowDays: number } {
  return {
    page: integer(query, 'page', 1, PAGE_MAX, PAGE_DEFAULT),
    limit: integer(query, 'limit', LIMIT_MIN, LIMIT_MAX, LIMIT_DEFAULT),
    windowDays: integer(query, 'window', WINDOW_DAYS_MIN, WINDOW_DAYS_MAX, WINDOW_DAYS_DEFAULT),
  };
}

export interface VehicleListQuery {
  page: number;
  limit: number;
  windowDays: number;
  sort: VehicleSort;
  tiers: string[] | undefined;
  machineTypes: string[] | undefined;
}

export const VEHICLE_LIST_PARAMETERS = ['page', 'limit', 'window', 'sort', 'tier', 'machineType'] as const;

/** Parses and checks the query of `GET /v1/vehicles`; throws a 400 naming the parameter. */
export function parseVehicleListQuery(query: Query): VehicleListQuery {
  checkNames(query, VEHICLE_LIST_PARAMETERS);
  const sort = sortParam<VehicleSort>(query, VEHICLE_SORTS, 'plate');
  let machineTypes: string[] | undefined;
  const machineType = single(query, 'machineType');
  if (machineType !== undefined) {
    const types = new Set<string>();
    for (const part of machineType.split(',')) {
      const type = part.trim().toLowerCase();
      if (!(VEHICLE_MACHINE_TYPES as readonly string[]).includes(type)) {
        throw badRequest(
          `machineType must be one or more of ${VEHICLE_MACHINE_TYPES.join(', ')}, comma-separated (got ${show(machineType)})`,
        );
      }
      types.add(type);
    }
    machineTypes = [...types];
  }
  return {
    ...pagedWindow(query),
    sort,
    tiers: tierList(query),
    machineTypes,
  };
}

export interface DriverListQuery {
  page: number;
  limit: number;
  windowDays: number;
  sort: DriverSort;
  tiers: string[] | undefined;
}

export const DRIVER_LIST_PARAMETERS = ['page', 'limit', 'window', 'sort', 'tier'] as const;

/** Parses and checks the query of `GET /v1/drivers`; throws a 400 naming the parameter. */
export function parseDriverListQuery(query: Query): DriverListQuery {
  checkNames(query, DRIVER_LIST_PARAMETERS);
  const sort = sortParam<DriverSort>(query, DRIVER_SORTS, 'driverId');
  return {
    ...pagedWindow(query),
    sort,
    tiers: tierList(query),
  };
}

export interface FleetListQuery {
  page: number;
  limit: number;
  windowDays: number;
  sort: FleetSort;
}

export const FLEET_LIST_PARAMETERS = ['page', 'limit', 'window', 'sort'] as const;

/** Parses and checks the query of `GET /v1/fleets`; throws a 400 naming the parameter. */
export function parseFleetListQuery(query: Query): FleetListQuery {
  checkNames(query, FLEET_LIST_PARAMETERS);
  const sort = sortParam<FleetSort>(query, FLEET_SORTS, 'name');
  return {
    ...pagedWindow(query),
    sort,
  };
}

/** The item endpoints take no query parameters; anything given is a mistake worth reporting. */
export function parseNoQuery(query: Query): void {
  checkNames(query, []);
}
