import { driverPopulation, simulateTrip } from '@svc/simulator';
import { describe, expect, it } from 'vitest';
import { scoreTrip } from '../src/index.ts';
import { populationRoute } from './helpers/population-route.ts';

/**
 * Model 1.1.2 fills the IMU's silent seconds with GPS in the peak and braking/acceleration percentile
 * factors, and takes the IMU-only rates per km the IMU covered. A trip the IMU covers throughout must score
 * exactly as before: the snapshot was written by the code before that change (every factor's value and
 * score, the themes, the overall score and the events of the same simulated trips, 25 Hz IMU). Rewritten once
 * since, by the junction-turn change of the same model (README, model versions): only `turnEntrySpeedRatio`
 * moved (0.571 to 0.55, 1.02 to 1.03, 1.24 to 1.37), and with it driver 5's cornering (28.5 to 27.5) and
 * overall score (37.3 to 37.2).
 */
const { graph, route } = populationRoute();
const population = driverPopulation({ seed: 11, count: 30, fixed: { nightDriving: 0.3, longStints: 0.3 } });

describe('a trip with full IMU coverage', () => {
  // A calm, a middle and the most aggressive driver of the IMU-parity population.
  it.each([8, 11, 5])('scores as before the silent-IMU fill (driver %i)', (seed) => {
    const batch = simulateTrip({
      route,
      driver: population[seed]!,
      startMs: Date.UTC(2025, 2, 3, 8),
      seed,
      imuHz: 25,
    }).batch;
    const trip = scoreTrip(batch, { graph });
    expect(trip.dataQuality?.imu).toMatchObject({ available: true, coverage: 1 });
    expect({
      overall: trip.overallScore,
      themes: trip.themes.map((t) => [t.id, t.themeScore]),
      factors: trip.themes.flatMap((t) => t.factors.map((f) => [f.key, f.value, f.score])),
      events: trip.events.map((e) => [e.type, e.source, e.startMs, e.value]),
    }).toMatchSnapshot();
  });
});
