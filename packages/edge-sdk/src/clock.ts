/**
 * The two clocks the SDK reads. `now` is the wall clock (epoch ms), which the user or NTP can step;
 * `monotonicMs` never goes backwards within a process and is what timers and back-off run on.
 * Tests pass a manual clock; hosts never need to.
 */
export interface Clock {
  now(): number;
  monotonicMs(): number;
}

/** The process clocks: `Date.now()` and `performance.now()`. */
export const systemClock: Clock = {
  now: () => Date.now(),
  monotonicMs: () => performance.now(),
};

/** Longest delay a Node timer holds (2^31 - 1 ms, 24.8 days); Node fires a longer one after 1 ms. */
export const MAX_TIMER_MS = 2_147_483_647;
