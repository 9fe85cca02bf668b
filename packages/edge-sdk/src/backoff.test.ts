import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, parseRetryAfterMs, retryDelayMs } from './backoff.ts';

describe('retryDelayMs (exponential back-off, full jitter)', () => {
  const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 1000, maxDelayMs: 60_000 };

  it('draws uniformly from a window that doubles per failure', () => {
    expect(retryDelayMs(1, policy, () => 0.999)).toBe(999);
    expect(retryDelayMs(3, policy, () => 0.5)).toBe(2000);
    expect(retryDelayMs(3, policy, () => 0)).toBe(0);
  });

  it('caps the window at maxDelayMs however many failures', () => {
    expect(retryDelayMs(40, policy, () => 0.999_999)).toBeLessThan(60_000);
    expect(retryDelayMs(40, policy, () => 0.5)).toBe(30_000);
  });

  it("never retries before the server's Retry-After, capped at maxRetryAfterMs", () => {
    expect(retryDelayMs(1, policy, () => 0, 7000)).toBe(7000);
    expect(retryDelayMs(10, policy, () => 0.9, 1000)).toBe(54_000);
    expect(retryDelayMs(1, { ...policy, maxRetryAfterMs: 10_000 }, () => 0, 86_400_000)).toBe(10_000);
  });
});

describe('parseRetryAfterMs', () => {
  const now = Date.UTC(2025, 0, 1, 12);
  it('reads delta-seconds and HTTP dates', () => {
    expect(parseRetryAfterMs('3', now)).toBe(3000);
    expect(parseRetryAfterMs(' 0 ', now)).toBe(0);
    expect(parseRetryAfterMs('Wed, 01 Jan 2025 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfterMs('Wed, 01 Jan 2025 11:00:00 GMT', now)).toBe(0);
  });
  it('ignores what it cannot read', () => {
    expect(parseRetryAfterMs(null, now)).toBeUndefined();
    expect(parseRetryAfterMs('soon', now)).toBeUndefined();
    expect(parseRetryAfterMs('-5', now)).toBeUndefined();
  });
});
