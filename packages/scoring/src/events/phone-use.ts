import {
  PHONE_CALL_HANDHELD,
  PHONE_DISTRACTING,
  PHONE_HANDLING,
  PHONE_SCREEN,
  type PhoneTimeline,
} from '../phone/phone-state.ts';
import { PHONE_BRIDGE_S, PHONE_MIN_KMH, PHONE_MIN_S } from '../thresholds.ts';
import type { Track } from '../track/track.ts';
import { type FoundEvent, positionAt, round } from './found-event.ts';

/** Phone use while moving: per-second flags of the scored seconds and the episodes. */
export interface PhoneUseAnalysis {
  /** 1 for seconds that count as phone use while moving (inside an episode, at >= 15 km/h). */
  scored: Uint8Array;
  episodes: FoundEvent[];
}

/**
 * Phone-use episodes: a distracting state (screen unlocked, handling, typing, handheld call) at 15 km/h or
 * more, pauses of up to 5 s bridged, kept when it lasts at least 3 s (MediRoutes, Damoov; hands-free calls
 * are not distracting).
 */
export function analysePhoneUse(track: Track, phone: PhoneTimeline): PhoneUseAnalysis {
  const n = track.n;
  const scored = new Uint8Array(n);
  const episodes: FoundEvent[] = [];
  if (!phone.available) return { scored, episodes };
  const active = (i: number) =>
    (phone.state[i]! & PHONE_DISTRACTING) !== 0 && track.speedMps[i]! * 3.6 >= PHONE_MIN_KMH;
  let i = 0;
  while (i < n) {
    if (!active(i)) {
      i++;
      continue;
    }
    let end = i;
    let j = i + 1;
    while (j < n && j - end - 1 <= PHONE_BRIDGE_S) {
      if (active(j)) end = j;
      j++;
    }
    let activeS = 0;
    let maxKmh = 0;
    let kinds = 0;
    for (let k = i; k <= end; k++) {
      if (!active(k)) continue;
      activeS++;
      maxKmh = Math.max(maxKmh, track.speedMps[k]! * 3.6);
      kinds |= phone.state[k]!;
    }
    if (activeS >= PHONE_MIN_S) {
      for (let k = i; k <= end; k++) if (active(k)) scored[k] = 1;
      const what: string[] = [];
      if (kinds & PHONE_SCREEN) what.push('screen');
      if (kinds & PHONE_HANDLING) what.push('handling');
      if (kinds & PHONE_CALL_HANDHELD) what.push('handheld_call');
      episodes.push({
        event: {
          type: 'phone_use',
          startMs: track.tMs[i]!,
          endMs: track.tMs[end]!,
          position: positionAt(track, i),
          severity: activeS >= 30 || maxKmh > 90 ? 'high' : activeS >= 10 ? 'medium' : 'low',
          value: activeS,
          unit: 's',
          source: 'phone',
          details: { kinds: what, startSpeedKmh: round(track.speedMps[i]! * 3.6, 1), maxSpeedKmh: round(maxKmh, 1) },
        },
        startS: i,
        peakS: i,
        endS: end,
      });
    }
    i = end + 1;
  }
  return { scored, episodes };
}
