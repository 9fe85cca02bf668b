import { afterAll, describe, expect, it } from 'vitest';
import { connectRedis, RedisUnavailableError } from '../src/index.ts';
import { testRedis } from '../src/testing/index.ts';

const redis = testRedis();

describe.skipIf(redis.skip)(`test kit on ${redis.label}`, () => {
  afterAll(() => redis.cleanup());

  it('gives each test file a private key prefix and removes its keys afterwards', async () => {
    const client = await redis.connect();
    await client.set('counter', '1');
    await client.incr('counter');
    expect(await client.get('counter')).toBe('2');
    const raw = await connectRedis(redis.url);
    try {
      expect(await raw.get(`${redis.keyPrefix}counter`)).toBe('2');
      await redis.cleanup();
      expect(await raw.exists(`${redis.keyPrefix}counter`)).toBe(0);
    } finally {
      raw.disconnect();
    }
  });
});

describe('connectRedis', () => {
  it('fails fast with one line when Redis is unreachable', async () => {
    const err = await connectRedis('redis://:secretpw@127.0.0.1:1', { connectTimeoutMs: 1000 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RedisUnavailableError);
    expect((err as Error).message).toMatch(/^cannot connect to Redis at redis:\/\/:\[Redacted\]@127\.0\.0\.1:1/);
    expect((err as Error).message).not.toContain('secretpw');
  });
});
