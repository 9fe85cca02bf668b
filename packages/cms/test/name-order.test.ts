/**
 * Lists ordered by a name compare names without regard to case, as WordPress's database collation does
 * (posts by title already did): "alice" comes between "Admin" and "Arthur", not after "Zed".
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
    ]) {
      const res = await cms.call({
        method: 'POST',
        url: '/cms-json/cms/v2/users',
        as: 'admin',
        payload: { username, name, email: `${username}@example.test`, password: 'a long enough password 1' },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    for (const name of ['banana', 'Apple', 'cherry', 'Date']) {
      const res = await cms.call({ method: 'POST', url: '/cms-json/cms/v2/tags', as: 'admin', payload: { name } });
      expect(res.statusCode, res.body).toBe(201);
    }
  });
  afterAll(async () => cms?.close());

  describe.skipIf(dialect.skip)('', () => {
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
      const expected = ['Admin', 'alice', 'Arthur', 'bert lower', 'Conrad', 'Edna', 'Sam', 'Zed'];
      expect(await names('asc')).toEqual(expected);
      expect(await names('desc')).toEqual([...expected].reverse());
    });

    it('orders terms by name without regard to case, both ways', async () => {
      const names = async (order: string) =>
        (await cms.call({ method: 'GET', url: `/cms-json/cms/v2/tags?orderby=name&order=${order}&per_page=100` }))
          .json()
          .map((t: { name: string }) => t.name);
      expect(await names('asc')).toEqual(['Apple', 'banana', 'cherry', 'Date']);
      expect(await names('desc')).toEqual(['Date', 'cherry', 'banana', 'Apple']);
    });
  });
});
