import { describe, expect, it } from 'vitest';
import { constrainDimensions, DEFAULT_IMAGE_SIZES, resizeDimensions, subsizeCreationOrder } from './image-sizes.ts';

describe('constrainDimensions', () => {
  it('fits inside the box keeping the aspect ratio', () => {
    expect(constrainDimensions(1200, 800, 300, 300)).toEqual([300, 200]);
    expect(constrainDimensions(800, 1200, 1024, 1024)).toEqual([683, 1024]);
    expect(constrainDimensions(465, 700, 177, 177)).toEqual([118, 177]);
  });

  it('treats zero as unbounded and never enlarges', () => {
    expect(constrainDimensions(1200, 800, 768, 0)).toEqual([768, 512]);
    expect(constrainDimensions(100, 50, 300, 300)).toEqual([100, 50]);
    expect(constrainDimensions(100, 50)).toEqual([100, 50]);
  });
});

describe('resizeDimensions', () => {
  it('makes the centred hard crop of a thumbnail', () => {
    expect(resizeDimensions(1200, 800, 150, 150, true)).toEqual({
      srcX: 200,
      srcY: 0,
      srcWidth: 800,
      srcHeight: 800,
      width: 150,
      height: 150,
    });
  });

  it('crops only the larger side when the image is smaller than the crop box in one direction', () => {
    // WordPress: a 600x100 image and a 150x150 crop give 150x100.
    expect(resizeDimensions(600, 100, 150, 150, true)).toMatchObject({ width: 150, height: 100 });
  });

  it('refuses to upscale and to make a copy within a pixel of the original', () => {
    expect(resizeDimensions(100, 80, 150, 150, true)).toBeUndefined();
    expect(resizeDimensions(1200, 800, 1536, 1536, false)).toBeUndefined();
    expect(resizeDimensions(1024, 683, 1024, 1024, false)).toBeUndefined();
    expect(resizeDimensions(700, 300, 768, 0, false)).toBeUndefined();
  });

  it('gives the default sizes of a 3000x2000 photo', () => {
    const sizes = Object.fromEntries(
      Object.entries(DEFAULT_IMAGE_SIZES).map(([name, s]) => {
        const plan = resizeDimensions(3000, 2000, s.width, s.height, s.crop);
        return [name, plan && `${plan.width}x${plan.height}`];
      }),
    );
    expect(sizes).toEqual({
      thumbnail: '150x150',
      medium: '300x200',
      medium_large: '768x512',
      large: '1024x683',
      '1536x1536': '1536x1024',
      '2048x2048': '2048x1365',
    });
  });
});

describe('subsizeCreationOrder', () => {
  it('creates medium, large, thumbnail, medium_large first, then the rest', () => {
    expect(subsizeCreationOrder(DEFAULT_IMAGE_SIZES)).toEqual([
      'medium',
      'large',
      'thumbnail',
      'medium_large',
      '1536x1536',
      '2048x2048',
    ]);
  });
});
