export * from './test-databases.ts';
export * from './test-redis.ts';
