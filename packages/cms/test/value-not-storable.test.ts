/**
 * A value the database cannot hold that got past the CMS's own checks (the platform's ValueNotStorableError:
 * PostgreSQL's data exceptions, e.g. 22003 for a number out of an integer column's range) is answered as bad
 * input in WordPress's shape, `rest_invalid_value` with status 400, never `internal_server_error` 500; inside a
 * batch it is that request's answer. Nothing of a refused write is stored.
 */
import { ValueNotStorableError } from '@svc/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentRuntimeOf } from '../src/content/module.ts';
import { allowPublic, CREATABLE } from '../src/rest/route.ts';
import { RestServer } from '../src/rest/server.ts';
import { createTestCms, dialects, type TestCms } from './helpers/cms-test-app.ts';

const OUT_OF_RANGE = {
  code: 'rest_invalid_value',
  message: 'The request holds a value the database cannot store: a number is out of range for its column.',
  data: { status: 400 },
};

describe('the REST kernel', () => {
  it('answers a ValueNotStorableError from a handler as a 400 rest_invalid_value, and does not report it', async () => {
    const reported: unknown[] = [];
    const server = new RestServer({ apiRoot: () => 'http://cms.test/cms-json/', onError: (err) => reported.push(err) });
    server.registerRoute('test/v1', '/things', {
      methods: CREATABLE,
      permission: allowPublic,
      handler: () => {
        throw new ValueNotStorableError('a number is out of range for its column', '22003');
      },
    });
    const out = await server.serve({ method: 'POST', route: '/test/v1/things', query: {}, headers: {}, body: '' });
    expect(out.status).toBe(400);
    expect(JSON.parse(out.body ?? '')).toEqual(OUT_OF_RANGE);
    expect(reported).toEqual([]);
  });
});

describe('the REST kernel, around the handler', () => {
  const notStorable = () => new ValueNotStorableError('a number is out of range for its column', '22003');

  it('answers an error thrown by authentication in WordPress shape, not the HTTP framework’s', async () => {
    const reported: unknown[] = [];
    const server = new RestServer({
      apiRoot: () => 'http://cms.test/cms-json/',
      onError: (err) => reported.push(err),
      authenticate: async (req) => {
        if (req.header('authorization') === 'odd') throw notStorable();
        throw new Error('connection reset while reading credentials');
      },
    });
    server.registerRoute('test/v1', '/things', { methods: CREATABLE, permission: allowPublic, handler: () => ({}) });
    const call = (authorization: string) =>
      server.serve({ method: 'POST', route: '/test/v1/things', query: {}, headers: { authorization }, body: '' });
    const odd = await call('odd');
    expect(odd.status).toBe(400);
    expect(JSON.parse(odd.body ?? '')).toEqual(OUT_OF_RANGE);
    const failed = await call('Basic x');
    expect(failed.status).toBe(500);
    expect(JSON.parse(failed.body ?? '')).toEqual({
      code: 'internal_server_error',
      message: 'There has been a critical error on this website.',
      data: { status: 500 },
    });
    expect(reported).toHaveLength(1);
  });

  it('answers an error thrown by a validate callback, alone and in a batch', async () => {
    const server = new RestServer({ apiRoot: () => 'http://cms.test/cms-json/' });
    server.registerRoute(
      'test/v1',
      '/things',
      {
        methods: CREATABLE,
        permission: allowPublic,
        args: {
          parent: {
            type: 'integer',
            validateCallback: async () => {
              throw notStorable();
            },
          },
        },
        handler: () => ({}),
      },
      { allowBatch: { v1: true } },
    );
    const alone = await server.serve({
      method: 'POST',
      route: '/test/v1/things',
      query: { parent: '99999999999' },
      headers: {},
      body: '',
    });
    expect(alone.status).toBe(400);
    expect(JSON.parse(alone.body ?? '')).toEqual(OUT_OF_RANGE);
    const batch = await server.serve({
      method: 'POST',
      route: '/batch/v1',
      query: {},
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ requests: [{ path: '/test/v1/things', body: { parent: 99999999999 } }] }),
    });
    expect(batch.status).toBe(207);
    expect(JSON.parse(batch.body ?? '').responses[0]).toMatchObject({ status: 400, body: OUT_OF_RANGE });
  });
});

describe.each(dialects())('a value the database cannot hold on $label', (dialect) => {
  let cms: TestCms;
  beforeAll(async () => {
    if (!dialect.skip) cms = await createTestCms(dialect);
  });
  afterAll(async () => cms?.close());

  // A number past PostgreSQL's integer columns (2^31 - 1) written into one. WordPress's columns are bigint and
  // SQLite's integers 64-bit, so there it is stored. (An id past that range in a comparison is merely an id no
  // item has, on every dialect: test/ids-beyond-int32.test.ts.)
  const BIG = 99_999_999_999;
  /** An attachment, whose `post` (its parent) is stored as given, existing or not, as WordPress does. */
  const attachment = async () =>
    (
      await contentRuntimeOf(cms.ctx)!.service.create(
        'attachment',
        { title: 'Picture', status: 'inherit', mimeType: 'image/png', authorId: cms.ids.admin },
        { actorId: cms.ids.admin, canPublish: true },
      )
    ).id;

  describe.skipIf(dialect.skip)('', () => {
    it.runIf(dialect.name === 'postgres')(
      'is a 400 rest_invalid_value on PostgreSQL, and nothing is stored',
      async () => {
        const id = await attachment();
        const write = await cms.call({
          method: 'POST',
          url: `/cms-json/cms/v2/media/${id}`,
          as: 'admin',
          payload: { post: BIG, title: 'not stored' },
        });
        expect(write.statusCode, write.body).toBe(400);
        expect(write.json()).toEqual(OUT_OF_RANGE);
        const read = await cms.call({ method: 'GET', url: `/cms-json/cms/v2/media/${id}?context=edit`, as: 'admin' });
        expect(read.json()).toMatchObject({ post: null, title: { raw: 'Picture' } });
      },
    );

    it.runIf(dialect.name === 'sqlite')('is no error on SQLite, whose integers are 64-bit', async () => {
      const id = await attachment();
      const write = await cms.call({
        method: 'POST',
        url: `/cms-json/cms/v2/media/${id}`,
        as: 'admin',
        payload: { post: BIG },
      });
      expect(write.statusCode, write.body).toBe(200);
      expect(write.json().post).toBe(BIG);
    });
  });
});
