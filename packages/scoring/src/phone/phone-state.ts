import type { Sample } from '../telemetry.ts';

/** Per-second phone state on the track's 1 s grid (bit flags), from the phone events. */
export interface PhoneTimeline {
  /** True when phone use was monitored (events present, or the recorder says it watched). */
  available: boolean;
  /** Bit flags per grid second, see PHONE_* below. */
  state: Uint8Array;
  /** Grid seconds at which the phone was unlocked. */
  unlockSeconds: number[];
}

export const PHONE_SCREEN = 1; // screen on and unlocked
export const PHONE_HANDLING = 2; // handling or typing
export const PHONE_CALL_HANDHELD = 4;
export const PHONE_CALL_HANDS_FREE = 8;
/** The states that distract: everything except a hands-free call (Zendrive, MediRoutes, DriveWell FAQ). */
export const PHONE_DISTRACTING = PHONE_SCREEN | PHONE_HANDLING | PHONE_CALL_HANDHELD;

/**
 * Replays the phone events into per-second state. The state before the first event is "idle, locked";
 * an episode without its end event lasts to the end of the trip.
 */
export function buildPhoneTimeline(
  samples: readonly Sample[],
  t0Ms: number,
  n: number,
  monitored: boolean,
): PhoneTimeline {
  const state = new Uint8Array(n);
  const unlockSeconds: number[] = [];
  const events = samples.filter((s) => s.type === 'phone');
  if (events.length === 0) return { available: monitored, state, unlockSeconds };
  let screenOn = false;
  let unlocked = false;
  let handling = false;
  let typing = false;
  let call = false;
  let handsFree = false;
  const flags = () =>
    (screenOn && unlocked ? PHONE_SCREEN : 0) |
    (handling || typing ? PHONE_HANDLING : 0) |
    (call ? (handsFree ? PHONE_CALL_HANDS_FREE : PHONE_CALL_HANDHELD) : 0);
  let current = 0;
  let from = 0;
  const fill = (until: number) => {
    const end = Math.min(n, until);
    if (current !== 0) for (let i = Math.max(0, from); i < end; i++) state[i] = state[i]! | current;
    from = Math.max(from, end);
  };
  for (const e of events) {
    if (e.type !== 'phone') continue;
    // A second belongs to the state in force at its grid time (rounded to the nearest second).
    const second = Math.round((e.t - t0Ms) / 1000);
    fill(second);
    switch (e.event) {
      case 'screen_on':
        screenOn = true;
        break;
      case 'screen_off':
        screenOn = false;
        break;
      case 'unlock':
        unlocked = true;
        screenOn = true;
        if (second >= 0 && second < n) unlockSeconds.push(second);
        break;
      case 'lock':
        unlocked = false;
        break;
      case 'call_start':
        call = true;
        handsFree = e.handsFree === true;
        break;
      case 'call_end':
        call = false;
        handsFree = false;
        break;
      case 'handling_start':
        handling = true;
        break;
      case 'handling_end':
        handling = false;
        break;
      case 'typing_start':
        typing = true;
        break;
      case 'typing_end':
        typing = false;
        break;
    }
    current = flags();
  }
  fill(n);
  return { available: true, state, unlockSeconds };
}
