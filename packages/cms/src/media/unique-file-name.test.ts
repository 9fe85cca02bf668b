import { describe, expect, it } from 'vitest';
import { uniqueFileName } from './unique-file-name.ts';

describe('uniqueFileName', () => {
  it('keeps a free name and lower-cases the extension', () => {
    expect(uniqueFileName('Photo.JPG', [])).toBe('Photo.jpg');
  });

  it('appends -1, -2 ... while the name is taken', () => {
    expect(uniqueFileName('photo.jpg', ['photo.jpg'])).toBe('photo-1.jpg');
    expect(uniqueFileName('photo.jpg', ['photo.jpg', 'photo-1.jpg'])).toBe('photo-2.jpg');
  });

  it('treats names differing only in case as taken', () => {
    expect(uniqueFileName('PHOTO.jpg', ['photo.jpg'])).toBe('PHOTO-1.jpg');
  });

  it('always numbers names that look like generated sub-sizes', () => {
    expect(uniqueFileName('banner-300x200.jpg', [])).toBe('banner-300x200-1.jpg');
    expect(uniqueFileName('banner-scaled.jpg', [])).toBe('banner-scaled-1.jpg');
    expect(uniqueFileName('banner-rotated.png', [])).toBe('banner-rotated-1.png');
  });

  it('skips a name whose future sub-sizes would collide with existing files', () => {
    expect(uniqueFileName('photo.jpg', ['photo-150x150.jpg'])).toBe('photo-1.jpg');
    expect(uniqueFileName('photo.jpg', ['photo-scaled.jpg', 'photo-1-300x200.jpg'])).toBe('photo-2.jpg');
  });

  it('sanitises before making unique', () => {
    expect(uniqueFileName('../my file?.png', ['my-file.png'])).toBe('my-file-1.png');
  });

  it('numbers a name without an extension', () => {
    expect(uniqueFileName('README', ['README'])).toBe('README-1');
  });
});
