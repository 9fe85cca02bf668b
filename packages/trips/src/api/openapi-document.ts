import { readFileSync } from 'node:fs';

/** Where the OpenAPI 3.1 document of `/v1` lives in the repository (it is served as is). */
export const OPENAPI_FILE = new URL('../../openapi/trips-v1.openapi.json', import.meta.url);

let cached: string | undefined;

/** The OpenAPI document's text, read once. */
export function openApiText(): string {
  cached ??= readFileSync(OPENAPI_FILE, 'utf8');
  return cached;
}

/** Base URLs clients reach each environment at, as a served document names them. */
export interface ServerUrls {
  production?: string | undefined;
  sandbox?: string | undefined;
}

/**
 * The document as this service serves it: the `servers` variables' defaults name where its two environments
 * are reached (TRIPS_PUBLIC_URL and TRIPS_SANDBOX_PUBLIC_URL, else the ports they listen on), so that Swagger UI
 * or a Postman import calls this service, not the repository's defaults (ports 3000 and 3001). Built once per app.
 */
export function servedOpenApiText(urls: ServerUrls): string {
  if (!urls.production && !urls.sandbox) return openApiText();
  const doc = JSON.parse(openApiText()) as {
    servers: { variables?: Record<string, { default: string }> }[];
  };
  for (const server of doc.servers) {
    const variables = server.variables ?? {};
    if (urls.production && variables.base_url) variables.base_url.default = urls.production;
    if (urls.sandbox && variables.sandbox_base_url) variables.sandbox_base_url.default = urls.sandbox;
  }
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/**
 * Where a client on this machine reaches an API listening on `host`:`port` (`undefined` for port 0, which is
 * only known once listening): a wildcard interface is reached at the loopback address.
 */
export function localBaseUrl(host: string, port: number): string | undefined {
  if (port === 0) return undefined;
  const reach = host === '0.0.0.0' ? '127.0.0.1' : host === '::' || host === '[::]' ? '::1' : host;
  return `http://${reach.includes(':') && !reach.startsWith('[') ? `[${reach}]` : reach}:${port}`;
}
