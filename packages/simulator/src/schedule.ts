import type { RoadGraph } from '@svc/roads';
import type { LonLat } from './drive-route.ts';
import { type Driver, type Fleet, randomPlace, type Vehicle } from './fleet.ts';
import { localTimeToEpochMs, localWeekday } from './local-time.ts';
import { Rng } from './random.ts';

/**
 * The trip schedule of a fleet over days: private commutes and errands for cars and motorcycles, delivery rounds
 * for vans, hauls for trucks and line runs for buses. A driver's night-driving and long-stint levels decide how many
 * trips move into the night and how many working days hold a long stint without a 15-minute break.
 */

export const TRIP_KINDS = ['commute', 'errand', 'night', 'delivery_round', 'haul', 'bus_run', 'long_stint'] as const;
export type TripKind = (typeof TRIP_KINDS)[number];

/** One planned trip. */
export interface TripPlan {
  /** Unique and stable: `<driverId>-d<day>-<n>`; used as the batch's clientTripId. */
  id: string;
  driverId: string;
  vehicleId: string;
  kind: TripKind;
  /** Day index from the schedule's start (0-based). */
  day: number;
  startMs: number;
  from: LonLat;
  to: LonLat;
  via: LonLat[];
  /** Stop at each via point, seconds. */
  viaDwellS: number[];
  /** Seed of the trip's simulation. */
  seed: string;
}

export interface ScheduleOptions {
  fleet: Fleet;
  graph: RoadGraph;
  /** Days to plan (default 7). */
  days?: number;
  /** First day, as an ISO date `YYYY-MM-DD` or epoch ms inside that local day (default 2025-03-03, a Monday). */
  startDate?: string | number;
}

const DEFAULT_START_DATE = '2025-03-03';

/** Epoch ms at noon UTC of the start date (noon keeps the local day unambiguous in every zone). */
function startDayMs(startDate: string | number | undefined): number {
  if (typeof startDate === 'number') {
    if (!Number.isFinite(startDate)) throw new RangeError('schedule: startDate must be a date');
    return startDate;
  }
  const text = startDate ?? DEFAULT_START_DATE;
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) throw new RangeError(`schedule: startDate must be YYYY-MM-DD (got "${text}")`);
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const ms = Date.UTC(year, month - 1, day, 12);
  // Date.UTC rolls 2025-02-30 over into March: a date that does not exist is a mistake, not a wish.
  const date = new Date(ms);
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) {
    throw new RangeError(`schedule: startDate ${text} is not a date of the calendar`);
  }
  return ms;
}

/** A random hour in [from, to). */
const hourIn = (rng: Rng, from: number, to: number) => rng.uniform(from, to);

/** A night start hour (22:00-04:30 local), expressed on the day it belongs to (after midnight = hour 24+). */
const nightHour = (rng: Rng) => rng.uniform(22, 28.5);

interface Builder {
  plans: TripPlan[];
  /** Trips planned so far for this driver and day (numbers the ids). */
  count: number;
  driver: Driver;
  vehicle: Vehicle;
  day: number;
  dayMs: number;
  timeZone: string;
  fleetSeed: string;
}

function add(
  b: Builder,
  kind: TripKind,
  hour: number,
  from: LonLat,
  to: LonLat,
  via: LonLat[] = [],
  viaDwellS: number[] = [],
) {
  b.count++;
  const id = `${b.driver.id}-d${b.day}-${b.count}`;
  b.plans.push({
    id,
    driverId: b.driver.id,
    vehicleId: b.vehicle.id,
    kind,
    day: b.day,
    startMs: localTimeToEpochMs(b.dayMs, hour, b.timeZone),
    from,
    to,
    via,
    viaDwellS,
    seed: `${b.fleetSeed}/${id}`,
  });
}

/** Stops for a stint of roughly `hours` of driving in a city, with short (< 15 min) stops between legs. */
function stintStops(graph: RoadGraph, rng: Rng, hours: number, legMinutes: number, dwell: [number, number]) {
  const legs = Math.max(2, Math.round((hours * 60) / legMinutes));
  const via: LonLat[] = [];
  const dwellS: number[] = [];
  for (let i = 0; i < legs - 1; i++) {
    via.push(randomPlace(graph, rng, 'work'));
    dwellS.push(Math.round(rng.uniform(dwell[0], dwell[1])));
  }
  return { via, dwellS };
}

/** Plans the fleet's trips over the days, sorted by start time. Deterministic for the fleet's seed. */
export function planTrips(options: ScheduleOptions): TripPlan[] {
  return [...planTripsInOrder(options)];
}

/** Any trip planned for a day starts at most this long before that day's reference instant (noon UTC). */
const EARLIEST_START_BEFORE_DAY_MS = 2 * 86_400_000;

const byStart = (a: TripPlan, b: TripPlan) => a.startMs - b.startMs || a.id.localeCompare(b.id);

/**
 * The plans of {@link planTrips}, in the same order, planned a day at a time: a plan is handed out once no later
 * day can plan anything before it, so a year of a large fleet never sits in memory (it ran out of memory before
 * the first trip of `simulator fleet --vehicles 20000 --days 366 --trips 1`).
 */
export function* planTripsInOrder(options: ScheduleOptions): Generator<TripPlan> {
  const { fleet, graph } = options;
  const days = options.days ?? 7;
  if (!Number.isInteger(days) || days < 1 || days > 366)
    throw new RangeError('schedule: days must be an integer from 1 to 366');
  const firstDay = startDayMs(options.startDate);
  const vehicles = new Map(fleet.vehicles.map((v) => [v.id, v]));
  const byVehicle = new Map<string, Driver[]>();
  for (const d of fleet.drivers) {
    const id = d.vehicleIds[0]!;
    byVehicle.set(id, [...(byVehicle.get(id) ?? []), d]);
  }
  let plans: TripPlan[] = [];
  for (let day = 0; day < days; day++) {
    const dayMs = firstDay + day * 86_400_000;
    // Nothing planned from this day on starts before the horizon: what the earlier days planned before it is final.
    const horizonMs = dayMs - EARLIEST_START_BEFORE_DAY_MS;
    plans.sort(byStart);
    let ready = 0;
    while (ready < plans.length && plans[ready]!.startMs < horizonMs) ready++;
    yield* plans.slice(0, ready);
    plans = plans.slice(ready);
    const weekday = localWeekday(dayMs, fleet.timeZone);
    const weekend = weekday === 0 || weekday === 6;
    for (const [vehicleId, drivers] of byVehicle) {
      const vehicle = vehicles.get(vehicleId)!;
      // Shared vehicles rotate: one driver per day.
      const driver = drivers[day % drivers.length]!;
      const rng = Rng.from(fleet.seed, 'schedule', driver.id, day);
      const p = driver.profile.params;
      const home = driver.home ?? randomPlace(graph, rng.fork('home'), 'home');
      const work = driver.work ?? randomPlace(graph, rng.fork('work'), 'work');
      const base = vehicle.base ?? home;
      const b: Builder = {
        plans,
        count: 0,
        driver,
        vehicle,
        day,
        dayMs,
        timeZone: fleet.timeZone,
        fleetSeed: String(fleet.seed),
      };
      const longStint = rng.chance(p.longStintDayShare);
      const night = () => rng.chance(p.nightTripShare);
      switch (vehicle.machineType) {
        case 'car':
        case 'motorcycle': {
          if (!weekend) {
            if (longStint) {
              const stops = stintStops(graph, rng.fork('stint'), p.longStintHours, 25, [60, 420]);
              add(b, 'long_stint', hourIn(rng, 7, 9), home, home, stops.via, stops.dwellS);
            } else {
              // A night commute out is an early shift (leaving before 05:00); one back is a late shift.
              const outNight = night();
              add(
                b,
                outNight ? 'night' : 'commute',
                outNight ? hourIn(rng, 3.5, 4.7) : hourIn(rng, 6.8, 9),
                home,
                work,
              );
              const backNight = night();
              add(b, backNight ? 'night' : 'commute', backNight ? nightHour(rng) : hourIn(rng, 16.5, 19), work, home);
            }
          }
          const errands = weekend ? rng.int(1, 2) : rng.chance(0.4) ? 1 : 0;
          for (let e = 0; e < errands; e++) {
            const place = randomPlace(graph, rng, 'work');
            const isNight = night();
            const hour = isNight
              ? nightHour(rng)
              : weekend
                ? hourIn(rng, 9.5 + 4 * e, 13 + 4 * e)
                : hourIn(rng, 19.5, 21);
            add(b, isNight ? 'night' : 'errand', hour, home, place);
            add(b, isNight ? 'night' : 'errand', hour + rng.uniform(0.5, 1.5), place, home);
          }
          break;
        }
        case 'van': {
          if (weekend) break;
          const hours = longStint ? p.longStintHours : rng.uniform(1, 1.8);
          const round1 = stintStops(graph, rng.fork('round', 1), hours, 12, [60, 300]);
          const start = night() ? rng.uniform(4, 5.5) : hourIn(rng, 7, 8.5);
          add(b, longStint ? 'long_stint' : 'delivery_round', start, base, base, round1.via, round1.dwellS);
          if (!longStint) {
            const round2 = stintStops(graph, rng.fork('round', 2), rng.uniform(1, 1.8), 12, [60, 300]);
            add(b, 'delivery_round', start + hours + rng.uniform(0.6, 1.2), base, base, round2.via, round2.dwellS);
          }
          break;
        }
        case 'truck': {
          if (weekday === 0) break;
          const hours = longStint ? p.longStintHours : rng.uniform(1.2, 1.9);
          const start = night() ? hourIn(rng, 0.5, 4.5) : hourIn(rng, 5.5, 7.5);
          const leg1 = stintStops(graph, rng.fork('haul', 1), hours, 30, [120, 600]);
          add(b, longStint ? 'long_stint' : 'haul', start, base, base, leg1.via, leg1.dwellS);
          if (!longStint) {
            const leg2 = stintStops(graph, rng.fork('haul', 2), rng.uniform(1.2, 1.9), 30, [120, 600]);
            add(b, 'haul', start + hours + rng.uniform(0.75, 1.25), base, base, leg2.via, leg2.dwellS);
          }
          break;
        }
        case 'bus': {
          // A line of 8-12 stops driven out and back. Stops are short, so a run is one trip; on a long-stint day
          // the driver chains runs with only a few minutes at the termini, which is one trip without a break.
          const lineRng = Rng.from(fleet.seed, 'bus-line', vehicle.id);
          const line = Array.from({ length: lineRng.int(8, 12) }, () => randomPlace(graph, lineRng, 'work'));
          const back = [...line].reverse();
          let hour = night() ? hourIn(rng, 4.5, 5) : hourIn(rng, 6, 7);
          const stopDwell = () => Math.round(rng.uniform(15, 45));
          if (longStint) {
            const runs = Math.max(2, Math.round(p.longStintHours / 0.6));
            const stops: LonLat[] = [line[0]!];
            for (let r = 0; r < runs; r++) stops.push(...(r % 2 === 0 ? line : back).slice(1));
            const via = stops.slice(1, -1);
            const dwell = via.map((_, i) =>
              (i + 1) % (line.length - 1) === 0 ? Math.round(rng.uniform(180, 420)) : stopDwell(),
            );
            add(b, 'long_stint', hour, stops[0]!, stops[stops.length - 1]!, via, dwell);
            break;
          }
          const runs = weekend ? 2 : 4;
          for (let r = 0; r < runs; r++) {
            const stops = r % 2 === 0 ? line : back;
            const via = stops.slice(1, -1);
            add(b, 'bus_run', hour, stops[0]!, stops[stops.length - 1]!, via, via.map(stopDwell));
            hour += rng.uniform(1.4, 2);
          }
          break;
        }
      }
    }
  }
  plans.sort(byStart);
  yield* plans;
}
