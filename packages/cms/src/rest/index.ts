/**
 * The REST kernel: a WordPress-compatible route registry, request/response model, argument validation,
 * response shaping and the HTTP binding. See README.md in this folder.
 */
export * from './controller.ts';
export * from './errors.ts';
export * from './fields.ts';
export * from './formatting.ts';
export * from './http.ts';
export * from './pagination.ts';
export * from './php.ts';
export * from './raw-json.ts';
export * from './request.ts';
export * from './response.ts';
export * from './route.ts';
export * from './schema.ts';
export * from './server.ts';
export * from './validation.ts';
