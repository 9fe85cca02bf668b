import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSiteTestCms, type SiteTestCms } from './helpers/site-test-app.ts';

let cms: SiteTestCms;
beforeAll(async () => {
  cms = await createSiteTestCms();
});
afterAll(async () => {
  await cms?.close();
});

describe('/cms/v2/menus', () => {
  it('creates a menu with locations and auto_add, and reads it back', async () => {
    const res = await cms.call({
      method: 'POST',
      url: '/cms-json/cms/v2/menus',
      as: 'admin',
      payload: { name: 'Main Menu', description: 'Top of every page', locations: ['primary'], auto_add: true },
    });
    expect(res.statusCode).toBe(201);
    const menu = res.json();
    expect(menu).toMatchObject({
      name: 'Main Menu',
      slug: 'main-menu',
      description: 'Top of every page',
      meta: [],
      locations: ['primary'],
      auto_add: true,
    });
    expect(Object.keys(menu)).toEqual(['id', 'description', 'name', 'slug', 'meta', 'locations', 'auto_add', '_links']);
    expect(res.headers.location).toBe(`http://cms.test/cms-json/cms/v2/menus/${menu.id}`);
    expect(menu._links['cms:menu-location'][0].href).toBe('http://cms.test/cms-json/cms/v2/menu-locations/primary');
    const list = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/menus', as: 'arthur' });
    expect(list.json().map((m: { name: string }) => m.name)).toContain('Main Menu');
    expect(list.headers['x-cms-total']).toBe('1');
  });

  it('refuses duplicate names, unknown locations and a parent', async () => {
    const dup = await cms.call({
      method: 'POST',
      url: '/cms-json/cms/v2/menus',
      as: 'admin',
      payload: { name: 'Main Menu' },
    });
    expect(dup.json()).toMatchObject({ code: 'menu_exists', data: { status: 400 } });
    const loc = await cms.call({
      method: 'POST',
      url: '/cms-json/cms/v2/menus',
      as: 'admin',
      payload: { name: 'Other', locations: ['sidebar'] },
    });
    expect(loc.json()).toMatchObject({
      code: 'rest_invalid_param',
      data: { params: { locations: 'Invalid menu location.' } },
    });
    const parent = await cms.call({
      method: 'POST',
      url: '/cms-json/cms/v2/menus',
      as: 'admin',
      payload: { name: 'P', parent: 1 },
    });
    expect(parent.json().code).toBe('rest_taxonomy_not_hierarchical');
    const missingName = await cms.call({ method: 'POST', url: '/cms-json/cms/v2/menus', as: 'admin', payload: {} });
    expect(missingName.json()).toMatchObject({ code: 'rest_missing_callback_param', data: { params: ['name'] } });
  });

  it('needs edit_theme_options to write and a content role to read', async () => {
    const anonymous = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/menus' });
    expect(anonymous.json()).toMatchObject({ code: 'rest_cannot_view', data: { status: 401 } });
    const subscriber = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/menus', as: 'sam' });
    expect(subscriber.statusCode).toBe(403);
    const editor = await cms.call({
      method: 'POST',
      url: '/cms-json/cms/v2/menus',
      as: 'edna',
      payload: { name: 'E' },
    });
    expect(editor.json()).toMatchObject({ code: 'rest_cannot_create', data: { status: 403 } });
    const editContext = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/menus?context=edit', as: 'arthur' });
    expect(editContext.json().code).toBe('rest_forbidden_context');
    const missing = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/menus/99999', as: 'admin' });
    expect(missing.json()).toMatchObject({ code: 'rest_term_invalid', data: { status: 404 } });
  });

  it('updates name and locations (moving them from another menu)', async () => {
    const other = (
      await cms.call({
        method: 'POST',
        url: '/cms-json/cms/v2/menus',
        as: 'admin',
        payload: { name: 'Footer links', locations: ['footer'] },
      })
    ).json();
    const res = await cms.call({
      method: 'POST',
      url: `/cms-json/cms/v2/menus/${other.id}`,
      as: 'admin',
      payload: { name: 'Footer', locations: ['footer', 'primary'], auto_add: false },
    });
    // Locations keep the theme's order, as get_nav_menu_locations() returns them.
    expect(res.json()).toMatchObject({ name: 'Footer', locations: ['primary', 'footer'], auto_add: false });
    const locations = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/menu-locations', as: 'admin' });
    expect(locations.json().primary).toMatchObject({ name: 'primary', description: 'Primary menu', menu: other.id });
    // Give primary back to the main menu for the next tests.
    const main = (
      await cms.call({ method: 'GET', url: '/cms-json/cms/v2/menus?slug=main-menu', as: 'admin' })
    ).json()[0];
    await cms.call({
      method: 'POST',
      url: `/cms-json/cms/v2/menus/${main.id}`,
      as: 'admin',
      payload: { locations: ['primary'] },
    });
  });
});

describe('/cms/v2/menu-locations', () => {
  it('lists the theme locations keyed by name with the assigned menu', async () => {
    const res = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/menu-locations', as: 'admin' });
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.json())).toEqual(['primary', 'footer']);
    const primary = res.json().primary;
    expect(primary.menu).toBeGreaterThan(0);
    expect(primary._links['cms:menu'][0]).toMatchObject({ embeddable: true });
    const one = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/menu-locations/footer', as: 'admin' });
    expect(Object.keys(one.json())).toEqual(['name', 'description', 'menu', '_links']);
  });

  it('answers 404 for unknown locations and needs edit_theme_options', async () => {
    const missing = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/menu-locations/sidebar', as: 'admin' });
    expect(missing.json()).toMatchObject({ code: 'rest_menu_location_invalid', data: { status: 404 } });
    const editor = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/menu-locations', as: 'edna' });
    expect(editor.json()).toMatchObject({ code: 'rest_cannot_view', data: { status: 403 } });
  });
});

describe('/cms/v2/menu-items', () => {
  let menuId = 0;
  let pageId = 0;
  let categoryId = 0;

  beforeAll(async () => {
    menuId = (
      await cms.call({ method: 'POST', url: '/cms-json/cms/v2/menus', as: 'admin', payload: { name: 'Items menu' } })
    ).json().id;
    pageId = (
      await cms.call({
        method: 'POST',
        url: '/cms-json/cms/v2/pages',
        as: 'admin',
        payload: { title: 'About Us', status: 'publish' },
      })
    ).json().id;
    categoryId = (
      await cms.call({
        method: 'POST',
        url: '/cms-json/cms/v2/categories',
        as: 'admin',
        payload: { name: 'News Desk' },
      })
    ).json().id;
  });

  const create = (payload: Record<string, unknown>, as: 'admin' | 'edna' = 'admin') =>
    cms.call({ method: 'POST', url: '/cms-json/cms/v2/menu-items', as, payload });

  it('creates a custom link with the defaults of the spec', async () => {
    const res = await create({
      title: 'Docs',
      url: 'https://docs.example.org/',
      menus: menuId,
      classes: 'a b$ c',
      xfn: ['friend', 'met'],
    });
    expect(res.statusCode).toBe(201);
    const item = res.json();
    expect(item).toMatchObject({
      title: { raw: 'Docs', rendered: 'Docs' },
      status: 'publish',
      url: 'https://docs.example.org/',
      attr_title: '',
      description: '',
      type: 'custom',
      type_label: 'Custom Link',
      object: 'custom',
      object_id: item.id,
      parent: 0,
      menu_order: 1,
      target: '',
      classes: ['a', 'b', 'c'],
      xfn: ['friend', 'met'],
      invalid: false,
      meta: { _cf_changed: false, inline_featured_image: false },
      menus: menuId,
    });
    expect(Object.keys(item).slice(0, 17)).toEqual([
      'id',
      'title',
      'status',
      'url',
      'attr_title',
      'description',
      'type',
      'type_label',
      'object',
      'object_id',
      'parent',
      'menu_order',
      'target',
      'classes',
      'xfn',
      'invalid',
      'meta',
    ]);
  });

  it('requires a title and a URL for custom links, reporting both', async () => {
    const res = await create({ menus: menuId });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'rest_title_required',
      additional_errors: [{ code: 'rest_url_required' }],
    });
  });

  it('links a page by post_type, taking its title and permalink', async () => {
    const res = await create({ type: 'post_type', object_id: pageId, menus: menuId, menu_order: 2 });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      title: { raw: 'About Us' },
      type: 'post_type',
      type_label: 'Page',
      object: 'page',
      object_id: pageId,
      url: 'http://cms.test/about-us/',
      menu_order: 2,
    });
    expect(res.json()._links['cms:menu-item-object'][0]).toMatchObject({
      href: `http://cms.test/cms-json/cms/v2/pages/${pageId}`,
      post_type: 'page',
      embeddable: true,
    });
    const bad = await create({ type: 'post_type', object_id: 999999, menus: menuId });
    expect(bad.json()).toMatchObject({ code: 'rest_post_invalid_id', data: { status: 400 } });
  });

  it('links a category by taxonomy and the blog by post_type_archive', async () => {
    const cat = await create({
      type: 'taxonomy',
      object_id: categoryId,
      menus: menuId,
      menu_order: 3,
      target: '_blank',
    });
    expect(cat.json()).toMatchObject({
      title: { raw: 'News Desk' },
      type_label: 'Category',
      object: 'category',
      url: 'http://cms.test/category/news-desk/',
      target: '_blank',
    });
    const archive = await create({ type: 'post_type_archive', object: 'post', menus: menuId, menu_order: 4 });
    expect(archive.json()).toMatchObject({
      type_label: 'Post Type Archive',
      url: 'http://cms.test/',
      title: { raw: 'Posts' },
    });
    const badType = await create({ type: 'post_type_archive', object: 'nope', menus: menuId });
    expect(badType.json().code).toBe('rest_post_invalid_type');
    const badTerm = await create({ type: 'taxonomy', object_id: 999999, menus: menuId });
    expect(badTerm.json().code).toBe('rest_term_invalid_id');
  });

  it('validates enums, minimums and the menu', async () => {
    expect((await create({ title: 'x', url: 'https://x.test', target: '_self' })).json().code).toBe(
      'rest_invalid_param',
    );
    expect((await create({ title: 'x', url: 'https://x.test', menu_order: 0 })).json().code).toBe('rest_invalid_param');
    expect((await create({ title: 'x', url: 'https://x.test', type: 'page' })).json().code).toBe('rest_invalid_param');
    expect((await create({ title: 'x', url: 'https://x.test', menus: 999999 })).json()).toMatchObject({
      code: 'invalid_menu_id',
    });
  });

  it('lists items of a menu ordered by menu_order ascending, 100 per page by default', async () => {
    const res = await cms.call({ method: 'GET', url: `/cms-json/cms/v2/menu-items?menus=${menuId}`, as: 'arthur' });
    expect(res.statusCode).toBe(200);
    const orders = res.json().map((i: { menu_order: number }) => i.menu_order);
    expect(orders).toEqual([...orders].sort((a: number, b: number) => a - b));
    expect(res.json()).toHaveLength(4);
    expect(res.headers['x-cms-totalpages']).toBe('1');
    const desc = await cms.call({
      method: 'GET',
      url: `/cms-json/cms/v2/menu-items?menus=${menuId}&order=desc`,
      as: 'admin',
    });
    expect(desc.json()[0].menu_order).toBe(4);
    const objectForm = await cms.call({
      method: 'GET',
      url: `/cms-json/cms/v2/menu-items?menus[terms][]=${menuId}&menu_order=2`,
      as: 'admin',
    });
    expect(objectForm.json().map((i: { object: string }) => i.object)).toEqual(['page']);
    const excluded = await cms.call({
      method: 'GET',
      url: `/cms-json/cms/v2/menu-items?menus_exclude=${menuId}`,
      as: 'admin',
    });
    expect(excluded.json().every((i: { menus: number }) => i.menus !== menuId)).toBe(true);
    const anonymous = await cms.call({ method: 'GET', url: '/cms-json/cms/v2/menu-items' });
    expect(anonymous.json()).toMatchObject({ code: 'rest_cannot_view', data: { status: 401 } });
  });

  it('describes the spec defaults in OPTIONS: per_page 100, order asc, orderby menu_order, no author filter', async () => {
    const res = await cms.call({ method: 'OPTIONS', url: '/cms-json/cms/v2/menu-items' });
    const args = res.json().endpoints[0].args;
    expect(args.per_page).toMatchObject({ default: 100, minimum: 1, maximum: 100 });
    expect(args.order).toMatchObject({ default: 'asc', enum: ['asc', 'desc'] });
    expect(args.orderby).toMatchObject({ default: 'menu_order' });
    expect(args.orderby.enum).toContain('menu_order');
    expect(args.menus).toBeDefined();
    expect(args.menus_exclude).toBeDefined();
    expect(args.menu_order).toMatchObject({ type: 'integer' });
    expect(args.author).toBeUndefined();
    const create = res.json().endpoints[1].args;
    expect(create.type).toMatchObject({
      default: 'custom',
      enum: ['taxonomy', 'post_type', 'post_type_archive', 'custom'],
    });
    expect(create.status).toMatchObject({ default: 'publish' });
    expect(create.menu_order).toMatchObject({ default: 1, minimum: 1 });
    expect(create.object_id).toMatchObject({ default: 0, minimum: 0 });
    expect(create.parent).toMatchObject({ default: 0, minimum: 0 });
    expect(create.target).toMatchObject({ enum: ['_blank', ''] });
  });

  it('updates an item, keeps its link, and refuses to trash it', async () => {
    const item = (await create({ title: 'Temp', url: 'https://t.test/', menus: menuId, menu_order: 9 })).json();
    const res = await cms.call({
      method: 'POST',
      url: `/cms-json/cms/v2/menu-items/${item.id}`,
      as: 'admin',
      payload: { title: 'Renamed', attr_title: 'Tip', description: 'About <b>it</b>', status: 'draft' },
    });
    expect(res.json()).toMatchObject({
      title: { raw: 'Renamed' },
      url: 'https://t.test/',
      attr_title: 'Tip',
      description: 'About it',
      status: 'draft',
      menu_order: 9,
    });
    const trash = await cms.call({ method: 'DELETE', url: `/cms-json/cms/v2/menu-items/${item.id}`, as: 'admin' });
    expect(trash.json()).toMatchObject({ code: 'rest_trash_not_supported', data: { status: 501 } });
    const del = await cms.call({
      method: 'DELETE',
      url: `/cms-json/cms/v2/menu-items/${item.id}?force=true`,
      as: 'admin',
    });
    expect(del.json()).toMatchObject({ deleted: true, previous: { id: item.id } });
  });

  it('is batch-capable', async () => {
    const res = await cms.call({
      method: 'POST',
      url: '/cms-json/batch/v1',
      as: 'admin',
      payload: {
        requests: [
          {
            method: 'POST',
            path: '/cms/v2/menu-items',
            body: { title: 'B1', url: 'https://b1.test/', menus: menuId, menu_order: 10 },
          },
          {
            method: 'POST',
            path: '/cms/v2/menu-items',
            body: { title: 'B2', url: 'https://b2.test/', menus: menuId, menu_order: 11 },
          },
        ],
      },
    });
    expect(res.statusCode).toBe(207);
    expect(res.json().responses.map((r: { status: number }) => r.status)).toEqual([201, 201]);
  });

  it('has autosaves', async () => {
    const item = (await create({ title: 'Auto', url: 'https://a.test/', menus: menuId })).json();
    const res = await cms.call({
      method: 'POST',
      url: `/cms-json/cms/v2/menu-items/${item.id}/autosaves`,
      as: 'admin',
      payload: { title: 'Auto draft title' },
    });
    expect(res.statusCode).toBe(200);
    const list = await cms.call({
      method: 'GET',
      url: `/cms-json/cms/v2/menu-items/${item.id}/autosaves`,
      as: 'admin',
    });
    expect(list.statusCode).toBe(200);
  });

  it('deleting a menu deletes its items and frees its locations', async () => {
    const res = await cms.call({ method: 'DELETE', url: `/cms-json/cms/v2/menus/${menuId}`, as: 'admin' });
    expect(res.json()).toMatchObject({ code: 'rest_trash_not_supported', data: { status: 501 } });
    const del = await cms.call({ method: 'DELETE', url: `/cms-json/cms/v2/menus/${menuId}?force=true`, as: 'admin' });
    expect(del.json()).toMatchObject({ deleted: true, previous: { id: menuId, name: 'Items menu' } });
    const items = await cms.call({ method: 'GET', url: `/cms-json/cms/v2/menu-items?menus=${menuId}`, as: 'admin' });
    expect(items.json()).toEqual([]);
  });
});
