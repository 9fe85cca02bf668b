/**
 * Unmodified WordPress clients against a real listening server: `wpapi` with route discovery (Link
 * header on the site root, then the index's routes) and `@wordpress/api-fetch`.
 */
import apiFetchModule from '@wordpress/api-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WPAPI from 'wpapi';
import { createTestCms, type TestCms } from './helpers/cms-test-app.ts';

// The package is CommonJS: TypeScript (NodeNext) sees its module object, the runtime hands over the function.
const apiFetch = ((apiFetchModule as unknown as { default?: unknown }).default ??
  apiFetchModule) as typeof apiFetchModule.default;

describe('WordPress clients against a listening server', () => {
  let cms: TestCms;
  let base: string;
  beforeAll(async () => {
    cms = await createTestCms();
    const address = await cms.app.listen({ host: '127.0.0.1', port: 0 });
    base = address.replace(/\/$/, '');
    await cms.ctx.options.set('siteurl', base);
    await cms.ctx.options.set('home', base);
  });
  afterAll(async () => cms.close());

  it('wpapi discovers the API from the site root and manages terms and users through cms/v2', async () => {
    const discovered = await WPAPI.discover(`${base}/`);
    const site = discovered.auth({ username: 'admin', password: cms.passwords.admin });
    const ns = site.namespace('cms/v2');
    const me = await ns.users().me();
    expect(me).toMatchObject({ id: cms.ids.admin, slug: 'admin' });
    const created = await ns.categories().create({ name: 'From wpapi', description: 'made by a client' });
    expect(created).toMatchObject({ name: 'From wpapi', slug: 'from-wpapi', taxonomy: 'category' });
    const updated = await ns.categories().id(created.id).update({ name: 'Renamed by wpapi' });
    expect(updated.name).toBe('Renamed by wpapi');
    const listed = await ns.categories().search('wpapi').get();
    expect(listed.map((c: { id: number }) => c.id)).toEqual([created.id]);
    const tags = await ns.tags().perPage(1).get();
    expect(Array.isArray(tags)).toBe(true);
    const removed = await ns.categories().id(created.id).param('force', true).delete();
    expect(removed.deleted).toBe(true);
    const users = await ns.users().param('roles', 'author').get();
    expect(users.map((u: { slug: string }) => u.slug)).toEqual(['arthur']);
    const anonymous = await WPAPI.discover(`${base}/`);
    await expect(anonymous.namespace('cms/v2').settings().get()).rejects.toMatchObject({ code: 'rest_forbidden' });
  });

  it('@wordpress/api-fetch calls the API with its default middlewares', async () => {
    apiFetch.use(apiFetch.createRootURLMiddleware(`${base}/cms-json/`));
    const authorization = `Basic ${Buffer.from(`edna:${cms.passwords.edna}`).toString('base64')}`;
    const me = await apiFetch<{ id: number; roles: string[] }>({
      path: '/cms/v2/users/me?context=edit',
      headers: { Authorization: authorization },
    });
    expect(me).toMatchObject({ id: cms.ids.edna, roles: ['editor'] });
    const tag = await apiFetch<{ id: number; name: string }>({
      path: '/cms/v2/tags',
      method: 'POST',
      data: { name: 'api-fetch' },
      headers: { Authorization: authorization },
    });
    expect(tag.name).toBe('api-fetch');
    await expect(
      apiFetch({ path: '/cms/v2/settings', headers: { Authorization: authorization } }),
    ).rejects.toMatchObject({
      code: 'rest_forbidden',
    });
  });
});
