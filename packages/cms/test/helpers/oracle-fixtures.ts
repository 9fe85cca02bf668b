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

/** The live WordPress oracle's base URL (its setup script runs it on this machine). */
export const ORACLE_URL = process.env.WP_ORACLE_URL ?? 'http://127.0.0.1:8088';

/**
 * The oracle's administrator as a Basic authorization header, from the `.credentials` file its setup writes
 * beside the fixtures; null when there is none (the live comparisons then skip).
 */
export function oracleAuthorization(): string | null {
  const file = `${fixturesDir}../.credentials`;
  if (!existsSync(file)) return null;
  const vars = Object.fromEntries(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1).replace(/^['"]|['"]$/g, '')]),
  );
  return vars.WP_ADMIN_USER && vars.WP_APP_PASSWORD
    ? `Basic ${Buffer.from(`${vars.WP_ADMIN_USER}:${vars.WP_APP_PASSWORD}`).toString('base64')}`
    : null;
}

/** Whether the live oracle answers `path` (under /wp-json) within 5 seconds. */
export async function oracleAnswers(path = '/'): Promise<boolean> {
  try {
    return (await fetch(`${ORACLE_URL}/wp-json${path}`, { signal: AbortSignal.timeout(5000) })).ok;
  } catch {
    return false;
  }
}
