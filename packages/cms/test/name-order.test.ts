/**
 * Lists ordered by a name compare names without regard to case or accents, as WordPress's database
 * collation (utf8mb4_unicode_ci) does: "alice" comes between "Admin" and "Arthur", not after "Zed", and
 * "Émile" between "Edna" and "Sam", not after "Zed"; a post's terms come in the same order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestCms, dialects, type TestCms } from './helpers/cms-test-app.ts';

describe.each(dialects())('name order on $label', (dialect) => {
  let cms: TestCms;
  beforeAll(async () => {
    if (dialect.skip) return;
    cms = await createTestCms(dialect);
    for (const [username, name] of [
      ['alice', 'alice'],
      ['bert', 'bert lower'],
      ['zed', 'Zed'],
      ['emile', 'Émile'],
      ['oscar', 'Øscar'],
    ]) {
      const res = await cms.call({
        method: 'POST',
        url: '/cms-json/cms/v2/users',
        as: 'admin',
        payload: { username, name, email: `${username}@example.test`, password: 'a long enough password 1' },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    for (const name of ['banana', 'Apple', 'cherry', 'Date', 'Éclair', 'éa', 'Ébène', 'Über', 'zeta']) {
      const res = await cms.call({ method: 'POST', url: '/cms-json/cms/v2/tags', as: 'admin', payload: { name } });
      expect(res.statusCode, res.body).toBe(201);
    }
  });
  afterAll(async () => cms?.close());

  describe.skipIf(dialect.skip)('', () => {
    it('stores a name of compatibility characters, whose slug and sort key outgrow the name', async () => {
      // U+FDFA is 3 bytes of UTF-8 and decomposes into 18 characters: a 200-character tag name percent-encodes
      // to 1,800 characters and its sort key would be 3,600. WordPress cuts the slug at 200 characters.
      const name = '\uFDFA'.repeat(200);
      const res = await cms.call({ method: 'POST', url: '/cms-json/cms/v2/tags', as: 'admin', payload: { name } });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().name).toBe(name);
      expect(res.json().slug).toBe('%ef%b7%ba'.repeat(22));
      const user = await cms.call({
        method: 'POST',
        url: '/cms-json/cms/v2/users',
        as: 'admin',
        payload: {
          username: 'longname',
          name: '\uFDFA'.repeat(250),
          email: 'longname@example.test',
          password: 'a long enough password 1',
        },
      });
      expect(user.statusCode, user.body).toBe(201);
      for (const url of [
        `/cms-json/cms/v2/tags/${res.json().id}?force=true`,
        `/cms-json/cms/v2/users/${user.json().id}?force=true&reassign=1`,
      ]) {
        expect((await cms.call({ method: 'DELETE', url, as: 'admin' })).statusCode, url).toBe(200);
      }
    });

    it('orders users by name without regard to case, both ways', async () => {
      const names = async (order: string) =>
        (
          await cms.call({
            method: 'GET',
            url: `/cms-json/cms/v2/users?orderby=name&order=${order}&per_page=100`,
            as: 'admin',
          })
        )
          .json()
          .map((u: { name: string }) => u.name);
      const expected = ['Admin', 'alice', 'Arthur', 'bert lower', 'Conrad', 'Edna', 'Émile', 'Øscar', 'Sam', 'Zed'];
      expect(await names('asc')).toEqual(expected);
      expect(await names('desc')).toEqual([...expected].reverse());
    });

    it('orders terms by name without regard to case, both ways', async () => {
      const names = async (order: string) =>
        (await cms.call({ method: 'GET', url: `/cms-json/cms/v2/tags?orderby=name&order=${order}&per_page=100` }))
          .json()
          .map((t: { name: string }) => t.name);
      const expected = ['Apple', 'banana', 'cherry', 'Date', 'éa', 'Ébène', 'Éclair', 'Über', 'zeta'];
      expect(await names('asc')).toEqual(expected);
      expect(await names('desc')).toEqual([...expected].reverse());
    });

    it("lists a post's terms by name without regard to case or accents", async () => {
      const tags = (await cms.call({ method: 'GET', url: '/cms-json/cms/v2/tags?per_page=100' })).json() as Array<{
        id: number;
      }>;
      const post = await cms.call({
        method: 'POST',
        url: '/cms-json/cms/v2/posts',
        as: 'admin',
        payload: { title: 'Tagged', status: 'publish', tags: tags.map((t) => t.id).reverse() },
      });
      expect(post.statusCode, post.body).toBe(201);
      const res = await cms.call({ method: 'GET', url: `/cms-json/cms/v2/posts/${post.json().id}?_embed=cms:term` });
      const embedded = res.json()._embedded['cms:term'] as Array<Array<{ taxonomy: string; name: string }>>;
      const names = embedded
        .flat()
        .filter((t) => t.taxonomy === 'post_tag')
        .map((t) => t.name);
      expect(names).toEqual(['Apple', 'banana', 'cherry', 'Date', 'éa', 'Ébène', 'Éclair', 'Über', 'zeta']);
    });
  });
});
