import { loadConfig } from '@svc/platform';
import { describe, expect, it } from 'vitest';
import { tripsConfigSpec } from './config.ts';

describe('trips configuration', () => {
  it('takes 1 to 64 API workers and rejects anything else naming the variable', () => {
    expect(loadConfig(tripsConfigSpec, { env: {} }).apiWorkers).toBe(1);
    expect(loadConfig(tripsConfigSpec, { env: { TRIPS_API_WORKERS: '4' } }).apiWorkers).toBe(4);
    for (const bad of ['0', '65', '1000', '2.5', 'two']) {
      expect(() => loadConfig(tripsConfigSpec, { env: { TRIPS_API_WORKERS: bad } })).toThrow(
        /TRIPS_API_WORKERS must be an integer between 1 and 64/,
      );
    }
  });
});
