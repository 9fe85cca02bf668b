/**
 * The display name wp_insert_user() gives: a user created without `name` is called "First Last" when both
 * names are given, by the one given when only one is, else by the login (names escaped as stored, `''` and
 * `'0'` empty as PHP's empty()); an empty nickname is the login. An update recomputes nothing from the
 * names: new first and last names leave the display name alone, and an empty `name` or `nickname` becomes
 * the login.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestCms, dialects, type TestCms } from './helpers/cms-test-app.ts';

describe.each(dialects())('user display names on $label', (dialect) => {
  let cms: TestCms;
  beforeAll(async () => {
    if (dialect.skip) return;
    cms = await createTestCms(dialect);
  });
  afterAll(async () => cms?.close());

  const create = async (username: string, fields: Record<string, unknown>) => {
    const res = await cms.call({
      method: 'POST',
      url: '/cms-json/cms/v2/users',
      as: 'admin',
      payload: { username, email: `${username}@example.test`, password: 'a long enough password 1', ...fields },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: number; name: string; nickname: string; first_name: string; last_name: string };
  };
  const update = async (id: number, fields: Record<string, unknown>) => {
    const res = await cms.call({ method: 'POST', url: `/cms-json/cms/v2/users/${id}`, as: 'admin', payload: fields });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { name: string; nickname: string; first_name: string; last_name: string };
  };

  describe.skipIf(dialect.skip)('', () => {
    it('names a new user "First Last" from both names, escaped as stored', async () => {
      const user = await create('ada', { first_name: 'Ada', last_name: 'Lovelace & Co' });
      expect(user).toMatchObject({ name: 'Ada Lovelace &amp; Co', first_name: 'Ada', nickname: 'ada' });
    });

    it('names a new user by the only name given, else by the login', async () => {
      expect((await create('grace', { first_name: 'Grace' })).name).toBe('Grace');
      expect((await create('hopper', { last_name: 'Hopper' })).name).toBe('Hopper');
      expect((await create('nobody', {})).name).toBe('nobody');
      expect((await create('zero', { first_name: '0', last_name: 'Zed' })).name).toBe('Zed');
    });

    it('treats an empty name or nickname on create as none', async () => {
      const user = await create('empty', { name: '', nickname: '', first_name: 'Emma', last_name: 'Pty' });
      expect(user).toMatchObject({ name: 'Emma Pty', nickname: 'empty' });
    });

    it('keeps an explicit name', async () => {
      expect((await create('alan', { name: 'Dr Turing', first_name: 'Alan', last_name: 'Turing' })).name).toBe(
        'Dr Turing',
      );
    });

    it('does not recompute the display name on update; an empty name or nickname becomes the login', async () => {
      const { id } = await create('linus', {});
      const renamed = await update(id, { first_name: 'Linus', last_name: 'Torvalds' });
      expect(renamed).toMatchObject({ name: 'linus', first_name: 'Linus', last_name: 'Torvalds' });
      expect((await update(id, { name: 'Linus T.' })).name).toBe('Linus T.');
      const emptied = await update(id, { name: '', nickname: '', first_name: '0' });
      expect(emptied).toMatchObject({ name: 'linus', nickname: 'linus', first_name: '', last_name: 'Torvalds' });
    });
  });
});
