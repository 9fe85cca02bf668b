import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeImage, makePdf } from './helpers/media-fixtures.ts';
import { createSiteTestCms, type SiteTestCms, UPLOAD_MONTH } from './helpers/site-test-app.ts';

let cms: SiteTestCms;
beforeAll(async () => {
  cms = await createSiteTestCms();
});
afterAll(async () => {
  await cms?.close();
});

/** Builds a multipart body with one `file` part and optional fields. */
function multipart(file: { name: string; type: string; data: Buffer }, fields: Record<string, string> = {}) {
  const boundary = `----cms${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`,
    ),
    file.data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

async function uploadRaw(
  name: string,
  type: string,
  data: Buffer,
  as: 'admin' | 'arthur' | 'conrad' | 'sam' = 'admin',
  query = '',
) {
  return cms.call({
    method: 'POST',
    url: `/cms-json/cms/v2/media${query}`,
    as,
    headers: { 'content-type': type, 'content-disposition': `attachment; filename="${name}"` },
    payload: data,
  });
}

describe('POST /cms/v2/media (uploads)', () => {
  it('accepts a multipart JPEG, makes WordPress sub-sizes and answers 201 with the attachment in edit context', async () => {
    const { payload, headers } = multipart(
      { name: 'Harbour View.jpg', type: 'image/jpeg', data: await makeImage(1200, 800, 'jpeg') },
      { title: 'The harbour', alt_text: 'Boats in a harbour', caption: 'At dawn' },
    );
    const res = await cms.call({ method: 'POST', url: '/cms-json/cms/v2/media', as: 'admin', headers, payload });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(res.headers.location).toBe(`http://cms.test/cms-json/cms/v2/media/${body.id}`);
    expect(res.headers['x-cms-upload-attachment-id']).toBe(String(body.id));
    expect(body).toMatchObject({
      type: 'attachment',
      status: 'inherit',
      slug: 'the-harbour',
      title: { raw: 'The harbour', rendered: 'The harbour' },
      alt_text: 'Boats in a harbour',
      caption: { raw: 'At dawn', rendered: '<p>At dawn</p>\n' },
      description: { raw: '' },
      media_type: 'image',
      mime_type: 'image/jpeg',
      post: null,
      source_url: `http://cms.test/cms-content/uploads/${UPLOAD_MONTH}/Harbour-View.jpg`,
      missing_image_sizes: [],
    });
    const details = body.media_details;
    expect(details).toMatchObject({ width: 1200, height: 800, file: `${UPLOAD_MONTH}/Harbour-View.jpg` });
    expect(Object.keys(details.sizes)).toEqual(['medium', 'large', 'thumbnail', 'medium_large', 'full']);
    expect(details.sizes.thumbnail).toEqual({
      file: 'Harbour-View-150x150.jpg',
      width: 150,
      height: 150,
      filesize: expect.any(Number),
      mime_type: 'image/jpeg',
      source_url: `http://cms.test/cms-content/uploads/${UPLOAD_MONTH}/Harbour-View-150x150.jpg`,
    });
    expect(details.sizes.full).toEqual({
      file: 'Harbour-View.jpg',
      width: 1200,
      height: 800,
      mime_type: 'image/jpeg',
      source_url: `http://cms.test/cms-content/uploads/${UPLOAD_MONTH}/Harbour-View.jpg`,
    });
    expect(details.image_meta).toMatchObject({ aperture: '0', keywords: [] });
    expect(existsSync(path.join(cms.uploadsDir, UPLOAD_MONTH, 'Harbour-View-768x512.jpg'))).toBe(true);
  });

  it('accepts raw PNG, WebP and GIF bodies named by Content-Disposition', async () => {
    for (const [format, mime] of [
      ['png', 'image/png'],
      ['webp', 'image/webp'],
      ['gif', 'image/gif'],
    ] as const) {
      const res = await uploadRaw(`pic.${format}`, mime, await makeImage(400, 300, format));
      expect(res.statusCode, format).toBe(201);
      expect(res.json()).toMatchObject({
        mime_type: mime,
        media_type: 'image',
        title: { raw: 'pic' },
        media_details: { width: 400, height: 300 },
      });
      expect(res.json().media_details.sizes.medium.file).toBe(`pic-300x225.${format}`);
    }
  });

  it('stores a PDF as a file with only its size in media_details', async () => {
    const pdf = makePdf();
    const res = await uploadRaw('Annual Report.pdf', 'application/pdf', pdf);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      media_type: 'file',
      mime_type: 'application/pdf',
      title: { raw: 'Annual-Report' },
      media_details: { filesize: pdf.length, sizes: {} },
    });
  });

  it('scales an image over 2560 px to -scaled and keeps the original', async () => {
    const res = await uploadRaw('huge.jpg', 'image/jpeg', await makeImage(3000, 2000, 'jpeg'));
    expect(res.statusCode).toBe(201);
    const details = res.json().media_details;
    expect(details).toMatchObject({
      width: 2560,
      height: 1707,
      file: `${UPLOAD_MONTH}/huge-scaled.jpg`,
      original_image: 'huge.jpg',
    });
    expect(res.json().source_url).toBe(`http://cms.test/cms-content/uploads/${UPLOAD_MONTH}/huge-scaled.jpg`);
    expect(details.sizes['2048x2048'].file).toBe('huge-2048x1365.jpg');
  });

  it('rejects a file that lies about its type, and writes nothing', async () => {
    const before = await readdir(path.join(cms.uploadsDir, UPLOAD_MONTH));
    const res = await uploadRaw('innocent.jpg', 'image/jpeg', Buffer.from('<?php echo shell_exec($_GET["c"]); ?>'));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'rest_upload_sideload_error', data: { status: 400 } });
    const png = multipart({ name: 'photo.jpg', type: 'image/jpeg', data: await makeImage(20, 20, 'png') });
    const res2 = await cms.call({ method: 'POST', url: '/cms-json/cms/v2/media', as: 'admin', ...png });
    expect(res2.json()).toMatchObject({ code: 'rest_upload_unknown_error' });
    expect(res2.json().message).toContain('image/png');
    const html = await uploadRaw('page.html', 'text/html', Buffer.from('<script>alert(1)</script>'));
    expect(html.json().code).toBe('rest_upload_sideload_error');
    expect(await readdir(path.join(cms.uploadsDir, UPLOAD_MONTH))).toEqual(before);
  });

  it('reports missing data, type, disposition and bad hashes with WordPress codes', async () => {
    const none = await cms.call({ method: 'POST', url: '/cms-json/cms/v2/media', as: 'admin' });
    expect(none.json()).toMatchObject({ code: 'rest_upload_no_data', data: { status: 400 } });
    const noDisposition = await cms.call({
      method: 'POST',
      url: '/cms-json/cms/v2/media',
      as: 'admin',
      headers: { 'content-type': 'image/png' },
      payload: await makeImage(10, 10, 'png'),
    });
    expect(noDisposition.json().code).toBe('rest_upload_no_content_disposition');
    const badDisposition = await cms.call({
      method: 'POST',
      url: '/cms-json/cms/v2/media',
      as: 'admin',
      headers: { 'content-type': 'image/png', 'content-disposition': 'attachment' },
      payload: await makeImage(10, 10, 'png'),
    });
    expect(badDisposition.json().code).toBe('rest_upload_invalid_disposition');
    const hash = await cms.call({
      method: 'POST',
      url: '/cms-json/cms/v2/media',
      as: 'admin',
      headers: {
        'content-type': 'image/png',
        'content-disposition': 'attachment; filename=a.png',
        'content-md5': 'abc',
      },
      payload: await makeImage(10, 10, 'png'),
    });
    expect(hash.statusCode).toBe(412);
    expect(hash.json().code).toBe('rest_upload_hash_mismatch');
  });

  it('needs upload_files: anonymous and subscribers are refused, authors may upload', async () => {
    const anonymous = await cms.call({
      method: 'POST',
      url: '/cms-json/cms/v2/media',
      headers: { 'content-type': 'image/png', 'content-disposition': 'attachment; filename=a.png' },
      payload: await makeImage(10, 10, 'png'),
    });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().code).toBe('rest_cannot_create');
    const subscriber = await uploadRaw('a.png', 'image/png', await makeImage(10, 10, 'png'), 'sam');
    expect(subscriber.statusCode).toBe(403);
    const contributor = await uploadRaw('c.png', 'image/png', await makeImage(10, 10, 'png'), 'conrad');
    expect(contributor.statusCode).toBe(403);
    const author = await uploadRaw('by-author.png', 'image/png', await makeImage(10, 10, 'png'), 'arthur');
    expect(author.statusCode).toBe(201);
    expect(author.json().author).toBe(cms.ids.arthur);
  });

  it('uses EXIF title and caption as defaults', async () => {
    const jpeg = await makeImage(50, 40, 'jpeg', {
      exif: { IFD0: { ImageDescription: 'Lighthouse at night', Artist: 'Ann' } },
    });
    const res = await uploadRaw('IMG_0001.jpg', 'image/jpeg', jpeg);
    expect(res.json()).toMatchObject({
      title: { raw: 'Lighthouse at night' },
      caption: { raw: 'Lighthouse at night' },
      media_details: { image_meta: { credit: 'Ann', title: 'Lighthouse at night' } },
    });
  });
});

describe('GET /cms/v2/media', () => {
  it('lists attachments (status inherit by default) with X-CMS-Total and filters by media_type and mime_type', async () => {
    const all = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/media?per_page=100' });
    expect(all.statusCode).toBe(200);
    const total = Number(all.headers['x-cms-total']);
    expect(total).toBeGreaterThanOrEqual(8);
    expect(all.json().every((m: { status: string }) => m.status === 'inherit')).toBe(true);
    const images = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/media?media_type=image&per_page=100' });
    expect(images.json().every((m: { mime_type: string }) => m.mime_type.startsWith('image/'))).toBe(true);
    const apps = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/media?media_type=application' });
    expect(apps.json().map((m: { mime_type: string }) => m.mime_type)).toEqual(['application/pdf']);
    const gifs = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/media?mime_type=image/gif' });
    expect(gifs.json().map((m: { mime_type: string }) => m.mime_type)).toEqual(['image/gif']);
    const bad = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/media?media_type=spreadsheet' });
    expect(bad.json()).toMatchObject({
      code: 'rest_invalid_param',
      data: { status: 400, params: { media_type: expect.any(String) } },
    });
  });

  it('finds attachments by title and by file name', async () => {
    const byTitle = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/media?search=harbour' });
    expect(byTitle.json().map((m: { title: { rendered: string } }) => m.title.rendered)).toContain('The harbour');
    const byFile = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/media?search=Harbour-View' });
    expect(byFile.json()).toHaveLength(1);
  });

  it('refuses private and trash statuses to visitors', async () => {
    // As in WordPress, a refused status is an invalid parameter carrying the rest_forbidden_status details.
    const res = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/media?status=trash' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'rest_invalid_param',
      data: { params: { status: 'Status is forbidden.' }, details: { status: { code: 'rest_forbidden_status' } } },
    });
    const admin = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/media?status=trash', as: 'admin' });
    expect(admin.statusCode).toBe(200);
  });

  it('shows view context fields without raw values, embed context smaller', async () => {
    const list = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/media?per_page=1&search=harbour' });
    const item = list.json()[0];
    expect(item.title).toEqual({ rendered: 'The harbour' });
    expect(item.caption).toEqual({ rendered: '<p>At dawn</p>\n' });
    expect(item.missing_image_sizes).toBeUndefined();
    expect(Object.keys(item._links)).toEqual(
      expect.arrayContaining(['self', 'collection', 'about', 'author', 'replies']),
    );
    expect(item._links['version-history']).toBeUndefined();
    const embed = await cms.call({ method: 'GET', url: `/cms-json/cms/v2/media/${item.id}?context=embed` });
    expect(Object.keys(embed.json())).toEqual([
      'id',
      'date',
      'slug',
      'type',
      'link',
      'title',
      'author',
      'featured_media',
      'caption',
      'alt_text',
      'media_type',
      'mime_type',
      'media_details',
      'source_url',
      '_links',
    ]);
  });
});

describe('updating, post-process, edit and delete', () => {
  it('updates title, caption, description, alt_text and post; refuses a revision or attachment as parent', async () => {
    const created = (await uploadRaw('upd.png', 'image/png', await makeImage(40, 40, 'png'))).json();
    const post = await cms.call({
      method: 'POST',
      url: '/cms-json/cms/v2/posts',
      as: 'admin',
      payload: { title: 'Host', status: 'publish' },
    });
    const res = await cms.call({
      method: 'POST',
      url: `/cms-json/cms/v2/media/${created.id}`,
      as: 'admin',
      payload: {
        title: 'New title',
        caption: 'Cap',
        description: '<b>Desc</b>',
        alt_text: 'Alt',
        post: post.json().id,
      },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      title: { raw: 'New title' },
      caption: { raw: 'Cap' },
      description: { raw: '<b>Desc</b>' },
      alt_text: 'Alt',
      post: post.json().id,
    });
    // The attachment page's image (prepend_attachment) comes before the description, as in WordPress.
    expect(res.json().description.rendered).toMatch(
      /^<p class="attachment"><a href='[^']+upd\.png'><img width="40" height="40" src="[^"]+upd\.png" class="attachment-medium size-medium" alt="Alt" decoding="async" loading="lazy" \/><\/a><\/p>\n<p><b>Desc<\/b><\/p>\n$/,
    );
    expect(res.json()._links['cms:attached-to'][0].href).toBe(
      `http://cms.test/cms-json/cms/v2/posts/${post.json().id}`,
    );
    const other = (await uploadRaw('other.png', 'image/png', await makeImage(20, 20, 'png'))).json();
    const bad = await cms.call({
      method: 'POST',
      url: `/cms-json/cms/v2/media/${created.id}`,
      as: 'admin',
      payload: { post: other.id },
    });
    expect(bad.json()).toMatchObject({
      code: 'rest_invalid_param',
      message: 'Invalid parent type.',
      data: { status: 400 },
    });
  });

  it('post-process create-image-subsizes makes the sizes an interrupted upload lacks', async () => {
    const created = (await uploadRaw('partial.jpg', 'image/jpeg', await makeImage(1200, 800, 'jpeg'))).json();
    const repo = cms.site.content.service.repo;
    const meta = (await repo.getMeta(created.id, '_wp_attachment_metadata')) as { sizes: Record<string, unknown> };
    const { thumbnail: _t, ...rest } = meta.sizes;
    await repo.setMeta(created.id, '_wp_attachment_metadata', { ...meta, sizes: rest });
    const before = await cms.call({
      method: 'GET',
      url: `/cms-json/cms/v2/media/${created.id}?context=edit`,
      as: 'admin',
    });
    expect(before.json().missing_image_sizes).toEqual(['thumbnail']);
    const res = await cms.call({
      method: 'POST',
      url: `/cms-json/cms/v2/media/${created.id}/post-process`,
      as: 'admin',
      payload: { action: 'create-image-subsizes' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().missing_image_sizes).toEqual([]);
    expect(res.json().media_details.sizes.thumbnail.file).toBe('partial-150x150.jpg');
    const badAction = await cms.call({
      method: 'POST',
      url: `/cms-json/cms/v2/media/${created.id}/post-process`,
      as: 'admin',
      payload: { action: 'nope' },
    });
    expect(badAction.json().code).toBe('rest_invalid_param');
  });

  it('edit makes a new -edited attachment with flip, rotate and crop applied', async () => {
    const created = (await uploadRaw('to-edit.png', 'image/png', await makeImage(400, 200, 'png'))).json();
    const res = await cms.call({
      method: 'POST',
      url: `/cms-json/cms/v2/media/${created.id}/edit`,
      as: 'admin',
      payload: {
        src: created.source_url,
        modifiers: [
          { type: 'rotate', args: { angle: 90 } },
          { type: 'crop', args: { left: 0, top: 0, width: 50, height: 50 } },
          { type: 'flip', args: { flip: { horizontal: true, vertical: false } } },
        ],
        alt_text: 'Edited alt',
      },
    });
    expect(res.statusCode).toBe(201);
    const edited = res.json();
    expect(edited.id).not.toBe(created.id);
    // The edit endpoint answers in the request's context (view by default), as WordPress does.
    expect(edited).toMatchObject({
      title: { rendered: 'to-edit' },
      alt_text: 'Edited alt',
      media_details: {
        width: 100,
        height: 200,
        file: `${UPLOAD_MONTH}/to-edit-edited.png`,
        parent_image: { attachment_id: created.id, file: `${UPLOAD_MONTH}/to-edit.png` },
      },
    });
    const file = await sharp(path.join(cms.uploadsDir, UPLOAD_MONTH, 'to-edit-edited.png')).metadata();
    expect([file.width, file.height]).toEqual([100, 200]);

    const deprecated = await cms.call({
      method: 'POST',
      url: `/cms-json/cms/v2/media/${created.id}/edit`,
      as: 'admin',
      payload: { src: created.source_url, rotation: 180, x: 10, y: 10, width: 50, height: 50 },
    });
    expect(deprecated.statusCode).toBe(201);
    expect(deprecated.json().media_details).toMatchObject({
      width: 200,
      height: 100,
      file: `${UPLOAD_MONTH}/to-edit-edited-1.png`,
    });
  });

  it('edit refuses unknown sources, no edits, bad modifiers and non-images', async () => {
    const created = (await uploadRaw('edit-errors.png', 'image/png', await makeImage(100, 100, 'png'))).json();
    const call = (payload: Record<string, unknown>, id = created.id) =>
      cms.call({ method: 'POST', url: `/cms-json/cms/v2/media/${id}/edit`, as: 'admin', payload });
    expect((await call({ src: 'http://elsewhere.test/x.png', rotation: 90 })).json()).toMatchObject({
      code: 'rest_unknown_attachment',
      data: { status: 404 },
    });
    expect((await call({ src: created.source_url })).json()).toMatchObject({
      code: 'rest_image_not_edited',
      data: { status: 400 },
    });
    expect((await call({ src: created.source_url, modifiers: [] })).json().code).toBe('rest_invalid_param');
    expect((await call({ src: created.source_url, modifiers: [{ type: 'blur', args: {} }] })).json().code).toBe(
      'rest_invalid_param',
    );
    expect((await call({ src: created.source_url, rotation: 360 })).json().code).toBe('rest_invalid_param');
    expect((await call({ src: created.source_url, x: 101, y: 0, width: 1, height: 1 })).json().code).toBe(
      'rest_invalid_param',
    );
    const pdf = (await uploadRaw('doc.pdf', 'application/pdf', makePdf())).json();
    expect((await call({ src: pdf.source_url, rotation: 90 }, pdf.id)).json().code).toBe('rest_unknown_attachment');
    const noAuth = await cms.call({
      method: 'POST',
      url: `/cms-json/cms/v2/media/${created.id}/edit`,
      payload: { src: created.source_url, rotation: 90 },
    });
    expect(noAuth.json()).toMatchObject({ code: 'rest_cannot_edit_image', data: { status: 401 } });
  });

  it('trashes without force and removes every file with force', async () => {
    const created = (await uploadRaw('doomed.jpg', 'image/jpeg', await makeImage(3000, 2000, 'jpeg'))).json();
    const trashed = await cms.call({ method: 'DELETE', url: `/cms-json/cms/v2/media/${created.id}`, as: 'admin' });
    expect(trashed.statusCode).toBe(200);
    expect(trashed.json().status).toBe('trash');
    const listed = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/media?status=trash', as: 'admin' });
    expect(listed.json().map((m: { id: number }) => m.id)).toContain(created.id);
    const again = await cms.call({ method: 'DELETE', url: `/cms-json/cms/v2/media/${created.id}`, as: 'admin' });
    expect(again.statusCode).toBe(410);
    const files = (await readdir(path.join(cms.uploadsDir, UPLOAD_MONTH))).filter((f) => f.startsWith('doomed'));
    expect(files).toHaveLength(8);
    const forced = await cms.call({
      method: 'DELETE',
      url: `/cms-json/cms/v2/media/${created.id}?force=true`,
      as: 'admin',
    });
    expect(forced.statusCode).toBe(200);
    expect(forced.json()).toMatchObject({ deleted: true, previous: { id: created.id } });
    expect((await readdir(path.join(cms.uploadsDir, UPLOAD_MONTH))).filter((f) => f.startsWith('doomed'))).toEqual([]);
    const gone = await cms.call({ method: 'GET', url: `/cms-json/cms/v2/media/${created.id}` });
    expect(gone.json().code).toBe('rest_post_invalid_id');
  });

  it('is not batch-capable', async () => {
    const res = await cms.call({
      method: 'POST',
      url: '/cms-json/batch/v1',
      as: 'admin',
      payload: { requests: [{ method: 'POST', path: '/cms/v2/media', body: { title: 'x' } }] },
    });
    expect(res.json().responses[0].body.code).toBe('rest_batch_not_allowed');
  });
});
