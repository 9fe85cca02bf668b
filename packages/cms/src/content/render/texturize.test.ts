import { beforeAll, describe, expect, it } from 'vitest';
import { runEach, wordpressPhpSkip } from '../../../test/helpers/wordpress-php.ts';
import { texturize } from './texturize.ts';

const SHORTCODES = ['wp_caption', 'caption', 'gallery', 'playlist', 'audio', 'video', 'embed'];

const CASES = [
  `It's a "quote" -- with dashes... and 1/2 &amp; more`,
  `"Don't panic" -- it's only a test...`,
  `Tom's "Quoted" Title & More -- Part 3...`,
  `He said 'hello' and 'goodbye'.`,
  `The '90s were '99 and 'twas 'cause 'em.`,
  `9' tall and 12" wide; "42" and '0.42'`,
  `a---b a -- b a--b xn--domain - c`,
  `<p>It's <code>don't "touch"</code> but "this"</p>`,
  `<pre>"raw" -- 'text'</pre> after "it"`,
  `<a href="x?a=1&b=2" title="it's">link's & stuff</a>`,
  `<!-- a "comment" --> "text"`,
  `2x4 and 0x1234 and 10x10`,
  `Trademark (tm) here`,
  `[caption id="x"]It's a "caption"[/caption] and "more"`,
  `[code]"keep"[/code] "change"`,
  `&nbsp;"quoted" text`,
  `'single at start`,
  `end quote" here`,
  `"Nested 'quotes' work," he said.`,
  `He's 6'2" tall; the "9" and 5'.`,
  `multi\nline "quote"\n`,
  `Unicode: café, naïve, 日本語 "日本" — emoji 🚀 'x'`,
  `<kbd>Ctrl--C</kbd> <tt>'t'</tt> <style>a{content:"x"}</style>`,
  `"Hello," "world," "again."`,
  `'Twas the night - before`,
  `"a" 'b' "c' 'd"`,
  `<img src="a.png" alt="it's"/> it's`,
  `<p>Unterminated <b "tag`,
  `<!-- unterminated comment "x"`,
  `[[caption]] "escaped"`,
  `<code>nested <code>x</code> "y"</code> "z"`,
  `Rock 'n' roll, ''double'' and \`\`tick''`,
  `It’s already curly "and 'mixed'"`,
  `"quote at end"`,
  `(parenthetical 'quote') [bracket "quote"] {brace 'q'}`,
];

describe('texturize', () => {
  it('turns quotes, dashes and ellipses into typographic entities', () => {
    expect(texturize(`It's a "quote" -- with dashes... and 1/2 &amp; more`)).toBe(
      'It&#8217;s a &#8220;quote&#8221; &#8212; with dashes&#8230; and 1/2 &amp; more',
    );
  });

  it('leaves code elements, comments and tags alone but fixes bare ampersands in attributes', () => {
    expect(texturize('<code>"x"</code> "y"')).toBe('<code>"x"</code> &#8220;y&#8221;');
    expect(texturize('<!-- "c" --><a href="?a=1&b=2">x</a>')).toBe('<!-- "c" --><a href="?a=1&#038;b=2">x</a>');
  });

  describe.skipIf(wordpressPhpSkip)('gives what WordPress wptexturize gives', () => {
    let expected: unknown[] = [];
    beforeAll(() => {
      expected = runEach(
        'wptexturize',
        CASES.map((c) => [c]),
      );
    });
    it.each(CASES.map((c, i) => [i, c] as const))('case %i', (i, input) => {
      expect(texturize(input, SHORTCODES)).toBe(expected[i]);
    });
  });
});
