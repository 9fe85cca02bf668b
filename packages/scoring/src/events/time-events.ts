import type { EventType } from '../result.ts';
import {
  LATE_NIGHT_END_H,
  LATE_NIGHT_START_H,
  MAX_STINT_MIN,
  MOVING_KMH,
  NIGHT_END_H,
  NIGHT_START_H,
} from '../thresholds.ts';
import { inHourWindow } from '../time/local-clock.ts';
import type { Track } from '../track/track.ts';
import { type FoundEvent, positionAt, round } from './found-event.ts';

/**
 * Night (22:00-05:00) and late-night (00:00-04:00) driving as one event per contiguous stretch of the
 * trip inside the window, valued in moving minutes.
 */
export function detectNightEvents(track: Track, localHour: Float64Array): FoundEvent[] {
  return [
    ...windowEvents(track, localHour, 'night_driving', NIGHT_START_H, NIGHT_END_H, 'low'),
    ...windowEvents(track, localHour, 'late_night_driving', LATE_NIGHT_START_H, LATE_NIGHT_END_H, 'medium'),
  ];
}

function windowEvents(
  track: Track,
  localHour: Float64Array,
  type: EventType,
  from: number,
  to: number,
  severity: 'low' | 'medium',
): FoundEvent[] {
  const out: FoundEvent[] = [];
  let start = -1;
  let last = -1;
  let movingS = 0;
  const close = () => {
    if (start >= 0 && movingS >= 60) {
      const minutes = movingS / 60;
      out.push({
        event: {
          type,
          startMs: track.tMs[start]!,
          endMs: track.tMs[last]!,
          position: positionAt(track, start),
          severity: minutes >= 60 ? 'high' : severity,
          value: round(minutes, 1),
          unit: 'min',
          source: 'clock',
          details: { window: `${String(from).padStart(2, '0')}:00-${String(to).padStart(2, '0')}:00` },
        },
        startS: start,
        peakS: start,
        endS: last,
      });
    }
    start = -1;
    movingS = 0;
  };
  for (let i = 0; i < track.n; i++) {
    if (!inHourWindow(localHour[i]!, from, to)) {
      if (start >= 0) close();
      continue;
    }
    if (!(track.speedMps[i]! * 3.6 >= MOVING_KMH)) continue;
    if (start < 0) start = i;
    last = i;
    movingS++;
  }
  close();
  return out;
}

/**
 * Continuous driving beyond MAX_STINT_MIN without a break: one event from the moment the stint (including
 * the driving before this trip, `priorStintMin`) passes the limit to the end of the trip.
 */
export function detectContinuousDriving(track: Track, priorStintMin: number): FoundEvent[] {
  const totalMin = priorStintMin + (track.n - 1) / 60;
  if (totalMin <= MAX_STINT_MIN || track.n === 0) return [];
  const crossS = Math.max(0, Math.ceil((MAX_STINT_MIN - priorStintMin) * 60));
  const over = totalMin - MAX_STINT_MIN;
  return [
    {
      event: {
        type: 'continuous_driving',
        startMs: track.tMs[crossS]!,
        endMs: track.tMs[track.n - 1]!,
        position: positionAt(track, crossS),
        severity: over >= 60 ? 'high' : over >= 30 ? 'medium' : 'low',
        value: round(totalMin, 1),
        unit: 'min',
        source: 'clock',
        details: { priorStintMin: round(priorStintMin, 1), limitMin: MAX_STINT_MIN },
      },
      startS: crossS,
      peakS: track.n - 1,
      endS: track.n - 1,
    },
  ];
}
