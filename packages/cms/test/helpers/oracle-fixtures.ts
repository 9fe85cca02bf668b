import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The WordPress oracle's captured responses (../shared/oracle/fixtures from the repository root). */
export const fixturesDir = fileURLToPath(new URL('../../../../../shared/oracle/fixtures/', import.meta.url));

/** Why the comparison with the oracle's fixtures cannot run, or false when it can. */
export const fixturesSkip: string | false = existsSync(`${fixturesDir}INDEX.md`)
  ? false
  : `the WordPress oracle fixtures are not at ${fixturesDir}`;

/** A fixture's JSON body. */
// biome-ignore lint/suspicious/noExplicitAny: fixtures are arbitrary captured JSON
export function fixture(name: string): any {
  return JSON.parse(readFileSync(`${fixturesDir}${name}.json`, 'utf8'));
}

/** A fixture's response headers, lower-cased names. */
export function fixtureHeaders(name: string): { status: number; headers: Record<string, string> } {
  const lines = readFileSync(`${fixturesDir}${name}.headers.txt`, 'utf8').split(/\r?\n/);
  const status = Number(/^HTTP\/[\d.]+ (\d+)/.exec(lines[0] ?? '')?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const at = line.indexOf(':');
    if (at > 0) headers[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
  }
  return { status, headers };
}
