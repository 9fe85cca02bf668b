export * from './result.ts';
export * from './telemetry.ts';
export * from './validate.ts';
