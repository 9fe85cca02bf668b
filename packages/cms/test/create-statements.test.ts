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
