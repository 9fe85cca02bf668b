/**
 * Request bodies the HTTP layer refuses before a route sees them (too large, a broken multipart body) answer in
 * the REST error shape a WordPress client reads, never Fastify's own `{ statusCode, error }` body or a 500; and the
 * body cap follows CMS_MAX_UPLOAD_MB when that is above 64 MiB, so the setting can actually allow larger uploads.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger } from '@svc/platform';
import { testDialects } from '@svc/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type CmsApp } from '../src/app.ts';
import { installIfNeeded } from '../src/bootstrap.ts';
import { loadCmsConfig } from '../src/config.ts';
import { allMigrations, MIGRATION_TABLE } from '../src/db/connection.ts';
import type { CmsDatabase } from '../src/db/schema.ts';
import { basic, TEST_SECRET } from './helpers/cms-test-app.ts';

const MiB = 1024 * 1024;

/** A CMS with the given environment, its administrator's credentials, and a way to close it. */
async function startCms(env: Record<string, string>) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'cms-bodies-'));
  const database = await testDialects()[0]!.open<CmsDatabase>(allMigrations(), { migrationTable: MIGRATION_TABLE });
  const config = loadCmsConfig({ env: { DATA_DIR: dataDir, CMS_SEED_SAMPLE: 'false', ...env } });
  const cms: CmsApp = await buildApp({
    config,
    database,
    logger: createLogger({ level: 'silent' }),
    secret: TEST_SECRET,
  });
  const first = await installIfNeeded(cms, config);
  const authorization = basic(first!.login, first!.applicationPassword);
  return {
    cms,
    authorization,
    async close() {
      await cms.app.close();
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

describe('request bodies refused by the HTTP layer', () => {
  let site: Awaited<ReturnType<typeof startCms>>;
  beforeAll(async () => {
    site = await startCms({});
  });
  afterAll(async () => {
    await site?.close();
  });

  it('answers a body past the cap with a REST error 413, not the framework body', async () => {
    const res = await site.cms.app.inject({
      method: 'POST',
      url: '/cms-json/cms/v2/media',
      headers: {
        authorization: site.authorization,
        'content-type': 'text/plain',
        'content-disposition': 'attachment; filename="big.txt"',
      },
      payload: Buffer.alloc(64 * MiB + 1, 'a'),
    });
    expect(res.statusCode).toBe(413);
    expect(res.headers['content-type']).toBe('application/json; charset=UTF-8');
    expect(res.json()).toEqual({
      code: 'rest_request_too_large',
      message: 'The request is larger than the 64 MB this site accepts.',
      data: { status: 413 },
    });
  });

  it('answers a multipart body that ends early with a REST error 400, not a 500', async () => {
    const res = await site.cms.app.inject({
      method: 'POST',
      url: '/cms-json/cms/v2/media',
      headers: { authorization: site.authorization, 'content-type': 'multipart/form-data; boundary=xx' },
      payload: '--xx\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nabc',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'rest_invalid_body', data: { status: 400 } });
    expect(res.json().message).toMatch(/^The request body could not be read: /);
  });

  it('keeps the other REST answers of a refused body: _envelope, CORS', async () => {
    const res = await site.cms.app.inject({
      method: 'POST',
      url: '/cms-json/cms/v2/media?_envelope',
      headers: {
        authorization: site.authorization,
        origin: 'http://client.test',
        'content-type': 'multipart/form-data; boundary=xx',
      },
      payload: '--xx\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nabc',
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('http://client.test');
    expect(res.json()).toMatchObject({ status: 400, body: { code: 'rest_invalid_body' } });
  });
});

describe('CMS_MAX_UPLOAD_MB above 64', () => {
  let site: Awaited<ReturnType<typeof startCms>>;
  beforeAll(async () => {
    site = await startCms({ CMS_MAX_UPLOAD_MB: '66' });
  });
  afterAll(async () => {
    await site?.close();
  });

  it('lets a body of more than 64 MiB reach the upload, which decides on it', async () => {
    // Not a PNG: the upload refuses it by its content, which shows the body got past the cap.
    const res = await site.cms.app.inject({
      method: 'POST',
      url: '/cms-json/cms/v2/media',
      headers: {
        authorization: site.authorization,
        'content-type': 'image/png',
        'content-disposition': 'attachment; filename="big.png"',
      },
      payload: Buffer.alloc(65 * MiB, 'a'),
    });
    expect(res.json()).toMatchObject({ code: 'rest_upload_sideload_error', data: { status: 400 } });
  });

  it('refuses a body past the upload limit with the limit in the message', async () => {
    const res = await site.cms.app.inject({
      method: 'POST',
      url: '/cms-json/cms/v2/media',
      headers: {
        authorization: site.authorization,
        'content-type': 'image/png',
        'content-disposition': 'attachment; filename="big.png"',
      },
      payload: Buffer.alloc(66 * MiB + 1, 'a'),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().message).toBe('The request is larger than the 66 MB this site accepts.');
  });
});
