import { FACTORS, factorScore, type Need, THEMES } from '../factors/catalogue.ts';
import { ACCELERATION_MEASURES } from '../factors/measure-acceleration.ts';
import { BRAKING_MEASURES } from '../factors/measure-braking.ts';
import { CORNERING_MEASURES } from '../factors/measure-cornering.ts';
import { DISTRACTION_MEASURES } from '../factors/measure-distraction.ts';
import { EXPOSURE_MEASURES } from '../factors/measure-exposure.ts';
import { SPEEDING_MEASURES } from '../factors/measure-speeding.ts';
import type { Measurer } from '../factors/measure-util.ts';
import type { FactorResult, ThemeId, ThemeResult, Tier, TripReason } from '../result.ts';
import type { TripData } from './trip-data.ts';

/** Every factor's measure, by key (a test checks this matches the catalogue one to one). */
export const MEASURES: Readonly<Record<string, Measurer>> = {
  ...SPEEDING_MEASURES,
  ...BRAKING_MEASURES,
  ...ACCELERATION_MEASURES,
  ...CORNERING_MEASURES,
  ...DISTRACTION_MEASURES,
  ...EXPOSURE_MEASURES,
};

/** A theme is scored only when at least this share of its factor weight could be computed. */
export const MIN_THEME_WEIGHT_SHARE = 0.5;

const NEED_REASONS: Record<Need, string> = {
  gps: 'no usable GPS',
  imu: 'no usable accelerometer (absent, too sparse, or it could not be aligned to the vehicle)',
  gyro: 'no gyroscope',
  deviceImu: 'needs a phone IMU in the device frame',
  phone: 'phone use was not monitored',
  obdRpm: 'no OBD engine speed',
  obdThrottle: 'no OBD throttle position',
  map: 'not map-matched to a road network',
  limits: 'speed limits unknown for too much of the trip',
};

/** The tier of an overall score: Critical < 45 <= Fair < 65 <= Good < 80 <= Safe (one scale for all). */
export function tierFor(score: number): Tier {
  if (score >= 80) return 'Safe';
  if (score >= 65) return 'Good';
  if (score >= 45) return 'Fair';
  return 'Critical';
}

function roundValue(value: number): number {
  if (value === 0 || !Number.isFinite(value)) return value;
  const digits = Math.abs(value) >= 100 ? 1 : Math.abs(value) >= 1 ? 2 : 3;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

const round1 = (v: number) => Math.round(v * 10) / 10;

export interface Assembled {
  themes: ThemeResult[];
  overallScore: number;
  tier: Tier;
  weakestTheme: { id: ThemeId; label: string };
  reasons: TripReason[];
}

/** Measures every factor, maps it to 0-100, and combines factors into themes and themes into the trip score. */
export function assembleScores(d: TripData): Assembled {
  const themes: ThemeResult[] = [];
  const exact = new Map<string, number>();
  for (const theme of THEMES) {
    const factors: FactorResult[] = [];
    let weightSum = 0;
    let availableWeight = 0;
    let scoreSum = 0;
    for (const def of FACTORS) {
      if (def.theme !== theme.id) continue;
      weightSum += def.weight;
      const missing = def.needs.find((need) => !d.sensors[need]);
      const measured = missing ? { unavailable: NEED_REASONS[missing] } : MEASURES[def.key]!(d);
      if ('unavailable' in measured || !Number.isFinite(measured.value)) {
        factors.push({
          key: def.key,
          label: def.label,
          description: def.description,
          value: null,
          unit: def.unit,
          score: null,
          weight: def.weight,
          available: false,
          unavailableReason: 'unavailable' in measured ? measured.unavailable : 'the value could not be computed',
          eventIds: [],
        });
        continue;
      }
      const score = factorScore(def.mapping, measured.value);
      exact.set(def.key, score);
      availableWeight += def.weight;
      scoreSum += def.weight * score;
      factors.push({
        key: def.key,
        label: def.label,
        description: def.description,
        value: roundValue(measured.value),
        unit: def.unit,
        score: round1(score),
        weight: def.weight,
        available: true,
        eventIds: measured.eventIds ?? [],
      });
    }
    const available = availableWeight > 0 && availableWeight >= MIN_THEME_WEIGHT_SHARE * weightSum;
    themes.push({
      id: theme.id,
      label: theme.label,
      description: theme.description,
      themeScore: available ? round1(scoreSum / availableWeight) : null,
      weight: theme.weight,
      available,
      factors,
    });
    if (available) exact.set(`theme:${theme.id}`, scoreSum / availableWeight);
  }
  let weighted = 0;
  let totalWeight = 0;
  for (const t of themes) {
    if (!t.available) continue;
    weighted += t.weight * exact.get(`theme:${t.id}`)!;
    totalWeight += t.weight;
  }
  const overallScore = round1(Math.max(0, Math.min(100, totalWeight > 0 ? weighted / totalWeight : 0)));
  let weakest: ThemeResult | undefined;
  for (const t of themes) {
    if (!t.available) continue;
    if (
      !weakest ||
      t.themeScore! < weakest.themeScore! ||
      (t.themeScore === weakest.themeScore && t.weight > weakest.weight)
    ) {
      weakest = t;
    }
  }
  const weakestTheme = weakest ?? themes[0]!;
  return {
    themes,
    overallScore,
    tier: tierFor(overallScore),
    weakestTheme: { id: weakestTheme.id, label: weakestTheme.label },
    reasons: reasonsOf(themes, exact, totalWeight),
  };
}

/** The factors that cost the most overall points, in words (Damoov's "driving tips" pattern). */
function reasonsOf(themes: ThemeResult[], exact: Map<string, number>, totalThemeWeight: number): TripReason[] {
  const reasons: TripReason[] = [];
  for (const theme of themes) {
    if (!theme.available) continue;
    let themeWeight = 0;
    for (const f of theme.factors) if (f.available) themeWeight += f.weight;
    for (const f of theme.factors) {
      if (!f.available || f.weight === 0) continue;
      const lost = (theme.weight / totalThemeWeight) * (f.weight / themeWeight) * (100 - exact.get(f.key)!);
      if (lost < 0.5) continue;
      const events = f.eventIds.length > 0 ? `, ${f.eventIds.length} event${f.eventIds.length === 1 ? '' : 's'}` : '';
      reasons.push({
        themeId: theme.id,
        factorKey: f.key,
        pointsLost: round1(lost),
        text: `${theme.label} - ${f.label}: ${f.value} ${f.unit} scores ${f.score}${events}`,
        eventIds: f.eventIds,
      });
    }
  }
  reasons.sort((a, b) => b.pointsLost - a.pointsLost || a.factorKey.localeCompare(b.factorKey));
  return reasons.slice(0, 8);
}
