import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkRelativePath, LocalDiskStorage } from './storage.ts';

describe('LocalDiskStorage', () => {
  let root: string;
  let storage: LocalDiskStorage;

  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'cms-storage-'));
    storage = new LocalDiskStorage({
      root: path.join(root, 'uploads'),
      baseUrl: 'http://site.test/cms-content/uploads/',
    });
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('writes, lists, reads, sizes and removes files under the root', async () => {
    await storage.create('2026/11/a.txt', Buffer.from('hello'));
    expect(await readFile(path.join(root, 'uploads/2026/11/a.txt'), 'utf8')).toBe('hello');
    expect(await storage.list('2026/11')).toEqual(['a.txt']);
    expect(await storage.list('2030/01')).toEqual([]);
    expect((await storage.read('2026/11/a.txt')).toString()).toBe('hello');
    expect(await storage.size('2026/11/a.txt')).toBe(5);
    expect(await storage.remove('2026/11/a.txt')).toBe(true);
    expect(await storage.remove('2026/11/a.txt')).toBe(false);
    expect(await storage.size('2026/11/a.txt')).toBeUndefined();
  });

  it('never overwrites: a second create of the same path fails with file_exists', async () => {
    await storage.create('x.txt', Buffer.from('1'));
    await expect(storage.create('x.txt', Buffer.from('2'))).rejects.toMatchObject({ code: 'file_exists' });
    expect((await storage.read('x.txt')).toString()).toBe('1');
  });

  it('refuses traversal, absolute, backslash and control-character paths', () => {
    for (const bad of ['../x', '2026/../../x', '/etc/passwd', 'a\\b', 'a/./b', '', 'a//b', 'a/\0b', 'a/..']) {
      expect(() => storage.resolve(bad), bad).toThrow(/Invalid media path/);
    }
    expect(() => checkRelativePath('2026/11/ok.png')).not.toThrow();
  });

  it('refuses a folder that a symbolic link moves outside the root', async () => {
    await storage.create('keep.txt', Buffer.from('k'));
    const outside = await mkdtemp(path.join(tmpdir(), 'cms-outside-'));
    await symlink(outside, path.join(root, 'uploads', 'evil'));
    await expect(storage.create('evil/x.txt', Buffer.from('x'))).rejects.toThrow(/Invalid media path/);
    await rm(outside, { recursive: true, force: true });
  });

  it('builds encoded public URLs', () => {
    expect(storage.url('2026/11/a b.png')).toBe('http://site.test/cms-content/uploads/2026/11/a%20b.png');
  });
});
