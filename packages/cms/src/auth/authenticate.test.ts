import { describe, expect, it } from 'vitest';
import type { ApplicationPasswordsRepository } from '../db/application-passwords-repository.ts';
import type { User, UsersRepository } from '../db/users-repository.ts';
import { isRestError } from '../rest/errors.ts';
import { RestRequest } from '../rest/request.ts';
import { hashApplicationPassword } from './application-passwords.ts';
import { Authenticator } from './authenticate.ts';

const SECRET = 'unit-test-secret';

/** Two users whose logins differ only by a dot, each with an application password. */
function authenticator() {
  const users = [
    { id: 1, login: 'a.b', roles: ['administrator'], caps: {} },
    { id: 2, login: 'ab', roles: ['subscriber'], caps: {} },
  ] as unknown as User[];
  const passwords: Record<number, string> = { 1: 'AAAAbbbbCCCCddddEEEEffff', 2: 'ZZZZyyyyXXXXwwwwVVVVuuuu' };
  const lookups: string[] = [];
  const auth = new Authenticator({
    users: {
      findByLogin: async (login: string) => {
        lookups.push(login);
        return users.find((u) => u.login === login) ?? null;
      },
      findByEmail: async () => null,
    } as unknown as UsersRepository,
    appPasswords: {
      listForUser: async (userId: number) => [
        { uuid: `u${userId}`, password_hash: hashApplicationPassword(passwords[userId] ?? '', SECRET), last_used: 2e9 },
      ],
      recordUse: async () => {},
    } as unknown as ApplicationPasswordsRepository,
    secret: SECRET,
    now: () => new Date(0),
  });
  const as = (login: string, password: string) =>
    auth.authenticate(
      new RestRequest({
        method: 'GET',
        route: '/',
        headers: { authorization: `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}` },
      }),
    );
  return { as, lookups, passwords };
}

describe('Authenticator', () => {
  it('remembers a verified credential, the password with or without its display spaces', async () => {
    const { as, lookups } = authenticator();
    const first = await as('a.b', 'AAAA bbbb CCCC dddd EEEE ffff');
    expect(isRestError(first) ? null : first?.user.id).toBe(1);
    const again = await as('a.b', 'AAAAbbbbCCCCddddEEEEffff');
    expect(isRestError(again) ? null : again?.user.id).toBe(1);
    expect(lookups).toEqual(['a.b']);
  });

  it('does not take another name made of the same letters for a remembered credential', async () => {
    const { as } = authenticator();
    expect(await as('a.b', 'AAAAbbbbCCCCddddEEEEffff')).toMatchObject({ user: { id: 1 } });
    // `ab` with a.b's password is checked (and refused), not answered from a.b's remembered credential.
    const other = await as('ab', 'AAAAbbbbCCCCddddEEEEffff');
    expect(isRestError(other) && other.code).toBe('incorrect_password');
    const shifted = await as('a', 'bAAAAbbbbCCCCddddEEEEffff');
    expect(isRestError(shifted) && shifted.code).toBe('invalid_username');
  });
});
