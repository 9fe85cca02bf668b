/**
 * Updating a tag, category or menu (menus are terms) with a name that is empty once sanitized ('', spaces,
 * only tags) is refused as wp_update_term() refuses it: `empty_term_name`, "A name is required for this
 * term." (WordPress sends it without a status, so 500; bad input answers 400 here, as on create), and
 * nothing of the request is saved.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestCms, dialects, type TestCms } from './helpers/cms-test-app.ts';

describe.each(dialects())('empty term names on update on $label', (dialect) => {
  let cms: TestCms;
  beforeAll(async () => {
    if (dialect.skip) return;
    cms = await createTestCms(dialect);
  });
  afterAll(async () => cms?.close());

  const api = (method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) =>
    cms.call({ method, url: `/cms-json/cms/v2${url}`, as: 'admin', ...(payload ? { payload } : {}) });

  describe.skipIf(dialect.skip)('', () => {
    for (const base of ['/tags', '/categories', '/menus']) {
      it(`refuses an empty name when updating ${base}, and keeps the term as it was`, async () => {
        const created = await api('POST', base, { name: `Kept ${base.slice(1)}`, description: 'before' });
        expect(created.statusCode, created.body).toBe(201);
        const { id, name, slug } = created.json();
        for (const empty of ['', '   ', '<b></b>']) {
          const res = await api('POST', `${base}/${id}`, { name: empty, description: 'after' });
          expect(res.statusCode, `${base} ${JSON.stringify(empty)}`).toBe(400);
          expect(res.json()).toEqual({
            code: 'empty_term_name',
            message: 'A name is required for this term.',
            data: { status: 400 },
          });
        }
        const read = await api('GET', `${base}/${id}?context=edit`);
        expect(read.json()).toMatchObject({ name, slug, description: 'before' });
        const renamed = await api('POST', `${base}/${id}`, { name: 'Renamed' });
        expect(renamed.statusCode, renamed.body).toBe(200);
        expect(renamed.json().name).toBe('Renamed');
        await api('POST', `${base}/${id}`, { name: `Done ${base.slice(1)}` });
      });
    }
  });
});
