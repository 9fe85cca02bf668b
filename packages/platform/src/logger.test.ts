import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, redactUrl } from './logger.ts';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: createLogger({ destination, name: 'test' }) };
}

describe('createLogger', () => {
  it('writes JSON lines with the service name and an ISO time', () => {
    const { lines, logger } = capture();
    logger.info({ tripId: 'trip_1' }, 'scored');
    expect(lines[0]).toMatchObject({ level: 'info', service: 'test', tripId: 'trip_1', msg: 'scored' });
    expect(String(lines[0]?.time)).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('redacts authorization headers, tokens and passwords', () => {
    const { lines, logger } = capture();
    logger.info({
      req: { headers: { authorization: 'Bearer abc123', cookie: 'sid=1' } },
      user: { login: 'ann', password: 'hunter2' },
      token: 'tok_secret',
      config: { databaseUrl: 'postgres://u:p@h/db' },
    });
    const text = JSON.stringify(lines[0]);
    for (const secret of ['abc123', 'sid=1', 'hunter2', 'tok_secret', 'u:p@h']) expect(text).not.toContain(secret);
    expect(text).toContain('ann');
  });
});

describe('redactUrl', () => {
  it('hides secrets in query strings and URL credentials', () => {
    expect(redactUrl('/v1/trips?token=abc&page=2')).toBe('/v1/trips?token=[Redacted]&page=2');
    expect(redactUrl('/x?a=1&password=p%40ss#frag')).toBe('/x?a=1&password=[Redacted]#frag');
    expect(redactUrl('postgres://admin:s3cret@db:5432/app')).toBe('postgres://admin:[Redacted]@db:5432/app');
    expect(redactUrl('/v1/trips?page=2')).toBe('/v1/trips?page=2');
    expect(redactUrl('postgres://admin:s3@cr@t@db/app?x=a@b')).toBe('postgres://admin:[Redacted]@db/app?x=a@b');
    expect(redactUrl('http://db:5432/p@th')).toBe('http://db:5432/p@th');
  });

  it('hides a token or ingest key pasted into the path, and leaves ids of other shapes alone', () => {
    const token = `trips_live_${'A1b2-C3d4_'.repeat(4)}xyz`;
    const key = `ingest_sandbox_${'k'.repeat(43)}`;
    expect(redactUrl(`/v1/trips/${token}`)).toBe('/v1/trips/trips_live_[Redacted]');
    expect(redactUrl(`/ingest/v1/trips/${key}?x=1`)).toBe('/ingest/v1/trips/ingest_sandbox_[Redacted]?x=1');
    expect(redactUrl(`/v1/trips?vehicle=${token}`)).toBe('/v1/trips?vehicle=trips_live_[Redacted]');
    expect(redactUrl('/v1/trips/trip_7xp7fgsvvc6rmwfbom27f3tl3u')).toBe('/v1/trips/trip_7xp7fgsvvc6rmwfbom27f3tl3u');
    // One character more or less is not a credential of this shape.
    expect(redactUrl(`/v1/trips/${token}x`)).toBe(`/v1/trips/${token}x`);
  });

  it('hides a credential after a percent-escape or with escaped characters of its own', () => {
    const token = `trips_live_${'A1b2-C3d4_'.repeat(4)}xyz`;
    // `Bearer <token>` or a quoted token URL-encoded into a query: the escape's last hex digit was taken for a
    // letter of a longer word, and the token was logged as it came.
    expect(redactUrl(`/v1/trips?authorization=Bearer%20${token}`)).toBe(
      '/v1/trips?authorization=Bearer%20trips_live_[Redacted]',
    );
    expect(redactUrl(`/v1/trips?q=%22${token}%22`)).toBe('/v1/trips?q=%22trips_live_[Redacted]%22');
    // Encoded twice (or more) by a client that escapes what it built from escaped parts: `%2520` is `%20` escaped.
    expect(redactUrl(`/v1/trips?authorization=Bearer%2520${token}`)).toBe(
      '/v1/trips?authorization=Bearer%2520trips_live_[Redacted]',
    );
    expect(redactUrl(`/v1/trips?q=%252522${token}`)).toBe('/v1/trips?q=%252522trips_live_[Redacted]');
    // Escaped characters of the credential itself (a client escaping more than it must) are decoded to find it.
    expect(redactUrl(`/v1/trips/${token.replace('_live_', '%5Flive%5f').replace('A1b2', '%41%31b2')}?page=2`)).toBe(
      '/v1/trips/trips_live_[Redacted]?page=2',
    );
    // Other escaped paths are logged as they came.
    expect(redactUrl('/v1/vehicles/AB%2D123%20CD?window=30')).toBe('/v1/vehicles/AB%2D123%20CD?window=30');
    expect(redactUrl(`/v1/trips/%20${token}x`)).toBe(`/v1/trips/%20${token}x`);
  });
});
