/**
 * Media, menus and menu items next to the real WordPress: the same uploads and the same menu requests
 * go to the oracle (when it runs on this machine) and to the CMS, and the answers are compared field by
 * field after the brand mapping (wp -> cms, wp-content -> cms-content) and after masking what must differ
 * (ids, times, encoder output sizes). The differences kept on purpose are listed in `known` and in the
 * README.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wpToCms } from './helpers/brand.ts';
import { jsonDiff } from './helpers/json-diff.ts';
import { makeImage } from './helpers/media-fixtures.ts';
import { ORACLE_URL, oracleAnswers, oracleAuthorization } from './helpers/oracle-fixtures.ts';
import { createSiteTestCms, type SiteTestCms } from './helpers/site-test-app.ts';

const ORACLE = ORACLE_URL;

const auth = oracleAuthorization();
const live = auth !== null && (await oracleAnswers());

/** Differences on purpose (see README): the spec's media fields and meta keys. */
function known(line: string): boolean {
  return (
    line === 'featured_media: extra in ours' ||
    /^meta: ours \{"_cf_changed":false,"inline_featured_image":false\}, oracle \[\]$/.test(line)
  );
}

/** Masks ids, dates and encoder-dependent sizes so that only behaviour is compared. */
function normalise(value: unknown, ids: Map<number, number>): unknown {
  let text = JSON.stringify(value);
  for (const [id, mark] of ids) text = text.replace(new RegExp(`(?<![\\d.-])${id}(?![\\d])`, 'g'), String(mark));
  const data = JSON.parse(text);
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, val] of Object.entries(v)) {
        if (['date', 'date_gmt', 'modified', 'modified_gmt'].includes(k)) out[k] = typeof val;
        else if (k === 'filesize') out[k] = typeof val;
        else out[k] = walk(val);
      }
      return out;
    }
    return v;
  };
  return walk(data);
}

async function wp(method: string, path: string, body?: string | Buffer, headers: Record<string, string> = {}) {
  const res = await fetch(`${ORACLE}/wp-json/wp/v2${path}`, {
    method,
    headers: { authorization: auth as string, ...headers },
    ...(body !== undefined ? { body } : {}),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> & { id: number } };
}

describe.skipIf(!live)('media, menus and menu items next to the live WordPress oracle', () => {
  let cms: SiteTestCms;
  const cleanup: Array<() => Promise<unknown>> = [];

  beforeAll(async () => {
    cms = await createSiteTestCms();
    await cms.ctx.options.set('home', ORACLE);
    await cms.ctx.options.set('siteurl', ORACLE);
    await cms.ctx.users.update(cms.ids.admin, { display_name: 'admin', nicename: 'admin' });
  });
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
    await cms?.close();
  });

  const compare = (ours: unknown, oracle: unknown, ids: Map<number, number>) =>
    jsonDiff(
      normalise(ours, ids),
      normalise(
        wpToCms(JSON.parse(JSON.stringify(oracle).replace(/\/wp-content\/uploads\//g, '/cms-content/uploads/')), {
          from: ORACLE,
          to: ORACLE,
        }),
        ids,
      ),
    ).filter((line) => !known(line));

  async function upload(name: string, type: string, bytes: Buffer) {
    const headers = { 'content-type': type, 'content-disposition': `attachment; filename="${name}"` };
    const theirs = await wp('POST', '/media', bytes, headers);
    cleanup.push(() => wp('DELETE', `/media/${theirs.json.id}?force=true`));
    const ours = await cms.call({
      method: 'POST',
      url: '/cms-json/cms/v2/media',
      as: 'admin',
      headers,
      payload: bytes,
    });
    return { theirs, ours };
  }

  it('uploads a PNG with the same response: fields, sub-sizes, srcset, links', async () => {
    const name = `oracle-compare-${Date.now()}.png`;
    const { theirs, ours } = await upload(name, 'image/png', await makeImage(1200, 800, 'png'));
    expect([ours.statusCode, theirs.status]).toEqual([201, 201]);
    const ids = new Map([
      [theirs.json.id, -1],
      [ours.json().id, -1],
    ]);
    expect(compare(ours.json(), theirs.json, ids)).toEqual([]);
  });

  it('uploads a JPEG with EXIF: the same image_meta strings and title/caption defaults', async () => {
    const name = `oracle-exif-${Date.now()}.jpg`;
    const bytes = await makeImage(640, 480, 'jpeg', {
      exif: {
        IFD0: { Artist: 'Ann Author', Copyright: 'Ann & Co', ImageDescription: 'Quay at dawn', Model: 'CamX 100' },
        IFD2: {
          FNumber: '28/10',
          ExposureTime: '1/125',
          FocalLength: '50/1',
          ISOSpeedRatings: '200',
          DateTimeDigitized: '2024:05:06 07:08:09',
        },
      },
    });
    const { theirs, ours } = await upload(name, 'image/jpeg', bytes);
    const ids = new Map([
      [theirs.json.id, -1],
      [ours.json().id, -1],
    ]);
    expect(compare(ours.json(), theirs.json, ids)).toEqual([]);
  });

  it('uploads a PDF as a file the same way', async () => {
    const { makePdf } = await import('./helpers/media-fixtures.ts');
    const { theirs, ours } = await upload(`oracle-doc-${Date.now()}.pdf`, 'application/pdf', makePdf());
    const ids = new Map([
      [theirs.json.id, -1],
      [ours.json().id, -1],
    ]);
    expect(compare(ours.json(), theirs.json, ids)).toEqual([]);
  });

  it('refuses the same bad uploads with the same codes', async () => {
    const headers = { 'content-type': 'image/png' };
    const theirs = await wp('POST', '/media', 'x', headers);
    const ours = await cms.call({ method: 'POST', url: '/cms-json/cms/v2/media', as: 'admin', headers, payload: 'x' });
    expect(ours.json()).toEqual(theirs.json);
    expect(ours.statusCode).toBe(theirs.status);
  });

  it('creates menus and menu items with the same answers', async () => {
    const stamp = Date.now();
    const theirsMenu = await wp('POST', '/menus', JSON.stringify({ name: `Oracle menu ${stamp}` }), {
      'content-type': 'application/json',
    });
    cleanup.push(() => wp('DELETE', `/menus/${theirsMenu.json.id}?force=true`));
    const oursMenu = await cms.call({
      method: 'POST',
      url: '/cms-json/cms/v2/menus',
      as: 'admin',
      payload: { name: `Oracle menu ${stamp}` },
    });
    const menuIds = new Map([
      [theirsMenu.json.id, -2],
      [oursMenu.json().id, -2],
    ]);
    expect(compare(oursMenu.json(), theirsMenu.json, menuIds)).toEqual([]);

    const theirsPage = await wp(
      'POST',
      '/pages',
      JSON.stringify({ title: `Menu target ${stamp}`, status: 'publish' }),
      {
        'content-type': 'application/json',
      },
    );
    cleanup.push(() => wp('DELETE', `/pages/${theirsPage.json.id}?force=true`));
    const oursPage = await cms.call({
      method: 'POST',
      url: '/cms-json/cms/v2/pages',
      as: 'admin',
      payload: { title: `Menu target ${stamp}`, status: 'publish' },
    });

    const bodies = [
      {
        title: 'Docs',
        url: 'https://docs.example.org/',
        classes: ['a', 'b'],
        xfn: ['friend'],
        target: '_blank',
        menu_order: 2,
      },
      { type: 'post_type', object: 'page', menu_order: 3 },
      { title: 'No url' },
    ];
    for (const [i, body] of bodies.entries()) {
      const withTarget = body.type === 'post_type' ? { ...body } : body;
      const theirsBody = {
        ...withTarget,
        ...(body.type ? { object_id: theirsPage.json.id } : {}),
        ...('menus' in body ? {} : { menus: theirsMenu.json.id }),
      };
      const oursBody = {
        ...withTarget,
        ...(body.type ? { object_id: oursPage.json().id } : {}),
        ...('menus' in body ? {} : { menus: oursMenu.json().id }),
      };
      const theirs = await wp('POST', '/menu-items', JSON.stringify(theirsBody), {
        'content-type': 'application/json',
      });
      if (theirs.json.id) cleanup.push(() => wp('DELETE', `/menu-items/${theirs.json.id}?force=true`));
      const ours = await cms.call({
        method: 'POST',
        url: '/cms-json/cms/v2/menu-items',
        as: 'admin',
        payload: oursBody,
      });
      expect(ours.statusCode, `item ${i}`).toBe(theirs.status);
      const ids = new Map([
        ...menuIds,
        [theirs.json.id, -3],
        [ours.json().id, -3],
        [theirsPage.json.id, -4],
        [oursPage.json().id, -4],
      ]);
      const diff = compare(ours.json(), theirs.json, ids).map((line) =>
        // The page slug carries the test's timestamp in both; only its shape matters.
        line.replace(/menu-target-\d+/g, 'menu-target'),
      );
      expect(diff, `item ${i}`).toEqual([]);
    }

    const theirsList = await wp('GET', `/menu-items?menus=${theirsMenu.json.id}`);
    const oursList = await cms.call({
      method: 'GET',
      url: `/cms-json/cms/v2/menu-items?menus=${oursMenu.json().id}`,
      as: 'admin',
    });
    expect((oursList.json() as Array<{ menu_order: number }>).map((i) => i.menu_order)).toEqual(
      (theirsList.json as unknown as Array<{ menu_order: number }>).map((i) => i.menu_order),
    );
  });
});
