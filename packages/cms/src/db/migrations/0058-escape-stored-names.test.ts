import { beforeAll, describe, expect, it } from 'vitest';
import { runWordPress, wordpressPhpSkip } from '../../../test/helpers/wordpress-php.ts';
import { sanitizeNameField } from '../../content/render/kses.ts';
import { filteredStoredName, storedUnfiltered } from './0058-escape-stored-names.ts';

/**
 * Names the save filter changes again when given what it stored: a character kses drops (a control
 * character, `&#0;`, a `< x>` that sanitize_text_field let through) leaves spaces or an octet that
 * sanitize_text_field, which ran before kses, would have removed.
 */
const NOT_IDEMPOTENT = ['a \x01 b', '%4\x011', 'a &#0; b', '%4&#0;1', '\x01 a', 'x < &amp;> y'];

/** Strings made of the pieces the filter treats specially, from a fixed seed (mulberry32). */
function samples(count: number): string[] {
  // Separated by '|', which is none of them.
  const pieces = (
    'a|B| |  |é|&|&amp;|&lt;|&gt;|&quot;|&apos;|&copy;|&bogus;|&#39;|&#039;|&#0;|&#x0;|&#x26;|&#99999999;|&AMP;|' +
    '&nbsp;|&#|#|;|amp|<|>|<b>|</b>|< b>|<>|<<|<\n|<!--|-->|<script>x</script>|<a href="q">|"|\'|%|41|%41|%4|%%|' +
    '\x01|\x0b|\x7f|\t|\n|\r|\\|\\0|\u00a0|\u2003|\ufeff'
  ).split('|');
  let seed = 20261121;
  const next = (n: number) => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) % n;
  };
  return Array.from({ length: count }, () =>
    Array.from({ length: 1 + next(8) }, () => pieces[next(pieces.length)]).join(''),
  );
}

describe('names stored before the save filter (migration 0058)', () => {
  it('the filter is not idempotent, so it cannot simply run again over every stored name', () => {
    for (const name of NOT_IDEMPOTENT) {
      const stored = sanitizeNameField(name);
      expect(sanitizeNameField(stored), JSON.stringify(name)).not.toBe(stored);
    }
  });

  it('never takes a name the filter stored for an unfiltered one', () => {
    const names = samples(30_000);
    const stored = names.map((name) => sanitizeNameField(name));
    expect(stored.filter((value) => storedUnfiltered(value))).toEqual([]);
    // Not a vacuous sample: most names need the filter, and some are changed again by it.
    expect(names.filter((name) => storedUnfiltered(name)).length).toBeGreaterThan(15_000);
    expect(stored.filter((value) => sanitizeNameField(value) !== value).length).toBeGreaterThan(100);
  });

  it('recognises names with a raw &, <, > or a character the filter drops', () => {
    for (const name of ['A & B', 'Tom <b>& Jerry</b>', 'a > b', 'x &apos; y', 'a&b;c', 'tab\there', 'nul\x00']) {
      expect(storedUnfiltered(name), JSON.stringify(name)).toBe(true);
    }
    // As the filter may have stored them (its own output for some name, or unchanged by it).
    for (const name of ['A &amp; B', 'Tom &copy; &#039;', 'a  b', '%41', ' lead', 'Émile', 'it\'s "it"']) {
      expect(storedUnfiltered(name), JSON.stringify(name)).toBe(false);
    }
  });

  it('stores what the filter stores, keeps a required name that would be empty, and fits the column', () => {
    expect(filteredStoredName('A & B', { required: true })).toBe('A &amp; B');
    expect(filteredStoredName('<b>Bold</b> & <i>x</i>', { required: true })).toBe('Bold &amp; x');
    expect(filteredStoredName('<b></b>', { required: false })).toBe('');
    expect(filteredStoredName('<b></b>', { required: true })).toBe('&lt;b&gt;&lt;/b&gt;');
    expect(filteredStoredName('<script>x</script>', { required: true })).toBe('&lt;script&gt;x&lt;/script&gt;');
    // 'x&' * 100 escapes to 600 characters: cut at 200, before the entity the cut would split.
    const cut = filteredStoredName('x&'.repeat(100), { required: true, width: 200 });
    expect(cut).toBe(`${'x&amp;'.repeat(33)}x`);
    expect(filteredStoredName('é'.repeat(300), { required: true, width: 250 })).toBe('é'.repeat(250));
  });

  describe.skipIf(wordpressPhpSkip)("WordPress's own filter", () => {
    let once: unknown[] = [];
    let twice: unknown[] = [];
    beforeAll(() => {
      once = runWordPress(NOT_IDEMPOTENT.map((name) => ({ fn: 'cms_pre_term_name', args: [name] })));
      twice = runWordPress(once.map((name) => ({ fn: 'cms_pre_term_name', args: [name] })));
    });
    it.each(NOT_IDEMPOTENT.map((name, i) => [i, name] as const))('is not idempotent either (%i)', (i, name) => {
      expect(once[i]).toBe(sanitizeNameField(name));
      expect(twice[i]).not.toBe(once[i]);
    });
  });
});
