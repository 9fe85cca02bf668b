/**
 * What `npm run bench` measures. Each scenario is one request shape, run against our CMS and, when the
 * WordPress oracle runs on this machine, against WordPress with the same path in `wp` spelling. Part B
 * adds its posts scenarios here (one entry per shape) and its data through `prepare`.
 */
import type { BenchTarget } from './target.ts';

export interface Scenario {
  name: string;
  method: 'GET' | 'POST';
  /** Path under the API root, `cms` spelling (e.g. `/cms/v2/users`); mapped to `wp/v2` for the oracle. */
  path: string;
  /** Send the administrator's application password. */
  auth?: boolean;
  /** A JSON body per request (called for each request, so creates can be unique). */
  body?: (n: number) => Record<string, unknown>;
  /** Whether to run it against the oracle too (false for writes that would leave data behind). */
  oracle?: boolean;
}

/** Extra data a scenario needs on our side, created once before measuring. */
export async function prepare(target: BenchTarget): Promise<void> {
  // 30 categories (10 top-level, 2 children each) and 30 tags, like the oracle's seed.
  for (let i = 1; i <= 10; i++) {
    const parent = await target.post('/cms/v2/categories', { name: `bench section ${i}` });
    for (let j = 1; j <= 2; j++)
      await target.post('/cms/v2/categories', { name: `bench topic ${i}.${j}`, parent: parent.id });
  }
  for (let i = 1; i <= 30; i++) await target.post('/cms/v2/tags', { name: `bench tag ${i}` });
}

export const scenarios: Scenario[] = [
  { name: 'GET / (index)', method: 'GET', path: '/', oracle: true },
  { name: 'GET categories (per_page=10)', method: 'GET', path: '/cms/v2/categories', oracle: true },
  { name: 'GET tags?per_page=100', method: 'GET', path: '/cms/v2/tags?per_page=100', oracle: true },
  { name: 'GET users/me (auth)', method: 'GET', path: '/cms/v2/users/me?context=edit', auth: true, oracle: true },
  { name: 'GET users (auth, edit)', method: 'GET', path: '/cms/v2/users?context=edit', auth: true, oracle: true },
  {
    name: 'POST tags (create)',
    method: 'POST',
    path: '/cms/v2/tags',
    auth: true,
    body: (n) => ({ name: `bench create ${process.pid}-${Date.now()}-${n}` }),
    oracle: false,
  },
  // part B: posts scenarios (list 10/100, one post, search, context=edit, create) go here.
];
