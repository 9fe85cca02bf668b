import { describe, expect, it } from 'vitest';
import { absint, isNumeric, parseList, parseQueryString, toInt } from './php.ts';

describe('PHP helpers', () => {
  it('parses query strings like parse_str, with [] lists and [key] maps', () => {
    expect(parseQueryString('a=1&b[]=2&b[]=3&c[x]=4&d')).toEqual({ a: '1', b: ['2', '3'], c: { x: '4' }, d: '' });
    expect(parseQueryString('categories[terms][]=3&categories[operator]=AND')).toEqual({
      categories: { terms: ['3'], operator: 'AND' },
    });
    expect(parseQueryString('s=a+b%20c&_embed')).toEqual({ s: 'a b c', _embed: '' });
    expect(parseQueryString('a.b=1')).toEqual({ a_b: '1' });
  });

  it('follows is_numeric and (int) casts', () => {
    expect(isNumeric('1e3')).toBe(true);
    expect(isNumeric('.5')).toBe(true);
    expect(isNumeric('0x1A')).toBe(false);
    expect(isNumeric('')).toBe(false);
    expect(toInt('12abc')).toBe(12);
    expect(toInt('-3.9')).toBe(-3);
    expect(absint('-7')).toBe(7);
  });

  it('splits lists like wp_parse_list', () => {
    expect(parseList('a, b  c,,d')).toEqual(['a', 'b', 'c', 'd']);
    expect(parseList(['a', { x: 1 }, 2])).toEqual(['a', 2]);
  });
});
