import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Where WordPress's PHP source lives (the oracle's Debian package by default). */
export const wordpressRoot = process.env.WORDPRESS_ROOT ?? '/usr/share/wordpress';

const harness = fileURLToPath(new URL('../wordpress-php/harness.php', import.meta.url));

function phpAvailable(): boolean {
  try {
    execFileSync('php', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Why the differential tests against WordPress's PHP cannot run here, or false when they can. */
export const wordpressPhpSkip: string | false = !existsSync(`${wordpressRoot}/wp-includes/formatting.php`)
  ? `WordPress's PHP source is not installed at ${wordpressRoot} (install the oracle, or set WORDPRESS_ROOT)`
  : !phpAvailable()
    ? 'the php command is not installed'
    : false;

/** One call of a WordPress text function. */
export interface PhpCall {
  fn: string;
  args: unknown[];
}

/** Runs the calls through WordPress's own PHP functions and returns their results, in order. */
export function runWordPress(calls: PhpCall[]): unknown[] {
  const out = execFileSync('php', [harness, wordpressRoot], {
    input: JSON.stringify(calls),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(out) as unknown[];
}

/** Shorthand: the same one-argument function over many inputs. */
export function runEach(fn: string, inputs: unknown[][]): unknown[] {
  return runWordPress(inputs.map((args) => ({ fn, args })));
}
