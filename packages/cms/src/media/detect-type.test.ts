import { describe, expect, it } from 'vitest';
import { makeImage, makePdf } from '../../test/helpers/media-fixtures.ts';
import { detectUploadType } from './detect-type.ts';

describe('detectUploadType', () => {
  it('accepts real JPEG, PNG, WebP, GIF and PDF files named as what they are', async () => {
    expect(await detectUploadType(await makeImage(20, 10, 'jpeg'), 'a.jpeg')).toEqual({
      ext: 'jpeg',
      mime: 'image/jpeg',
    });
    expect(await detectUploadType(await makeImage(20, 10, 'png'), 'a.PNG')).toEqual({ ext: 'png', mime: 'image/png' });
    expect(await detectUploadType(await makeImage(20, 10, 'webp'), 'a.webp')).toEqual({
      ext: 'webp',
      mime: 'image/webp',
    });
    expect(await detectUploadType(await makeImage(20, 10, 'gif'), 'a.gif')).toEqual({ ext: 'gif', mime: 'image/gif' });
    expect(await detectUploadType(makePdf(), 'doc.pdf')).toEqual({ ext: 'pdf', mime: 'application/pdf' });
  });

  it('accepts text formats whose bytes are text', async () => {
    expect(await detectUploadType(Buffer.from('a,b\n1,2\n'), 'data.csv')).toEqual({ ext: 'csv', mime: 'text/csv' });
    expect(await detectUploadType(Buffer.from('héllo'), 'notes.txt')).toEqual({ ext: 'txt', mime: 'text/plain' });
  });

  it('rejects files that lie about their type', async () => {
    await expect(detectUploadType(Buffer.from('<?php system($_GET[1]);'), 'cat.jpg')).rejects.toMatchObject({
      code: 'upload_type_mismatch',
    });
    await expect(detectUploadType(await makeImage(20, 10, 'png'), 'photo.jpg')).rejects.toThrow(
      /named as image\/jpeg but its content is image\/png/,
    );
    await expect(detectUploadType(makePdf(), 'notes.txt')).rejects.toMatchObject({ code: 'upload_type_mismatch' });
    await expect(detectUploadType(Buffer.from([0, 1, 2, 3, 0, 0]), 'data.csv')).rejects.toMatchObject({
      code: 'upload_type_mismatch',
    });
  });

  it('rejects types that may not be uploaded', async () => {
    await expect(detectUploadType(Buffer.from('<html></html>'), 'page.html')).rejects.toMatchObject({
      code: 'upload_type_not_allowed',
    });
    await expect(detectUploadType(Buffer.from('MZ'), 'tool.exe')).rejects.toMatchObject({
      code: 'upload_type_not_allowed',
    });
    await expect(detectUploadType(Buffer.from('x'), 'noextension')).rejects.toMatchObject({
      code: 'upload_type_not_allowed',
    });
  });
});
