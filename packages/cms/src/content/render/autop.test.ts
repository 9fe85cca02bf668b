import { autop as wordpressAutop } from '@wordpress/autop';
import { describe, expect, it } from 'vitest';
import { autop } from './autop.ts';

describe('autop', () => {
  it('makes one paragraph of a single line of plain text exactly as wpautop does', () => {
    const lines = [
      'Benchmark post body.',
      'x',
      '  leading and trailing spaces  ',
      '\ttabs\tinside\t',
      'a > b and c & d &amp; e',
      'an entity&#8217;s apostrophe and a no-break\u00a0space',
      '\u00a0starts with a no-break space',
      'ends with a vertical tab\x0B',
      'words [&hellip;]',
      'a [caption]shortcode[/caption] in text',
      'émoji 🙂 and ünïcödé',
      '0',
    ];
    for (const line of lines) {
      expect(autop(line), JSON.stringify(line)).toBe(wordpressAutop(line));
      expect(autop(line, false), JSON.stringify(line)).toBe(wordpressAutop(line, false));
    }
  });

  it('gives white space, text with tags and text over several lines what wpautop gives', () => {
    for (const text of [' ', '\u00a0', '\u2028', 'two\nlines', 'a\r\nb', '<b>bold</b>', 'plain > text\n']) {
      expect(autop(text), JSON.stringify(text)).toBe(wordpressAutop(text));
    }
  });

  it('gives paragraphs alone what wpautop gives them, whatever white space is around them', () => {
    const inners = ['Benchmark post body.', ' spaced ', 'a > b &amp; c', 'tab\there', '\u00a0nbsp\u00a0', ' ', ''];
    const gaps = ['', '\n', '\n\n', ' ', '\t\n ', '\n \n'];
    let seed = 7;
    const pick = <T>(list: readonly T[]): T => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return list[seed % list.length] as T;
    };
    for (let i = 0; i < 400; i++) {
      let text = pick(gaps);
      const count = 1 + (i % 4);
      for (let j = 0; j < count; j++) text += `<p>${pick(inners)}</p>${pick(gaps)}`;
      expect(autop(text), JSON.stringify(text)).toBe(wordpressAutop(text));
      expect(autop(text, false), JSON.stringify(text)).toBe(wordpressAutop(text, false));
    }
  });
});
