import { describe, expect, it } from 'vitest';
import { removeAccents, sanitizeFileName } from './sanitize-file-name.ts';

describe('sanitizeFileName', () => {
  it('removes shell, URL and path characters and dashes whitespace like WordPress', () => {
    expect(sanitizeFileName('My Holiday (2024) #1!.jpg')).toBe('My-Holiday-2024-1.jpg');
    expect(sanitizeFileName('a   b\tc.png')).toBe('a-b-c.png');
    expect(sanitizeFileName('semi;colon,comma=equals.pdf')).toBe('semicoloncommaequals.pdf');
  });

  it('never returns a path: separators and dot segments are stripped', () => {
    expect(sanitizeFileName('../../etc/passwd')).toBe('etcpasswd');
    expect(sanitizeFileName('..\\..\\windows\\win.ini')).toBe('windowswin.ini');
    expect(sanitizeFileName('/abs/path.png')).toBe('abspath.png');
    expect(sanitizeFileName('a\0b.png')).toBe('ab.png');
  });

  it('trims dots, dashes and underscores at both ends and collapses dot runs', () => {
    expect(sanitizeFileName('..hidden.png')).toBe('hidden.png');
    expect(sanitizeFileName('--name__.png_')).toBe('name__.png');
    expect(sanitizeFileName('a...b.png')).toBe('a.b.png');
  });

  it('removes accents and transliterates ligatures', () => {
    expect(removeAccents('Crème brûlée Straße')).toBe('Creme brulee Strasse');
    expect(sanitizeFileName('Ærø smörgåsbord.jpg')).toBe('AEro-smorgasbord.jpg');
  });

  it('defuses unknown intermediate extensions so x.php.jpg is not served as PHP', () => {
    expect(sanitizeFileName('shell.php.jpg')).toBe('shell.php_.jpg');
    expect(sanitizeFileName('archive.tar.gz')).toBe('archive.tar.gz');
    expect(sanitizeFileName('v1.2.3.png')).toBe('v1.2.3.png');
  });

  it('names a bare extension unnamed-file', () => {
    expect(sanitizeFileName('png')).toBe('unnamed-file.png');
    expect(sanitizeFileName('.jpg')).toBe('unnamed-file.jpg');
  });

  it('keeps over-long names within limits and keeps the extension', () => {
    const result = sanitizeFileName(`${'x'.repeat(400)}.jpeg`);
    expect(Buffer.byteLength(result)).toBeLessThanOrEqual(180);
    expect(result.endsWith('.jpeg')).toBe(true);
  });
});
