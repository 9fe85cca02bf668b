import { beforeAll, describe, expect, it } from 'vitest';
import { runWordPress, wordpressPhpSkip } from '../../test/helpers/wordpress-php.ts';
import {
  removeAccents,
  sanitizeAnyTitleWithDashes,
  sanitizeTitle,
  sanitizeTitleForQuery,
  sanitizeTitleWithDashes,
  uniqueSlug,
} from './slugs.ts';

const TITLES = [
  'Hello World!',
  'Oracle Anchor Post: "Rich" Content & Friends',
  'Tom\'s "Quoted" Title & More -- Part 3...',
  'Ærøskøbing ß café 日本語 — 100%',
  'Über naïve façade – résumé',
  'already-a-slug',
  '  spaces   and\ttabs ',
  '<b>Bold</b> title',
  '50% off %20 encoded %zz',
  'Ação, coração e pão',
  'Đường phố Hà Nội',
  'Ελληνικά κείμενο',
  'Привет мир',
  'emoji 🚀 rocket',
  'a/b\\c.d,e;f:g',
  '3 × 4 = 12 © ® ™ …',
  '&amp; entities &nbsp; here',
  'x'.repeat(250),
  '日本'.repeat(40),
  'İstanbul ĞÜŞÖÇ ı',
  'Œuvre ŒœĲĳ ŉ ſ',
  'bench create 4242 17',
  '-Leading and trailing- ...',
  'a . b -- c__d',
  `${'Ab.'.repeat(70)} end`,
];

describe('slugs', () => {
  it('makes readable slugs from titles', () => {
    expect(sanitizeTitle('Oracle Anchor Post: "Rich" Content & Friends')).toBe(
      'oracle-anchor-post-rich-content-friends',
    );
    expect(sanitizeTitle('Café au lait')).toBe('cafe-au-lait');
    expect(sanitizeTitle('日本')).toBe('%e6%97%a5%e6%9c%ac');
  });

  it('gives plain titles (letters, digits, spaces, dots, dashes) the slug of the full rules', () => {
    const alphabet = 'aZ09 ._-';
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (let i = 0; i < 3000; i++) {
      const length = next() % 230;
      let title = '';
      for (let k = 0; k < length; k++) title += alphabet[next() % alphabet.length];
      for (const context of ['display', 'save', 'query'] as const) {
        expect(sanitizeTitleWithDashes(title, context), JSON.stringify(title)).toBe(
          sanitizeAnyTitleWithDashes(title, context),
        );
      }
    }
    expect(sanitizeTitle('Bench create 12 . 7 -- x')).toBe('bench-create-12-7-x');
  });

  it('numbers a taken slug -2, -3, ...', async () => {
    const taken = new Set(['hello', 'hello-2']);
    const slug = await uniqueSlug('hello', {
      status: 'publish',
      type: 'post',
      hierarchical: false,
      permalinkStructure: '/%postname%/',
      isTaken: async (s) => taken.has(s),
    });
    expect(slug).toBe('hello-3');
  });

  it('keeps draft slugs as given and refuses reserved and numeric slugs', async () => {
    const base = { type: 'post', hierarchical: false, permalinkStructure: '/%postname%/', isTaken: async () => false };
    expect(await uniqueSlug('hello', { ...base, status: 'draft' })).toBe('hello');
    expect(await uniqueSlug('feed', { ...base, status: 'publish' })).toBe('feed-2');
    expect(await uniqueSlug('2024', { ...base, status: 'publish' })).toBe('2024-2');
    expect(await uniqueSlug('page3', { ...base, type: 'page', hierarchical: true, status: 'publish' })).toBe('page3-2');
  });

  describe.skipIf(wordpressPhpSkip)('gives what WordPress gives', () => {
    let php: unknown[] = [];
    const latin: string[] = [];
    for (let c = 0xa0; c <= 0x24f; c++) latin.push(String.fromCodePoint(c));
    for (let c = 0x1ea0; c <= 0x1ef9; c++) latin.push(String.fromCodePoint(c));
    beforeAll(() => {
      php = runWordPress([
        ...TITLES.map((t) => ({ fn: 'sanitize_title', args: [t] })),
        ...TITLES.map((t) => ({ fn: 'sanitize_title_for_query', args: [t] })),
        ...latin.map((t) => ({ fn: 'remove_accents', args: [t] })),
      ]);
    });
    it.each(TITLES.map((t, i) => [i, t] as const))('sanitize_title %i', (i, title) => {
      expect(sanitizeTitle(title)).toBe(php[i]);
    });
    it.each(TITLES.map((t, i) => [i, t] as const))('sanitize_title_for_query %i', (i, title) => {
      expect(sanitizeTitleForQuery(title)).toBe(php[TITLES.length + i]);
    });
    it('remove_accents over the Latin letters', () => {
      const ours = latin.map((c) => removeAccents(c));
      const theirs = php.slice(TITLES.length * 2);
      const diffs = latin.filter((_c, i) => ours[i] !== theirs[i]).map((c, i) => `${c}:${ours[i]}/${theirs[i]}`);
      expect(diffs).toEqual([]);
    });
  });
});
