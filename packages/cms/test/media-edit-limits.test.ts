/**
 * `POST /media/{id}/edit` holds the whole image raw in memory at each step: an author must not be able to make
 * one request take gigabytes (a tiny PNG of huge dimensions, or rotations that double the canvas each time).
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeImage } from './helpers/media-fixtures.ts';
import { createSiteTestCms, type SiteTestCms } from './helpers/site-test-app.ts';

let cms: SiteTestCms;
beforeAll(async () => {
  cms = await createSiteTestCms();
});
afterAll(async () => {
  await cms?.close();
});

async function upload(name: string, data: Buffer): Promise<{ id: number; source_url: string }> {
  const res = await cms.call({
    method: 'POST',
    url: '/cms-json/cms/v2/media',
    as: 'arthur',
    headers: { 'content-type': 'image/png', 'content-disposition': `attachment; filename="${name}"` },
    payload: data,
  });
  expect(res.statusCode).toBe(201);
  return res.json();
}

function edit(image: { id: number; source_url: string }, modifiers: unknown[]) {
  return cms.call({
    method: 'POST',
    url: `/cms-json/cms/v2/media/${image.id}/edit`,
    as: 'arthur',
    payload: { src: image.source_url, modifiers },
  });
}

describe('image edit limits', () => {
  it('refuses rotations whose canvas would pass 50 megapixels, before making it', async () => {
    const image = await upload('square.png', await makeImage(1000, 1000, 'png'));
    // Each 45° turn doubles the canvas: 1, 2, 4, ... 64 megapixels after six.
    const res = await edit(
      image,
      Array.from({ length: 6 }, () => ({ type: 'rotate', args: { angle: 45 } })),
    );
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'rest_image_too_large', data: { status: 400 } });
    expect(res.json().message).toMatch(/^Rotating by 45° would make an image of \d+ x \d+ pixels; .*50 megapixels/);

    const ok = await edit(image, [{ type: 'rotate', args: { angle: 45 } }]);
    expect(ok.statusCode).toBe(201);
  });

  it('refuses to edit an image over 50 megapixels, which a PNG of a few hundred KB can be', async () => {
    const big = await sharp({ create: { width: 8000, height: 8000, channels: 3, background: '#123456' } })
      .png({ compressionLevel: 9 })
      .toBuffer();
    expect(big.length).toBeLessThan(1024 * 1024);
    const image = await upload('huge.png', big);
    const res = await edit(image, [{ type: 'flip', args: { flip: { horizontal: true, vertical: false } } }]);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'rest_image_too_large',
      message: 'This image is too large to edit: 8000 x 8000 pixels; images are edited up to 50 megapixels.',
    });
  });

  it('refuses more than 20 modifiers in one edit', async () => {
    const image = await upload('many.png', await makeImage(50, 50, 'png'));
    const flip = { type: 'flip', args: { flip: { horizontal: true, vertical: false } } };
    const res = await edit(
      image,
      Array.from({ length: 21 }, () => flip),
    );
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'rest_invalid_param', data: { status: 400 } });
    expect(
      (
        await edit(
          image,
          Array.from({ length: 20 }, () => flip),
        )
      ).statusCode,
    ).toBe(201);
  });
});
