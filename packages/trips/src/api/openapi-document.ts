import { readFileSync } from 'node:fs';

/** Where the OpenAPI 3.1 document of `/v1` lives in the repository (it is served as is). */
export const OPENAPI_FILE = new URL('../../openapi/trips-v1.openapi.json', import.meta.url);

let cached: string | undefined;

/** The OpenAPI document's text, read once. */
export function openApiText(): string {
  cached ??= readFileSync(OPENAPI_FILE, 'utf8');
  return cached;
}
