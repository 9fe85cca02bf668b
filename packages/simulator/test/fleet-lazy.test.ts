import type { RoadGraph } from '@svc/roads';
import { describe, expect, it } from 'vitest';
import { createFleet, simulateFleetTrips } from '../src/index.ts';
import { testCity } from './city.ts';

const graph = testCity();

/** The road graph, counting every property read (planning reads it for every trip it plans). */
function countingGraph(): { graph: RoadGraph; reads: () => number } {
  let reads = 0;
  const proxy = new Proxy(graph, {
    get(target, key, receiver) {
      reads++;
      return Reflect.get(target, key, receiver);
    },
  });
  return { graph: proxy, reads: () => reads };
}

describe('simulateFleetTrips on a long schedule', () => {
  it('plans only the first days before handing out the first trip, not the whole year', () => {
    const fleet = createFleet({ seed: 4, vehicles: 30, graph });
    const firstTrip = (days: number) => {
      const counted = countingGraph();
      const trips = simulateFleetTrips({ fleet, graph: counted.graph, days, imuHz: 0, limit: 1 });
      const first = trips.next().value;
      return { id: first?.plan.id, reads: counted.reads() };
    };
    const week = firstTrip(7);
    const year = firstTrip(366);
    expect(year.id).toBe(week.id);
    // Planning all 366 days first read the graph about 50 times as often as planning 7.
    expect(year.reads).toBeLessThan(week.reads * 1.5);
  });
});
