import { beforeAll, describe, expect, it } from 'vitest';
import { runWordPress, wordpressPhpSkip } from '../../../test/helpers/wordpress-php.ts';
import { sanitizeUserUrl } from '../../auth/users-service.ts';
import { ksesData, ksesPost, sanitizeNameField } from './kses.ts';

const CASES = [
  '<p>plain <strong>bold</strong> and <em>em</em></p>',
  '<script>alert(1)</script><p>after</p>',
  '<p onclick="evil()" class="x" id="y">attrs</p>',
  '<a href="javascript:alert(1)">js</a> <a href="http://ok.test/">ok</a> <a href="mailto:a@b.test">m</a>',
  '<a href="jav&#x61;script:alert(1)">encoded</a>',
  '<img src="x.png" onerror="bad()" alt="a" width="10" height="10">',
  '<iframe src="http://evil.test"></iframe><object data="x"></object>',
  '<!-- wp:paragraph -->\n<p>block</p>\n<!-- /wp:paragraph -->',
  '<!-- comment with <script>x</script> inside -->',
  '<div style="color: red; position: fixed; background: url(javascript:x)">styled</div>',
  '<span style="color:blue">ok style</span>',
  '<p data-foo="1" data-bar-baz="2" data-="x" aria-label="l" role="note">data</p>',
  'a & b &amp; c &copy; &bogus; &#38; &#x26; &#0; 5 > 4 < 3',
  "<p title='single' lang=en>quotes</p>",
  '<br/><hr /><img src="a.png"/>',
  '<table><tr><td colspan="2" onmouseover="x">cell</td></tr></table>',
  '<ul><li>one</li></ul><ol start="3" reversed><li>x</li></ol>',
  '<form action="x"><input name="q"></form>',
  '<blockquote cite="http://x.test">q</blockquote>',
  '<a href="feed:javascript:alert(1)">feed</a>',
  '< p>spaced</ p>',
  '<p>unclosed <b',
  '<style>body{}</style><link rel="x">',
  '<svg onload="x"><circle/></svg>',
  'a < b and c<d',
  '5 < 6 & "quoted" \'single\' <b>x</b> 7 <8',
  'x <\n y <!-- c < d --> z',
];

describe('kses', () => {
  it('drops scripts, event handlers and javascript: URLs', () => {
    expect(ksesPost('<p onclick="x">a<script>b</script><a href="javascript:c">d</a></p>')).toBe(
      '<p>ab<a href="c">d</a></p>',
    );
  });

  it('keeps block delimiters', () => {
    const content = '<!-- wp:paragraph -->\n<p>x</p>\n<!-- /wp:paragraph -->';
    expect(ksesPost(content)).toBe(content);
  });

  it("keeps a '<' that opens no tag, as an entity (wp_pre_kses_less_than)", () => {
    expect(ksesData('5 < 6 & x')).toBe('5 &lt; 6 &amp; x');
    expect(ksesPost('a < b and c<d')).toBe('a &lt; b and c&lt;d');
  });

  it('allows only inline markup in titles', () => {
    expect(ksesData('<strong>A</strong> <h1>B</h1> <a href="http://x.test" class="c">l</a>')).toBe(
      '<strong>A</strong> B <a href="http://x.test">l</a>',
    );
  });

  describe.skipIf(wordpressPhpSkip)('gives what WordPress gives', () => {
    let post: unknown[] = [];
    let data: unknown[] = [];
    beforeAll(() => {
      const out = runWordPress([
        ...CASES.map((c) => ({ fn: 'wp_kses_post', args: [c] })),
        ...CASES.map((c) => ({ fn: 'wp_kses_data', args: [c] })),
      ]);
      post = out.slice(0, CASES.length);
      data = out.slice(CASES.length);
    });
    it.each(CASES.map((c, i) => [i, c] as const))('wp_kses_post %i', (i, input) => {
      expect(ksesPost(input)).toBe(post[i]);
    });
    it.each(CASES.map((c, i) => [i, c] as const))('wp_kses_data %i', (i, input) => {
      expect(ksesData(input)).toBe(data[i]);
    });
  });

  describe.skipIf(wordpressPhpSkip)('names and URLs get what WordPress stores for them', () => {
    const NAMES = [
      ...CASES,
      'A & B',
      'A &amp; B',
      'Tom\'s "x" &apos; &copy; &bogus; &#39; &#x26; a&b;c &AMP;',
      '  spaced\n\tout  ',
      'per%41cent 100%',
      'back\\slash \\"quoted\\"',
      'Émile & Ünïcode — ok',
    ];
    const URLS = ['http://x.test/?a=1&b=2', 'http://x.test/?a=1&amp;b=2', 'https://x.test/<b>p</b>?q="1"&r=\'2\''];
    let names: unknown[] = [];
    let urls: unknown[] = [];
    beforeAll(() => {
      const out = runWordPress([
        ...NAMES.map((c) => ({ fn: 'cms_pre_term_name', args: [c] })),
        ...URLS.map((c) => ({ fn: 'cms_pre_user_url', args: [c] })),
      ]);
      names = out.slice(0, NAMES.length);
      urls = out.slice(NAMES.length);
    });
    it.each(NAMES.map((c, i) => [i, c] as const))('pre_term_name / pre_user_display_name %i', (i, input) => {
      expect(sanitizeNameField(input)).toBe(names[i]);
    });
    it.each(URLS.map((c, i) => [i, c] as const))('pre_user_url %i', (i, input) => {
      expect(sanitizeUserUrl(input)).toBe(urls[i]);
    });
  });
});
