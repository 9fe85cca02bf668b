export * from './tcp-relay.ts';
export * from './test-databases.ts';
export * from './test-redis.ts';
