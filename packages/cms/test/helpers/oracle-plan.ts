/**
 * The WordPress oracle's seed plan (../shared/oracle/seed.php) without any I/O: PHP's mt_rand seeded
 * with 20240601 (MT19937 with PHP's range reduction) and the same sequence of draws, so the titles,
 * texts, dates, terms and authors come out exactly as the oracle's. Used by the comparison tests and
 * the benchmark's data.
 */

/** PHP's mt_rand (MT19937, PHP 7.1+) with mt_rand(min, max)'s uniform range reduction. */
export class PhpMtRand {
  readonly #s = new Uint32Array(624);
  #i = 624;

  constructor(seed: number) {
    const s = this.#s;
    s[0] = seed >>> 0;
    for (let i = 1; i < 624; i++) {
      const prev = s[i - 1] as number;
      s[i] = (Math.imul(1812433253, prev ^ (prev >>> 30)) + i) >>> 0;
    }
  }

  #reload(): void {
    const s = this.#s;
    const mix = (u: number, v: number) => ((u & 0x80000000) | (v & 0x7fffffff)) >>> 0;
    const twist = (m: number, u: number, v: number) => (m ^ (mix(u, v) >>> 1) ^ (-(v & 1) & 0x9908b0df)) >>> 0;
    let i = 0;
    for (; i < 624 - 397; i++) s[i] = twist(s[i + 397] as number, s[i] as number, s[i + 1] as number);
    for (; i < 623; i++) s[i] = twist(s[i + 397 - 624] as number, s[i] as number, s[i + 1] as number);
    s[623] = twist(s[396] as number, s[623] as number, s[0] as number);
    this.#i = 0;
  }

  /** A full 32-bit output. */
  next(): number {
    if (this.#i >= 624) this.#reload();
    let y = this.#s[this.#i++] as number;
    y ^= y >>> 11;
    y = (y ^ ((y << 7) & 0x9d2c5680)) >>> 0;
    y = (y ^ ((y << 15) & 0xefc60000)) >>> 0;
    return (y ^ (y >>> 18)) >>> 0;
  }

  /** mt_rand( min, max ). */
  range(min: number, max: number): number {
    let umax = (max - min) >>> 0;
    let r = this.next();
    if (umax === 0xffffffff) return min + r;
    umax += 1;
    if ((umax & (umax - 1)) !== 0) {
      const limit = 0xffffffff - (0xffffffff % umax) - 1;
      while (r > limit) r = this.next();
      return min + (r % umax);
    }
    return min + ((r & (umax - 1)) >>> 0);
  }
}

const WORDS = (
  'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor ' +
  'incididunt ut labore et dolore magna aliqua enim ad minim veniam quis nostrud exercitation ' +
  'ullamco laboris nisi aliquip ex ea commodo consequat duis aute irure in reprehenderit voluptate ' +
  'velit esse cillum fugiat nulla pariatur excepteur sint occaecat cupidatat non proident sunt culpa ' +
  'qui officia deserunt mollit anim id est laborum river mountain garden window signal harbor lantern ' +
  'meadow copper silver orbit comet planet engine circuit network server packet browser kernel ' +
  'cache index query schema vector matrix pixel canvas melody rhythm harvest winter summer autumn ' +
  'spring island desert forest valley bridge tunnel castle market village'
).split(' ');

export const CATEGORIES: Array<[slug: string, name: string, parent: string | null, description: string]> = [
  ['news', 'News', null, 'Announcements and current events.'],
  ['technology', 'Technology', null, 'Software, hardware and the web.'],
  ['web', 'Web', 'technology', ''],
  ['mobile', 'Mobile', 'technology', ''],
  ['ai', 'Artificial Intelligence', 'technology', 'Machine learning & friends.'],
  ['science', 'Science', null, 'Research notes.'],
  ['physics', 'Physics', 'science', ''],
  ['biology', 'Biology', 'science', ''],
  ['culture', 'Culture', null, ''],
  ['travel', 'Travel', null, 'Places "worth" visiting.'],
];

export const TAGS = [
  'php',
  'javascript',
  'typescript',
  'rest',
  'json',
  'http',
  'database',
  'caching',
  'performance',
  'security',
  'testing',
  'design',
  'ux',
  'accessibility',
  'mobile first',
  'cloud',
  'linux',
  'devops',
  'open source',
  'tutorial',
  'review',
  'opinion',
  'interview',
  'release',
  'guide',
  'tips',
  'history',
  'future',
  'research',
  'community',
];

/** The oracle's users, in id order: login, role, display name. */
export const ORACLE_USERS: Array<[login: string, role: string, display: string]> = [
  ['admin', 'administrator', 'admin'],
  ['edna', 'editor', 'Edna Editor'],
  ['arthur', 'author', 'Arthur Author'],
  ['ava', 'author', 'Ava Writes'],
  ['conrad', 'contributor', 'Conrad Contributor'],
];

interface PlannedPost {
  k: number;
  title: string;
  slug?: string;
  content: string;
  excerpt: string;
  date: string;
  modified: string | null;
  cats: string[];
  tags: string[];
  author: string;
  commentStatus: string;
  password: string;
}

/** gmdate( "Y-m-d H:i:s", seconds ). */
export function gmdate(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 19).replace('T', ' ');
}

const ucfirst = (s: string) => (s === '' ? s : s[0]!.toUpperCase() + s.slice(1));

/** The seed's plan: posts, extra posts and pages, drawn from the same random sequence. */
export function oraclePlan() {
  const mt = new PhpMtRand(20240601);
  const R = (a: number, b: number) => mt.range(a, b);
  const pick = (n: number) => Array.from({ length: n }, () => WORDS[R(0, WORDS.length - 1)] as string);
  const sentence = (min: number, max: number) => `${ucfirst(pick(R(min, max)).join(' '))}.`;
  const paragraph = (nebula = false) => {
    const n = R(2, 5);
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(sentence(6, 16));
    if (nebula) out[R(0, n - 1)] = `The nebula glowed over the ${sentence(3, 6).toLowerCase()}`;
    return out.join(' ');
  };
  const title = () => ucfirst(pick(R(3, 7)).join(' '));
  const catSlugs = CATEGORIES.map((c) => c[0]);
  const base = Date.UTC(2023, 0, 2, 9, 0, 0) / 1000;
  const plan: PlannedPost[] = [];
  for (let k = 0; k < 1000; k++) {
    const ts = base + k * 8 * 3600 + R(0, 59) * 60;
    const classic = k % 7 === 6;
    const nebula = k % 10 === 3;
    const paras: string[] = [];
    const np = R(2, 6);
    for (let p = 0; p < np; p++) paras.push(paragraph(nebula && p === 0));
    let content: string;
    if (classic) content = paras.join('\n\n');
    else {
      const blocks: string[] = [];
      paras.forEach((p, i) => {
        if (i === 1 && k % 10 === 0) blocks.push(`<!-- wp:heading -->\n<h2>${title()}</h2>\n<!-- /wp:heading -->`);
        blocks.push(`<!-- wp:paragraph -->\n<p>${p}</p>\n<!-- /wp:paragraph -->`);
      });
      if (k % 25 === 0) {
        const items = pick(3).map((w) => `<li>${w}</li>`);
        blocks.push(`<!-- wp:list -->\n<ul>${items.join('')}</ul>\n<!-- /wp:list -->`);
      }
      if (k % 40 === 0) {
        blocks.push(
          `<!-- wp:quote -->\n<blockquote class="wp-block-quote"><p>"Don't panic" -- it's only a test...</p></blockquote>\n<!-- /wp:quote -->`,
        );
      }
      content = blocks.join('\n\n');
    }
    let t = title();
    if (k % 50 === 7) t = `Tom's "Quoted" Title & More -- Part ${Math.floor(k / 50)}...`;
    let cats = [catSlugs[R(0, catSlugs.length - 1)] as string];
    if (R(1, 10) <= 3) cats.push(catSlugs[R(0, catSlugs.length - 1)] as string);
    if (k % 97 === 5) cats = [];
    const tags: string[] = [];
    const nt = R(0, 4);
    for (let i = 0; i < nt; i++) tags.push(TAGS[R(0, TAGS.length - 1)] as string);
    const roll = R(1, 10);
    const author = roll <= 4 ? 'admin' : roll <= 6 ? 'edna' : roll <= 8 ? 'arthur' : 'ava';
    const excerpt = k % 3 === 0 ? sentence(8, 14) : '';
    const modified = k % 5 === 0 ? gmdate(ts + R(1, 30) * 86400 + R(0, 3600)) : null;
    plan.push({
      k,
      title: t,
      content,
      excerpt,
      date: gmdate(ts),
      modified,
      cats: [...new Set(cats)],
      tags: [...new Set(tags)],
      author,
      commentStatus: k % 11 === 0 ? 'closed' : 'open',
      password: k === 123 || k === 777 ? 'secret' : '',
    });
  }
  const anchor = plan[500]!;
  Object.assign(anchor, {
    title: 'Oracle Anchor Post: "Rich" Content & Friends',
    slug: 'oracle-anchor-post',
    author: 'admin',
    cats: ['technology', 'web'],
    tags: ['rest', 'json', 'testing'],
    excerpt: "A hand-written excerpt with an apostrophe: it's here.",
    commentStatus: 'open',
    password: '',
    content: [
      '<!-- wp:paragraph -->\n<p>Intro paragraph with <strong>bold</strong>, <em>emphasis</em> and an <a href="http://127.0.0.1:8088/sample-page/">internal link</a>.</p>\n<!-- /wp:paragraph -->',
      '<!-- wp:heading -->\n<h2>Section "One"</h2>\n<!-- /wp:heading -->',
      '<!-- wp:list -->\n<ul><li>first item</li><li>second item</li></ul>\n<!-- /wp:list -->',
      '<!-- wp:more -->\n<!--more-->\n<!-- /wp:more -->',
      '<!-- wp:quote -->\n<blockquote class="wp-block-quote"><p>It\'s a "quote" -- with dashes... and 1/2 &amp; more</p><cite>Someone</cite></blockquote>\n<!-- /wp:quote -->',
      '<!-- wp:code -->\n<pre class="wp-block-code"><code>const x = a &lt; b &amp;&amp; c &gt; d;</code></pre>\n<!-- /wp:code -->',
      '<!-- wp:separator -->\n<hr class="wp-block-separator has-alpha-channel-opacity"/>\n<!-- /wp:separator -->',
      '<!-- wp:paragraph -->\n<p>Unicode: café, naïve, 日本語, emoji 🚀.</p>\n<!-- /wp:paragraph -->',
    ].join('\n\n'),
  });
  const extra: Array<[status: string, title: string, author: string, date: string, body?: string]> = [
    ['draft', 'Draft: unfinished thoughts', 'admin', '2024-01-05 10:00:00'],
    ['draft', 'Draft: outline for next week', 'edna', '2024-01-06 11:00:00'],
    ['draft', 'Draft: notes on caching', 'arthur', '2024-01-07 12:00:00'],
    ['draft', 'Draft: travel diary', 'ava', '2024-01-08 13:00:00'],
    ['draft', 'Draft: first contribution', 'conrad', '2024-01-09 14:00:00'],
    ['draft', 'Draft: another idea', 'admin', '2024-01-10 15:00:00'],
    ['pending', 'Pending: review me please', 'conrad', '2024-01-11 09:00:00'],
    ['pending', 'Pending: second submission', 'conrad', '2024-01-12 09:00:00'],
    ['pending', 'Pending: a guest post', 'conrad', '2024-01-13 09:00:00'],
    ['private', 'Private: internal memo', 'admin', '2023-06-01 08:00:00'],
    ['private', 'Private: admin scratchpad', 'admin', '2023-07-01 08:00:00'],
    ['private', 'Private: editor notes', 'edna', '2023-08-01 08:00:00'],
    ['future', 'Scheduled: the future is now', 'admin', '2030-01-01 12:00:00'],
    ['future', 'Scheduled: see you in 2031', 'edna', '2031-06-15 12:00:00'],
  ];
  for (const e of extra) e[4] = `<!-- wp:paragraph -->\n<p>${paragraph()}</p>\n<!-- /wp:paragraph -->`;
  const parents = [
    'About',
    'Services',
    'Products',
    'Support',
    'Company',
    'Careers',
    'Press',
    'Resources',
    'Legal',
    'Community',
  ];
  const pages: Array<{ title: string; parent: string | null; order: number; content: string }> = [];
  parents.forEach((pt, i) => {
    pages.push({ title: pt, parent: null, order: i, content: paragraph() });
    for (let c = 1; c <= 4; c++) {
      const childTitle = `${pt}: ${ucfirst(pick(2).join(' '))}`;
      pages.push({ title: childTitle, parent: pt, order: c, content: `${paragraph()}\n\n${paragraph()}` });
    }
  });
  return { plan, extra, pages, sticky: [42, 500, 995] };
}
