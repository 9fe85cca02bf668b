import { beforeAll, describe, expect, it } from 'vitest';
import { runWordPress, wordpressPhpSkip } from '../../../test/helpers/wordpress-php.ts';
import { autop } from './autop.ts';
import { trimWords } from './content-renderer.ts';
import { convertChars, forceBalanceTags, normalizeWhitespace, stripAllTags } from './html.ts';
import { defaultShortcodes, ShortcodeRegistry } from './shortcodes.ts';
import { convertSmilies } from './smilies.ts';

const AUTOP = [
  'Hello\nworld\n\nPara two',
  '<div>text</div>\n\nafter',
  '<pre>a\n\nb</pre>\n\nc',
  'line<br>\n<br/>more',
  '<ul>\n<li>a</li>\n<li>b</li>\n</ul>',
  '<blockquote>q\n\nq2</blockquote>',
  '<p>already</p>\n\n<p>two</p>',
  '<script>a\nb</script>\n\ntext',
  '<select><option>a</option>\n<option>b</option></select>',
  '<figure><img src=x>\n<figcaption>c</figcaption></figure>',
  '<a href="x"\ntitle="y">l</a>',
  'text [caption]x[/caption]\n\nmore',
  '<hr>\nnext',
  '<hr />\n\nafter <hr class="x">y',
  'a\r\nb\r\n\r\nc',
  '  \n  ',
];

const STRIP = [
  '<p>a <b>b</b></p>',
  'a < b and c > d',
  '<a href="x>y">l</a>',
  '<!-- c -->t<!-- unterminated',
  '<script>x</script>y<style>z</style>',
  'x <br/>\n y\t\n',
  '<<b>>nested',
];

const BALANCE = [
  '<p>open <b>bold',
  '</p>stray close',
  '<div><p>a</div>',
  '<br>and<img src=x>',
  '<p><p>same',
  '<custom-el>x',
  'love <3 you',
  '<span><span>nest',
  '<hr/><div/>',
  '<div><span><b>x</i></span>y</b></div></div>',
  '<q><div><q>a</div></q>b</q>',
];

const WORDS = [
  ['one two three four', 2, ' [&hellip;]'],
  ['<p>one</p>\n<p>two three</p>', 5, '...'],
  ['  lots   of\n\nspace\there  ', 3, '&hellip;'],
  ['short', 55, ' [&hellip;]'],
  ['a b c', 0, ' [&hellip;]'],
] as const;

const SMILIES = [
  'hi :) there',
  ':-D start',
  'no:)space',
  '<code>:)</code> :)',
  'end ;)',
  ':mrgreen: and 8-)',
  'x :?: y',
];
const CHARS = ['a & b', 'a &amp; b', 'a &#38; b', '&copy; & &unknownentityname;', 'AT&T'];
const SHORTCODE_STRIP = [
  'a [caption id="x"]<img src="a">cap[/caption] b',
  'a [gallery ids="1,2"] b',
  'a [[caption]] b',
  'unregistered [foo] stays',
  '<p>[caption]x[/caption]</p>',
];
const UNAUTOP = [
  '<p>[caption]x[/caption]</p>',
  '<p> [gallery] </p>',
  '<p>text [caption]x[/caption]</p>',
  '<p>[foo]</p>',
];

describe('formatting helpers', () => {
  it('trims words and appends the more text only when cut', () => {
    expect(trimWords('one two three', 2, ' [&hellip;]')).toBe('one two [&hellip;]');
    expect(trimWords('one two', 2, ' [&hellip;]')).toBe('one two');
  });

  it('expands the caption shortcode into a figure', () => {
    const out = defaultShortcodes().expand(
      '[caption id="attachment_5" align="alignleft" width="300"]<img src="a.png" /> A cap[/caption]',
    );
    expect(out).toBe(
      '<figure id="attachment_5" aria-describedby="caption-attachment-5" style="width: 300px" class="wp-caption alignleft"><img src="a.png" /><figcaption id="caption-attachment-5" class="wp-caption-text">A cap</figcaption></figure>',
    );
  });

  it('leaves unregistered shortcodes as written', () => {
    expect(new ShortcodeRegistry().expand('[gallery ids="1"]')).toBe('[gallery ids="1"]');
  });

  // Each stray closing tag used to scan the whole stack of open tags: 200,000 of them took minutes.
  it('balances deep nesting with many stray closing tags', () => {
    const n = 200_000;
    const out = forceBalanceTags(`${'<div>'.repeat(n)}x${'</span>'.repeat(n)}${'</div>'.repeat(n - 1)}`);
    expect(out).toBe(`${'<div>'.repeat(n)}x${'</div>'.repeat(n)}`);
  });

  it('normalizes white space as WordPress compares revisions', () => {
    expect(normalizeWhitespace('  a \r\n\n b\t\tc ')).toBe('a \n b c');
  });

  describe.skipIf(wordpressPhpSkip)('gives what WordPress gives', () => {
    let php: Record<string, unknown[]> = {};
    beforeAll(() => {
      const all = [
        ...AUTOP.map((a) => ({ group: 'autop', fn: 'wpautop', args: [a] })),
        ...STRIP.map((a) => ({ group: 'strip', fn: 'wp_strip_all_tags', args: [a] })),
        ...BALANCE.map((a) => ({ group: 'balance', fn: 'force_balance_tags', args: [a] })),
        ...WORDS.map((a) => ({ group: 'words', fn: 'wp_trim_words', args: [...a] })),
        ...SMILIES.map((a) => ({ group: 'smilies', fn: 'convert_smilies', args: [a] })),
        ...CHARS.map((a) => ({ group: 'chars', fn: 'convert_chars', args: [a] })),
        ...SHORTCODE_STRIP.map((a) => ({ group: 'sc', fn: 'strip_shortcodes', args: [a] })),
        ...UNAUTOP.map((a) => ({ group: 'unautop', fn: 'shortcode_unautop', args: [a] })),
      ];
      const results = runWordPress(all.map(({ fn, args }) => ({ fn, args })));
      php = {};
      all.forEach((c, i) => {
        php[c.group] ??= [];
        php[c.group]?.push(results[i]);
      });
    });

    it.each(AUTOP.map((c, i) => [i, c] as const))('wpautop %i', (i, input) => {
      expect(autop(input)).toBe(php.autop?.[i]);
    });
    it.each(STRIP.map((c, i) => [i, c] as const))('wp_strip_all_tags %i', (i, input) => {
      expect(stripAllTags(input)).toBe(php.strip?.[i]);
    });
    it.each(BALANCE.map((c, i) => [i, c] as const))('force_balance_tags %i', (i, input) => {
      expect(forceBalanceTags(input)).toBe(php.balance?.[i]);
    });
    it.each(WORDS.map((c, i) => [i, c] as const))('wp_trim_words %i', (i, [text, n, more]) => {
      expect(trimWords(text, n, more)).toBe(php.words?.[i]);
    });
    it.each(SMILIES.map((c, i) => [i, c] as const))('convert_smilies %i', (i, input) => {
      expect(convertSmilies(input, 'http://example.test/wp-includes/images/smilies/')).toBe(php.smilies?.[i]);
    });
    it.each(CHARS.map((c, i) => [i, c] as const))('convert_chars %i', (i, input) => {
      expect(convertChars(input)).toBe(php.chars?.[i]);
    });
    it.each(SHORTCODE_STRIP.map((c, i) => [i, c] as const))('strip_shortcodes %i', (i, input) => {
      // The harness registers WordPress's default shortcodes, media ones included.
      const registry = defaultShortcodes();
      for (const tag of ['gallery', 'playlist', 'audio', 'video', 'embed']) registry.register(tag, () => '');
      expect(registry.strip(input)).toBe(php.sc?.[i]);
    });
    it.each(UNAUTOP.map((c, i) => [i, c] as const))('shortcode_unautop %i', (i, input) => {
      const registry = defaultShortcodes();
      for (const tag of ['gallery', 'playlist', 'audio', 'video', 'embed']) registry.register(tag, () => '');
      expect(registry.unautop(input)).toBe(php.unautop?.[i]);
    });
  });
});
