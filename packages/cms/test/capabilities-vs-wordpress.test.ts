/**
 * Capability checks compared with WordPress itself: the oracle's PHP answers user_can() for every user
 * of its database against a sample of posts (each type x status x author combination) and for the
 * primitive and user/term meta capabilities; our Capabilities must give the same answer for the same
 * facts. Skipped when the oracle's WordPress (PHP + database) is not installed here.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Capabilities } from '../src/auth/capabilities.ts';
import { noContent, type PostCapInfo } from '../src/module.ts';

interface Oracle {
  users: Array<{ id: number; roles: string[] }>;
  posts: PostCapInfo[];
  checks: Array<[number, string, unknown[], boolean]>;
  options: Record<string, number>;
}

const script = fileURLToPath(new URL('./wordpress-php/capabilities.php', import.meta.url));

function loadOracle(): Oracle | string {
  if (!existsSync('/usr/share/wordpress/wp-load.php'))
    return 'WordPress is not installed (run ../shared/oracle/setup.sh)';
  try {
    const out = execFileSync('php', [script], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 60_000,
    });
    return JSON.parse(out) as Oracle;
  } catch {
    return 'the oracle WordPress could not be loaded (php or its database is not running)';
  }
}

const oracle = loadOracle();
const skip = typeof oracle === 'string' ? oracle : false;

describe.skipIf(skip)('capabilities agree with WordPress user_can()', () => {
  const data = oracle as Oracle;
  it(`gives WordPress's answer for every user x capability x post (${typeof oracle === 'string' ? 0 : data.checks.length} checks)`, async () => {
    const posts = new Map(data.posts.map((p) => [p.id, p]));
    const caps = new Capabilities({
      content: () => ({ ...noContent, getPostForCaps: async (id) => posts.get(id) ?? null }),
      option: async (name) => data.options[name],
      termTaxonomy: async (id) => (id === 1 ? 'category' : null),
    });
    const mismatches: string[] = [];
    for (const [userId, cap, args, expected] of data.checks) {
      const user = data.users.find((u) => u.id === userId)!;
      const actual = await caps.userCan({ id: user.id, login: `u${user.id}`, roles: user.roles }, cap, ...args);
      if (actual !== expected) {
        const post = posts.get(Number(args[0]));
        mismatches.push(
          `${user.roles[0]}#${userId} ${cap}(${args.join(',')}) ${post ? JSON.stringify(post) : ''}: ours ${actual}, WordPress ${expected}`,
        );
      }
    }
    expect(mismatches).toEqual([]);
  });
});
