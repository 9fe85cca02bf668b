import { randomBytes } from 'node:crypto';
import { connectRedis, type Redis } from '../redis.ts';
import { servicesRequired } from './test-databases.ts';

/** A Redis for one test file: keys live under a private prefix that `cleanup()` deletes. */
export interface TestRedis {
  skip: string | false;
  label: string;
  url: string;
  /** Unique to this call, e.g. `test:1234:ab12cd34:`. */
  keyPrefix: string;
  /** A connected client; every client made here is closed by cleanup(). */
  connect(options?: { keyPrefix?: string }): Promise<Redis>;
  /** Deletes this file's keys and closes its clients. */
  cleanup(): Promise<void>;
}

/** Redis from `TEST_REDIS_URL`, or a skipped stand-in with the reason when it is not set. */
export function testRedis(): TestRedis {
  const url = process.env.TEST_REDIS_URL?.trim() ?? '';
  let skip: string | false = false;
  if (!url) {
    if (servicesRequired()) throw new Error('REQUIRE_TEST_SERVICES is set but TEST_REDIS_URL is not');
    skip = 'TEST_REDIS_URL is not set (e.g. redis://127.0.0.1:6379)';
  }
  const keyPrefix = `test:${process.pid}:${randomBytes(4).toString('hex')}:`;
  const clients: Redis[] = [];
  return {
    skip,
    label: skip ? `redis (skipped: ${skip})` : 'redis',
    url,
    keyPrefix,
    async connect(options = {}) {
      const client = await connectRedis(url, { keyPrefix: options.keyPrefix ?? keyPrefix });
      clients.push(client);
      return client;
    },
    async cleanup() {
      if (!skip) {
        const admin = await connectRedis(url);
        try {
          let cursor = '0';
          do {
            const [next, keys] = await admin.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 500);
            cursor = next;
            if (keys.length > 0) await admin.del(...keys);
          } while (cursor !== '0');
        } finally {
          admin.disconnect();
        }
      }
      for (const c of clients.splice(0)) c.disconnect();
    },
  };
}
