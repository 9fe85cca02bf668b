import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeImage, makePdf } from '../../test/helpers/media-fixtures.ts';
import { MediaLibrary } from './media-library.ts';
import { LocalDiskStorage } from './storage.ts';

describe('MediaLibrary', () => {
  let root: string;
  let library: MediaLibrary;
  const now = new Date('2026-11-21T10:00:00Z');

  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'cms-media-'));
    library = new MediaLibrary({
      storage: new LocalDiskStorage({ root, baseUrl: 'http://site.test/cms-content/uploads' }),
      now: () => now,
      maxUploadBytes: 5 * 1024 * 1024,
    });
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const filesIn = async (dir: string) => (await readdir(path.join(root, dir))).sort();

  it('stores an upload under YYYY/MM with a sanitised, unique name', async () => {
    const bytes = await makeImage(40, 30, 'png');
    const first = await library.storeUpload(bytes, 'My Photo!.PNG');
    expect(first).toMatchObject({
      file: '2026/11/My-Photo.png',
      mime: 'image/png',
      url: 'http://site.test/cms-content/uploads/2026/11/My-Photo.png',
      title: 'My-Photo',
      filesize: bytes.byteLength,
    });
    const second = await library.storeUpload(bytes, 'My Photo!.PNG');
    expect(second.file).toBe('2026/11/My-Photo-1.png');
  });

  it('rejects empty, oversized and lying uploads without writing anything', async () => {
    await expect(library.storeUpload(Buffer.alloc(0), 'a.png')).rejects.toMatchObject({ code: 'rest_upload_no_data' });
    await expect(library.storeUpload(Buffer.alloc(6 * 1024 * 1024, 1), 'a.txt')).rejects.toMatchObject({
      code: 'rest_upload_file_too_big',
    });
    await expect(library.storeUpload(Buffer.from('#!/bin/sh\nrm -rf /'), 'evil.png')).rejects.toMatchObject({
      code: 'upload_type_mismatch',
    });
    await expect(readdir(root)).resolves.toEqual([]);
  });

  it('makes WordPress default sub-sizes of a JPEG, named {name}-{W}x{H}.jpg, in creation order', async () => {
    const stored = await library.storeUpload(await makeImage(1200, 800, 'jpeg'), 'landscape.jpg');
    const meta = await library.generateMetadata(stored.file, stored.mime);
    expect(meta).toMatchObject({ width: 1200, height: 800, file: '2026/11/landscape.jpg' });
    expect(Object.keys(meta.sizes ?? {})).toEqual(['medium', 'large', 'thumbnail', 'medium_large']);
    expect(meta.sizes?.thumbnail).toMatchObject({
      file: 'landscape-150x150.jpg',
      width: 150,
      height: 150,
      'mime-type': 'image/jpeg',
    });
    expect(meta.sizes?.medium).toMatchObject({ file: 'landscape-300x200.jpg', width: 300, height: 200 });
    expect(meta.sizes?.medium_large).toMatchObject({ file: 'landscape-768x512.jpg', width: 768, height: 512 });
    expect(meta.sizes?.large).toMatchObject({ file: 'landscape-1024x683.jpg', width: 1024, height: 683 });
    expect(meta.original_image).toBeUndefined();
    const thumb = await sharp(path.join(root, '2026/11/landscape-150x150.jpg')).metadata();
    expect([thumb.width, thumb.height, thumb.format]).toEqual([150, 150, 'jpeg']);
    expect(meta.sizes?.thumbnail?.filesize).toBeGreaterThan(0);
    expect(meta.image_meta).toMatchObject({ aperture: '0', orientation: '0', keywords: [] });
    expect(await filesIn('2026/11')).toEqual([
      'landscape-1024x683.jpg',
      'landscape-150x150.jpg',
      'landscape-300x200.jpg',
      'landscape-768x512.jpg',
      'landscape.jpg',
    ]);
  });

  it('scales a JPEG over 2560 px to a -scaled copy and keeps the upload as original_image', async () => {
    const stored = await library.storeUpload(await makeImage(3000, 2000, 'jpeg'), 'big.jpg');
    const meta = await library.generateMetadata(stored.file, stored.mime);
    expect(meta).toMatchObject({
      width: 2560,
      height: 1707,
      file: '2026/11/big-scaled.jpg',
      original_image: 'big.jpg',
    });
    expect(Object.fromEntries(Object.entries(meta.sizes ?? {}).map(([k, v]) => [k, v.file]))).toEqual({
      medium: 'big-300x200.jpg',
      large: 'big-1024x683.jpg',
      thumbnail: 'big-150x150.jpg',
      medium_large: 'big-768x512.jpg',
      '1536x1536': 'big-1536x1024.jpg',
      '2048x2048': 'big-2048x1365.jpg',
    });
    const scaled = await sharp(path.join(root, '2026/11/big-scaled.jpg')).metadata();
    expect([scaled.width, scaled.height]).toEqual([2560, 1707]);
  });

  it('does not scale big PNGs, as WordPress does not', async () => {
    const stored = await library.storeUpload(await makeImage(2700, 300, 'png'), 'wide.png');
    const meta = await library.generateMetadata(stored.file, stored.mime);
    expect(meta).toMatchObject({ width: 2700, height: 300, file: '2026/11/wide.png' });
    expect(meta.original_image).toBeUndefined();
    expect(meta.sizes?.['2048x2048']).toMatchObject({ file: 'wide-2048x228.png', 'mime-type': 'image/png' });
  });

  it('never upscales: a small image gets only the sizes it is larger than', async () => {
    const stored = await library.storeUpload(await makeImage(200, 120, 'gif'), 'small.gif');
    const meta = await library.generateMetadata(stored.file, stored.mime);
    expect(Object.keys(meta.sizes ?? {})).toEqual(['thumbnail']);
    expect(meta.sizes?.thumbnail).toMatchObject({
      width: 150,
      height: 120,
      file: 'small-150x120.gif',
      'mime-type': 'image/gif',
    });
  });

  it('handles WebP sub-sizes in WebP', async () => {
    const stored = await library.storeUpload(await makeImage(800, 600, 'webp'), 'pic.webp');
    const meta = await library.generateMetadata(stored.file, stored.mime);
    expect(meta.sizes?.medium).toMatchObject({ file: 'pic-300x225.webp', 'mime-type': 'image/webp' });
    expect((await sharp(path.join(root, '2026/11/pic-300x225.webp')).metadata()).format).toBe('webp');
  });

  it('rotates an EXIF-rotated JPEG into a -rotated copy with upright sub-sizes', async () => {
    const stored = await library.storeUpload(await makeImage(400, 200, 'jpeg', { orientation: 6 }), 'phone.jpg');
    const meta = await library.generateMetadata(stored.file, stored.mime);
    expect(meta).toMatchObject({
      width: 200,
      height: 400,
      file: '2026/11/phone-rotated.jpg',
      original_image: 'phone.jpg',
    });
    expect(meta.image_meta?.orientation).toBe('1');
    expect(meta.sizes?.medium).toMatchObject({ width: 150, height: 300, file: 'phone-150x300.jpg' });
  });

  it('reads EXIF into image_meta like wp_read_image_metadata', async () => {
    const bytes = await makeImage(60, 40, 'jpeg', {
      exif: {
        IFD0: {
          Artist: 'Ann Author',
          Copyright: '(c) Ann & Co',
          ImageDescription: 'Harbour at dawn',
          Model: 'CamX 100',
        },
        IFD2: {
          FNumber: '28/10',
          ExposureTime: '1/125',
          FocalLength: '50/1',
          ISOSpeedRatings: '200',
          DateTimeDigitized: '2024:05:06 07:08:09',
        },
      },
    });
    const stored = await library.storeUpload(bytes, 'exif.jpg');
    const meta = await library.generateMetadata(stored.file, stored.mime);
    expect(meta.image_meta).toEqual({
      aperture: '2.8',
      credit: 'Ann Author',
      camera: 'CamX 100',
      caption: 'Harbour at dawn',
      created_timestamp: String(Date.UTC(2024, 4, 6, 7, 8, 9) / 1000),
      copyright: '(c) Ann &amp; Co',
      focal_length: '50',
      iso: '200',
      shutter_speed: '0.008',
      title: 'Harbour at dawn',
      orientation: '1',
      keywords: [],
    });
  });

  it('gives a PDF only its file size', async () => {
    const stored = await library.storeUpload(makePdf(), 'Report 2026.pdf');
    expect(stored).toMatchObject({ file: '2026/11/Report-2026.pdf', mime: 'application/pdf' });
    expect(await library.generateMetadata(stored.file, stored.mime)).toEqual({ filesize: makePdf().byteLength });
  });

  it('makes missing sub-sizes on post-process and reports what was missing', async () => {
    const stored = await library.storeUpload(await makeImage(1200, 800, 'jpeg'), 'partial.jpg');
    const full = await library.generateMetadata(stored.file, stored.mime);
    const { thumbnail: _t, large: _l, ...rest } = full.sizes ?? {};
    const interrupted = { ...full, sizes: rest };
    expect(await library.missingSubsizes(stored.file, interrupted, stored.mime)).toEqual(['thumbnail', 'large']);
    const repaired = await library.createMissingSubsizes(stored.file, interrupted, stored.mime);
    expect(Object.keys(repaired.sizes ?? {}).sort()).toEqual(['large', 'medium', 'medium_large', 'thumbnail']);
    expect(await library.missingSubsizes(stored.file, repaired, stored.mime)).toEqual([]);
  });

  it('edits into a new -edited copy: flip, rotate, crop; the original is untouched', async () => {
    const stored = await library.storeUpload(await makeImage(400, 200, 'png'), 'edit-me.png');
    const meta = await library.generateMetadata(stored.file, stored.mime);
    const copy = await library.editImage({
      file: stored.file,
      meta,
      mime: stored.mime,
      src: stored.url,
      modifiers: [
        { type: 'rotate', args: { angle: 90 } },
        { type: 'crop', args: { left: 0, top: 0, width: 50, height: 50 } },
        { type: 'flip', args: { flip: { horizontal: true, vertical: false } } },
      ],
    });
    expect(copy.file).toBe('2026/11/edit-me-edited.png');
    expect(copy.metadata).toMatchObject({ width: 100, height: 200, file: '2026/11/edit-me-edited.png' });
    expect(copy.title).toBe('edit-me-edited');
    const original = await sharp(path.join(root, stored.file)).metadata();
    expect([original.width, original.height]).toEqual([400, 200]);

    // Editing again does not stack the suffix; it numbers instead.
    const again = await library.editImage({
      file: copy.file,
      meta: copy.metadata,
      mime: copy.mime,
      src: library.url(copy.file),
      modifiers: [{ type: 'flip', args: { flip: { horizontal: false, vertical: true } } }],
    });
    expect(again.file).toBe('2026/11/edit-me-edited-1.png');
  });

  it('rotates clockwise: a pixel at the top-left ends up at the top-right', async () => {
    const raw = Buffer.alloc(4 * 2 * 3, 0);
    raw.set([255, 0, 0], 0); // red top-left pixel of a 4x2 image
    const png = await sharp(raw, { raw: { width: 4, height: 2, channels: 3 } })
      .png()
      .toBuffer();
    const stored = await library.storeUpload(png, 'dot.png');
    const meta = await library.generateMetadata(stored.file, stored.mime);
    const copy = await library.editImage({
      file: stored.file,
      meta,
      mime: stored.mime,
      src: stored.url,
      modifiers: [{ type: 'rotate', args: { angle: 90 } }],
    });
    const { data, info } = await sharp(path.join(root, copy.file)).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([2, 4]);
    const topRight = (info.width - 1) * info.channels;
    expect([data[topRight], data[topRight + 1], data[topRight + 2]]).toEqual([255, 0, 0]);
  });

  it('flips as WordPress names it: vertical mirrors top to bottom, horizontal left to right', async () => {
    const raw = Buffer.alloc(3 * 2 * 3, 0);
    raw.set([255, 0, 0], 0); // red top-left pixel of a 3x2 image
    const png = await sharp(raw, { raw: { width: 3, height: 2, channels: 3 } })
      .png()
      .toBuffer();
    const stored = await library.storeUpload(png, 'flip.png');
    const meta = await library.generateMetadata(stored.file, stored.mime);
    const redAt = async (modifiers: Parameters<MediaLibrary['editImage']>[0]['modifiers']) => {
      const copy = await library.editImage({ file: stored.file, meta, mime: stored.mime, src: stored.url, modifiers });
      const { data, info } = await sharp(path.join(root, copy.file)).raw().toBuffer({ resolveWithObject: true });
      for (let i = 0; i < info.width * info.height; i++) {
        if (data[i * info.channels] === 255) return [i % info.width, Math.floor(i / info.width)];
      }
      return undefined;
    };
    expect(await redAt([{ type: 'flip', args: { flip: { horizontal: true, vertical: false } } }])).toEqual([2, 0]);
    expect(await redAt([{ type: 'flip', args: { flip: { horizontal: false, vertical: true } } }])).toEqual([0, 1]);
    expect(await redAt([{ type: 'flip', args: { flip: { horizontal: true, vertical: true } } }])).toEqual([2, 1]);
  });

  it('refuses an edit whose src is not one of the attachment files', async () => {
    const stored = await library.storeUpload(await makeImage(100, 100, 'png'), 'x.png');
    const meta = await library.generateMetadata(stored.file, stored.mime);
    await expect(
      library.editImage({
        file: stored.file,
        meta,
        mime: stored.mime,
        src: 'http://elsewhere.test/other.png',
        modifiers: [{ type: 'rotate', args: { angle: 90 } }],
      }),
    ).rejects.toMatchObject({ code: 'rest_unknown_attachment', status: 404 });
  });

  it('force delete removes the attached file, the original and every size', async () => {
    const stored = await library.storeUpload(await makeImage(3000, 2000, 'jpeg'), 'gone.jpg');
    const meta = await library.generateMetadata(stored.file, stored.mime);
    await library.storeUpload(await makeImage(10, 10, 'png'), 'neighbour.png');
    const removed = await library.deleteFiles(meta.file ?? stored.file, meta);
    expect(removed).toHaveLength(8);
    expect(await filesIn('2026/11')).toEqual(['neighbour.png']);
  });
});
