import { loadConfig } from '@svc/platform';
import { describe, expect, it } from 'vitest';
import { tripsConfigSpec } from './config.ts';
import { databaseOptionsFor } from './service/database-location.ts';

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

  it('reads window sums on 1 thread unless TRIPS_READ_THREADS gives 0 to 64, naming the variable otherwise', () => {
    expect(loadConfig(tripsConfigSpec, { env: {} }).readThreads).toBe(1);
    expect(loadConfig(tripsConfigSpec, { env: { TRIPS_READ_THREADS: '0' } }).readThreads).toBe(0);
    expect(loadConfig(tripsConfigSpec, { env: { TRIPS_READ_THREADS: '64' } }).readThreads).toBe(64);
    for (const bad of ['-1', '65', '1.5', 'two']) {
      expect(() => loadConfig(tripsConfigSpec, { env: { TRIPS_READ_THREADS: bad } })).toThrow(
        /TRIPS_READ_THREADS must be an integer between 0 and 64/,
      );
    }
  });

  it('keeps 10 PostgreSQL connections per environment unless TRIPS_DATABASE_POOL_SIZE gives 1 to 500', () => {
    const cfg = (env: Record<string, string>) => loadConfig(tripsConfigSpec, { env });
    expect(cfg({}).databasePoolSize).toBe(10);
    const url = 'postgres://app@db.internal:5432/trips';
    const big = cfg({ TRIPS_DATABASE_POOL_SIZE: '40', TRIPS_DATABASE_URL: url });
    expect(big.databasePoolSize).toBe(40);
    expect(databaseOptionsFor(big, 'production')).toMatchObject({ url, poolSize: 40 });
    expect(databaseOptionsFor(big, 'sandbox')).toMatchObject({ url, pgSchema: 'trips_sandbox', poolSize: 40 });
    for (const bad of ['0', '501', '2.5', 'ten']) {
      expect(() => cfg({ TRIPS_DATABASE_POOL_SIZE: bad })).toThrow(
        /TRIPS_DATABASE_POOL_SIZE must be an integer between 1 and 500/,
      );
    }
  });

  it('keeps location data for good unless TRIPS_LOCATION_RETENTION_DAYS gives whole days from 1 to 36500', () => {
    expect(loadConfig(tripsConfigSpec, { env: {} }).locationRetentionDays).toBeUndefined();
    expect(loadConfig(tripsConfigSpec, { env: { TRIPS_LOCATION_RETENTION_DAYS: '180' } }).locationRetentionDays).toBe(
      180,
    );
    for (const bad of ['0', '-5', '36501', '1.5', '180d']) {
      expect(() => loadConfig(tripsConfigSpec, { env: { TRIPS_LOCATION_RETENTION_DAYS: bad } })).toThrow(
        /TRIPS_LOCATION_RETENTION_DAYS must be a whole number of days from 1 to 36500/,
      );
    }
  });

  it('takes TRIPS_PUBLIC_URL and TRIPS_SANDBOX_PUBLIC_URL as http(s) base URLs, refusing anything else', () => {
    const config = loadConfig(tripsConfigSpec, {
      env: { TRIPS_PUBLIC_URL: 'https://api.example.com/trips/', TRIPS_SANDBOX_PUBLIC_URL: 'http://10.0.0.5:8081' },
    });
    expect(config.publicUrl).toBe('https://api.example.com/trips');
    expect(config.sandboxPublicUrl).toBe('http://10.0.0.5:8081');
    expect(loadConfig(tripsConfigSpec, { env: {} }).publicUrl).toBeUndefined();
    for (const bad of [
      'api.example.com',
      'ftp://api.example.com',
      'https://api.example.com/?x=1',
      'https://u:p@h.example',
    ]) {
      expect(() => loadConfig(tripsConfigSpec, { env: { TRIPS_PUBLIC_URL: bad } })).toThrow(
        /TRIPS_PUBLIC_URL must be an http:\/\/ or https:\/\/ base URL/,
      );
    }
  });
});
