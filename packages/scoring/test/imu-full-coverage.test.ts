import { driverPopulation, simulateTrip } from '@svc/simulator';
import { describe, expect, it } from 'vitest';
import { scoreTrip } from '../src/index.ts';
import { populationRoute } from './helpers/population-route.ts';

/**
 * Model 1.1.2 fills the IMU's silent seconds with GPS in the peak and braking/acceleration percentile
 * factors, and takes the IMU-only rates per km the IMU covered. A trip the IMU covers throughout must score
 * exactly as before: the snapshot was written by the code before that change (every factor's value and
 * score, the themes, the overall score and the events of the same simulated trips, 25 Hz IMU). Rewritten twice
 * since, by changes of the same model (README, model versions). The junction-turn change: only
 * `turnEntrySpeedRatio` moved (0.571 to 0.55, 1.02 to 1.03, 1.24 to 1.37), and with it driver 5's cornering
 * (28.5 to 27.5) and overall score (37.3 to 37.2). The junction-factor change (`junctionDensity` and
 * `phoneUseNearJunctions` count nodes where three or more roads meet, as junction turns do): `junctionDensity`
 * moved from 5.93 to 6.33, 5.78 to 6.18 and 5.77 to 6.17 per km (drivers 8, 11, 5;
 * scores 50.7 to 47, 52.2 to 48.4 twice) and each exposure theme from 96.2 to 96.1; `phoneUseNearJunctions`,
 * the other themes and the overall scores did not move. Model 1.1.5 (the matcher given the measured speed and heading,
 * `uTurnCount` counting only reversals on one road): no overall score moved, themes by up to 0.2; the calm driver's
 * `uTurnCount` went from 1 to 0, `junctionDensity` to 6.42-6.49 per km and one stop sign's roll-through changed
 * as the matched paths changed at a few junctions. Model 1.1.6 (a moving vehicle no longer turns round for free in
 * the matcher): driver 8's `junctionDensity` from 6.49 to 6.41 per km (score 45.7 to 46.3), nothing else. Model 1.1.7
 * (a road across a moving fix's course costs in the matcher): no overall score moved; driver 5's speeding theme from
 * 31.3 to 31.2 (`lowLimitZoneSpeeding` 14.86 to 15.28 %), driver 8's `junctionDensity` back to 6.49, and the
 * road-share, congestion and urban shares of the three drivers by under 0.1 point. Model 1.1.8 (turning round in
 * place needs courses that allow it): nothing moved. Model 1.1.9 (a stop or give-way sign binds only the
 * approaches it is for, `RoadGraph.controlAhead`) changed the simulated trips themselves: on the main road the
 * vehicles no longer stop at the signs of the minor roads they cross (the route passes 32 stop-sign nodes, 3 of
 * them on its minor-road approaches), so driver 8's trip takes 32.2 minutes instead of 37.6, with fewer stops and
 * more speeding. The snapshot was written again from these trips; what it guards since is that nothing else moves.
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
