import SQLite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { withStatementCache } from './statement-cache.ts';

describe('withStatementCache', () => {
  it('compiles each SQL text once and keeps results correct', () => {
    const raw = new SQLite(':memory:');
    let compiled = 0;
    const counting = new Proxy(raw, {
      get(target, prop) {
        if (prop === 'prepare') {
          return (sql: string) => {
            compiled++;
            return target.prepare(sql);
          };
        }
        const value = Reflect.get(target, prop);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const db = withStatementCache(counting, 2);
    db.prepare('create table t (id integer primary key, name text)').run([]);
    const insert = 'insert into t (name) values (?)';
    for (const name of ['a', 'b', 'c']) db.prepare(insert).run([name]);
    const select = 'select name from t where id = ?';
    expect(db.prepare(select).all([2])).toEqual([{ name: 'b' }]);
    expect(db.prepare(select).all([3])).toEqual([{ name: 'c' }]);
    expect(compiled).toBe(3);
    // Capacity 2: a new text evicts the least recently used (the insert), the recently used select stays.
    db.prepare('select count(*) as n from t').all([]);
    expect(compiled).toBe(4);
    expect(db.prepare(select).all([1])).toEqual([{ name: 'a' }]);
    expect(compiled).toBe(4);
    db.prepare(insert).run(['d']);
    expect(compiled).toBe(5);
    raw.close();
  });

  it('gives a stream its own statement, so a half-read cursor does not block the cached one', () => {
    const raw = new SQLite(':memory:');
    const db = withStatementCache(raw);
    db.prepare('create table t (id integer primary key)').run([]);
    for (let i = 1; i <= 3; i++) db.prepare('insert into t (id) values (?)').run([i]);
    const sql = 'select id from t order by id';
    const cursor = db.prepare(sql).iterate([]);
    expect(cursor.next().value).toEqual({ id: 1 });
    expect(db.prepare(sql).all([])).toHaveLength(3);
    cursor.return?.();
    raw.close();
  });
});
