/**
 * What a post create (and the reads the bench repeats) cost on SQLite, as the statements they run:
 * guards against statements that are slow for reasons a response does not show.
 */
import { testDialects } from '@svc/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContentCms, createContentCms } from './helpers/content-cms.ts';
import { recordStatements } from './helpers/statement-recorder.ts';

const recorder = recordStatements();
const sqlite = testDialects().find((d) => d.name === 'sqlite')!;

describe('statements on SQLite', () => {
  let cms: ContentCms;
  beforeAll(async () => {
    cms = await createContentCms({ dialect: sqlite });
  });
  afterAll(async () => cms.close());

  it('binds no LIMIT: SQLite compiles a statement again each time its LIMIT parameter is bound', async () => {
    recorder.clear();
    const created = await cms.post('/posts', { title: 'Limits', content: 'Body.', status: 'publish' }, 'admin');
    expect(created.statusCode).toBe(201);
    expect((await cms.get('/posts?per_page=5&page=1')).statusCode).toBe(200);
    expect((await cms.get('/posts?context=edit', 'admin')).statusCode).toBe(200);
    expect((await cms.get('/categories?per_page=5')).statusCode).toBe(200);
    expect((await cms.get('/users?per_page=5', 'admin')).statusCode).toBe(200);
    const limited = recorder.runs.filter((sql) => /\blimit\b/i.test(sql));
    expect(limited.length).toBeGreaterThan(0);
    expect(limited.filter((sql) => /\blimit\s+\?/i.test(sql))).toEqual([]);
  });
});

describe('a create on SQLite', () => {
  let cms: ContentCms;
  beforeAll(async () => {
    cms = await createContentCms({ dialect: sqlite });
  });
  afterAll(async () => cms.close());

  it('writes the guid with the row and reads nothing of the post back after its commit', async () => {
    const tag = (await cms.post('/tags', { name: 'Read back' }, 'admin')).json().id;
    recorder.clear();
    const body = { title: 'Read back', content: 'Body.', status: 'publish', tags: [tag], meta: { footnotes: 'x' } };
    const created = await cms.post('/posts', body, 'admin');
    expect(created.statusCode).toBe(201);
    const runs = recorder.runs;
    expect(runs.filter((sql) => /^update "posts" set "guid"/.test(sql))).toEqual([]);
    // The permission check needs no term: an administrator may assign any existing tag.
    expect(runs.slice(0, runs.indexOf('begin')).filter((sql) => /from "terms"/.test(sql))).toEqual([]);
    // After the commit, only the options cache (no TTL in tests) reads anything.
    const after = runs.slice(runs.lastIndexOf('commit') + 1);
    expect(after.filter((sql) => sql !== 'select "name", "value" from "options"')).toEqual([]);
  });

  it("writes a draft's guid (its plain ?p= link, which needs the id) once the row has its id", async () => {
    recorder.clear();
    const created = await cms.post('/posts', { title: 'Plain link', content: 'Body.', status: 'draft' }, 'admin');
    expect(created.statusCode).toBe(201);
    const { id, guid } = created.json() as { id: number; guid: { raw: string } };
    expect(guid.raw).toBe(`http://cms.test/?p=${id}`);
    expect(recorder.runs.filter((sql) => /^update "posts" set "guid"/.test(sql))).toHaveLength(1);
  });
});
