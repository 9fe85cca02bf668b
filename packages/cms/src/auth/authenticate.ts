/**
 * HTTP Basic authentication with application passwords, as WordPress does for REST requests
 * (wp_authenticate_application_password + rest_application_password_check_errors): the user is found by
 * login (or by email when the name is an address); a wrong name is `invalid_username`, a password that
 * matches none of the user's application passwords is `incorrect_password`, both 401. No Authorization
 * header means an anonymous request. Login passwords are never accepted here, as in WordPress.
 */

import { hash } from 'node:crypto';
import type { ApplicationPasswordsRepository } from '../db/application-passwords-repository.ts';
import type { User, UsersRepository } from '../db/users-repository.ts';
import { RestError } from '../rest/errors.ts';
import { isEmail, sanitizeUser } from '../rest/formatting.ts';
import type { CurrentUser, RestRequest } from '../rest/request.ts';
import type { AuthResult } from '../rest/server.ts';
import { applicationPasswordMatches, normalizeApplicationPassword } from './application-passwords.ts';

export interface AuthenticatorDeps {
  users: UsersRepository;
  appPasswords: ApplicationPasswordsRepository;
  secret: string;
  now: () => Date;
  /** False: every request checks its credentials against the database (tests that write behind its back). */
  cache?: boolean;
  /**
   * The credentials generation now current (CacheGenerations.credentials): a remembered credential is used
   * only under the generation it was verified at. Without it, remembered credentials are forgotten only
   * through forgetUser().
   */
  generation?: () => unknown;
}

/** The authenticated user with the application password used, for `/users/.../introspect`. */
export interface AuthenticatedUser extends CurrentUser {
  readonly appPasswordUuid?: string;
}

const DAY_S = 86_400;

/**
 * The key a verified credential is remembered under: a SHA-256 of the server secret, the name and the
 * password as it is checked (display spaces removed), so no password is kept in memory. One hash call
 * (the HMAC it replaces cost ~20 µs a request in OpenSSL's set-up); the name stays apart from the
 * password, so `a.b` + password and `ab` + the same password are two credentials.
 */
function credentialsKey(username: string, password: string, secret: string): string {
  return hash('sha256', `${secret}\u0000${username}\u0000${normalizeApplicationPassword(password)}`, 'base64');
}

/** The kernel's view of a stored user. */
export function toCurrentUser(user: User, appPasswordUuid?: string): AuthenticatedUser {
  return {
    id: user.id,
    login: user.login,
    roles: user.roles,
    caps: user.caps,
    ...(appPasswordUuid ? { appPasswordUuid } : {}),
  };
}

export class Authenticator {
  private readonly deps: AuthenticatorDeps;
  /** Verified credentials, each with the generation of users and application passwords it was verified under. */
  private readonly cache = new Map<string, { user: AuthenticatedUser; generation: unknown }>();

  constructor(deps: AuthenticatorDeps) {
    this.deps = deps;
  }

  /** Forgets remembered credentials of a user (after a password is revoked or the user changes). */
  forgetUser(userId: number): void {
    for (const [key, entry] of this.cache) if (entry.user.id === userId) this.cache.delete(key);
  }

  /** Authenticates the request's Authorization header. */
  async authenticate(request: RestRequest): Promise<AuthResult> {
    const header = request.header('authorization');
    if (!header) return null;
    const m = /^Basic\s+(.+)$/i.exec(header.trim());
    if (!m) return null;
    let decoded: string;
    try {
      decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
    } catch {
      return null;
    }
    const colon = decoded.indexOf(':');
    if (colon === -1) return null;
    const username = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    const cached = this.deps.cache ?? true;
    const cacheKey = cached ? credentialsKey(username, password, this.deps.secret) : '';
    // Taken before the lookups: what they read is at least as new as this generation.
    const generation = this.deps.generation?.() ?? 0;
    if (cached) {
      const hit = this.cache.get(cacheKey);
      if (hit) {
        if (hit.generation === generation) return { user: hit.user };
        this.cache.delete(cacheKey);
      }
    }

    // get_user_by( 'login' ) looks the login up as sanitize_user() leaves it (tags, octets, entities and NUL removed,
    // white space collapsed): "ad\0min" is admin, and a NUL never reaches the database (PostgreSQL cannot compare it).
    let user = await this.deps.users.findByLogin(sanitizeUser(username, false));
    if (!user && isEmail(username)) user = await this.deps.users.findByEmail(username);
    if (!user) {
      return new RestError(
        'invalid_username',
        '<strong>Error:</strong> Unknown username. Check again or try your email address.',
        { status: 401 },
      );
    }
    const passwords = await this.deps.appPasswords.listForUser(user.id);
    for (const item of passwords) {
      if (!applicationPasswordMatches(password, item.password_hash, this.deps.secret)) continue;
      const nowS = Math.floor(this.deps.now().getTime() / 1000);
      // WordPress records usage at most once a day, which also keeps reads free of writes.
      if (item.last_used === null || item.last_used + DAY_S <= nowS) {
        await this.deps.appPasswords.recordUse(item.uuid, nowS, request.remoteAddress || null);
      }
      const current = toCurrentUser(user, item.uuid);
      if (cached) {
        if (this.cache.size > 1000) this.cache.clear();
        this.cache.set(cacheKey, { user: current, generation });
      }
      return { user: current };
    }
    return new RestError('incorrect_password', 'The provided password is an invalid application password.', {
      status: 401,
    });
  }
}
