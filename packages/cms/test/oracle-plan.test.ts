import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { oraclePlan, PhpMtRand } from './helpers/oracle-plan.ts';
import { wordpressPhpSkip } from './helpers/wordpress-php.ts';

describe('the oracle seed plan', () => {
  it.skipIf(wordpressPhpSkip)("draws the same numbers as PHP's mt_rand", () => {
    const php = JSON.parse(
      execFileSync(
        'php',
        [
          '-r',
          'mt_srand(20240601); $o=[]; for($i=0;$i<2000;$i++) $o[]=mt_rand(0, ($i % 7) * 37 + 1); echo json_encode($o);',
        ],
        {
          encoding: 'utf8',
        },
      ),
    );
    const mt = new PhpMtRand(20240601);
    expect(Array.from({ length: 2000 }, (_, i) => mt.range(0, (i % 7) * 37 + 1))).toEqual(php);
  });

  it('plans the 1,000 posts, 14 others and 50 pages of the seed, with the anchor post', () => {
    const { plan, extra, pages, sticky } = oraclePlan();
    expect([plan.length, extra.length, pages.length]).toEqual([1000, 14, 50]);
    expect(plan[500]?.slug).toBe('oracle-anchor-post');
    expect(plan.filter((p) => p.content.includes('nebula'))).toHaveLength(100);
    expect(sticky).toEqual([42, 500, 995]);
    // The oracle's post 4 (the plan's first) is dated 2023-01-02T09:15:00.
    expect(plan[0]?.date).toBe('2023-01-02 09:15:00');
  });
});
