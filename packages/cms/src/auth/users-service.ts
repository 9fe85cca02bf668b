/**
 * User operations shared by the REST controller and the CLI (wp_insert_user, wp_update_user,
 * wp_delete_user): the same checks and the same error codes wherever a user is created.
 */

import { ksesData, sanitizeNameField } from '../content/render/kses.ts';
import { sanitizeTitle } from '../content/slugs.ts';
import { COLUMN_WIDTHS, charLength } from '../db/column-widths.ts';
import type { User } from '../db/users-repository.ts';
import { writeTransaction } from '../db/write-transaction.ts';
import type { CmsContext } from '../module.ts';
import { RestError } from '../rest/errors.ts';
import { isEmail, sanitizeUrl, sanitizeUser, stripAllTags } from '../rest/formatting.ts';
import { hashPassword } from './passwords.ts';
import { ROLES } from './roles.ts';

export interface NewUser {
  login: string;
  email: string;
  password: string;
  roles?: string[];
  displayName?: string;
  firstName?: string;
  lastName?: string;
  nickname?: string;
  slug?: string;
  description?: string;
  url?: string;
  locale?: string;
}

/** validate_username(): the login survives sanitize_user in strict mode unchanged. */
export function isValidUsername(login: string): boolean {
  return login !== '' && sanitizeUser(login, true) === login;
}

/** The current time as WordPress stores it: `YYYY-MM-DD HH:MM:SS` GMT. */
export function mysqlDate(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

/**
 * pre_user_url: wp_strip_all_tags(), sanitize_url(), then wp_filter_kses(), which leaves a `&` in a query
 * string as `&amp;`, as WordPress stores it.
 */
export function sanitizeUserUrl(value: unknown): string {
  return ksesData(sanitizeUrl(stripAllTags(String(value ?? ''))));
}

/** pre_user_email after the address was checked: wp_filter_kses() keeps a `&` as `&amp;`. */
export function sanitizeUserEmail(value: string): string {
  return ksesData(value.trim());
}

/** PHP's empty() for an optional string: absent, '' or '0'. */
export function phpEmpty(value: string | undefined | null): value is '' | '0' | undefined | null {
  return value === undefined || value === null || value === '' || value === '0';
}

/**
 * The display name wp_insert_user() gives a new user who has none: "First Last" from the (already
 * filtered) first and last names, or the one that is not empty, else the login. An update without a
 * display name gets the login instead (WordPress recomputes nothing from the names then).
 */
export function defaultDisplayName(login: string, firstName: string, lastName: string): string {
  const first = !phpEmpty(firstName);
  const last = !phpEmpty(lastName);
  if (first && last) return `${firstName} ${lastName}`;
  if (first) return firstName;
  if (last) return lastName;
  return login;
}

const USER_WIDTHS = COLUMN_WIDTHS.users;

/**
 * wp_insert_user()'s own length checks, with its codes (WordPress sends them without a status, so 500; bad
 * input answers 400 here): the login, the nicename and the URL (once filtered) against their columns. The
 * other columns (display name, email) are checked by the repository (db_insert_error / db_update_error).
 */
export function checkUserLengths(values: { login?: string; nicename?: string; url?: string }): void {
  if (values.login !== undefined && charLength(values.login) > USER_WIDTHS.login) {
    throw new RestError('user_login_too_long', 'Username may not be longer than 60 characters.', { status: 400 });
  }
  if (values.nicename !== undefined && charLength(values.nicename) > USER_WIDTHS.nicename) {
    throw new RestError('user_nicename_too_long', 'Nicename may not be longer than 50 characters.', { status: 400 });
  }
  if (values.url !== undefined && charLength(values.url) > USER_WIDTHS.url) {
    throw new RestError('user_url_too_long', 'User URL may not be longer than 100 characters.', { status: 400 });
  }
}

/**
 * A nicename not used by another user (wp_insert_user's `-2`, `-3` suffixes, the base cut so that the
 * suffixed name keeps within the column's 50 characters).
 */
async function uniqueNicename(ctx: CmsContext, base: string, exceptId?: number): Promise<string> {
  let candidate = base;
  for (let n = 2; ; n++) {
    const other = await ctx.users.findBySlug(candidate);
    if (!other || other.id === exceptId) return candidate;
    const suffix = `-${n}`;
    candidate = `${Array.from(base)
      .slice(0, USER_WIDTHS.nicename - suffix.length)
      .join('')}${suffix}`;
  }
}

/**
 * wp_insert_user(): creates a user with WordPress's error codes. WordPress sends a duplicate login or
 * email with no status (so 500); ours are 400, because bad input never answers 500 here.
 */
export async function createUser(ctx: CmsContext, input: NewUser): Promise<User> {
  const login = sanitizeUser(input.login.trim(), true);
  if (login === '') throw new RestError('empty_user_login', 'Cannot create a user with an empty login name.');
  checkUserLengths({ login });
  if (await ctx.users.findByLogin(login))
    throw new RestError('existing_user_login', 'Sorry, that username already exists!', { status: 400 });
  const typedEmail = input.email.trim();
  if (typedEmail !== '' && !isEmail(typedEmail))
    throw new RestError('invalid_email', 'Invalid email address.', { status: 400 });
  const email = sanitizeUserEmail(typedEmail);
  if (email !== '' && (await ctx.users.findByEmail(email))) {
    throw new RestError('existing_user_email', 'Sorry, that email address is already used!', { status: 400 });
  }
  for (const role of input.roles ?? []) {
    if (!ROLES[role])
      throw new RestError('rest_user_invalid_role', `The role ${role} does not exist.`, { status: 400 });
  }
  // wp_insert_user(): a nicename given is refused when too long; one made from the login takes its first 50
  // characters.
  const fromLogin = sanitizeTitle(login.slice(0, USER_WIDTHS.nicename));
  const nicenameBase = (input.slug === undefined ? '' : sanitizeTitle(input.slug)) || fromLogin;
  checkUserLengths({ nicename: nicenameBase });
  const url = input.url === undefined ? '' : sanitizeUserUrl(input.url);
  checkUserLengths({ url });
  const nicename = await uniqueNicename(ctx, nicenameBase);
  const defaultRole = String(await ctx.options.get('default_role', 'subscriber'));
  // wp_insert_user(): empty values (PHP's empty(): '' and '0') fall back; names are stored escaped by the
  // pre_user_* save filters ("A & B" as "A &amp; B").
  const firstName = sanitizeNameField(phpEmpty(input.firstName) ? '' : input.firstName);
  const lastName = sanitizeNameField(phpEmpty(input.lastName) ? '' : input.lastName);
  const id = await ctx.users.insert({
    login,
    pass_hash: await hashPassword(input.password),
    nicename,
    email,
    url,
    registered: mysqlDate(ctx.now()),
    display_name: sanitizeNameField(
      phpEmpty(input.displayName) ? defaultDisplayName(login, firstName, lastName) : input.displayName,
    ),
    first_name: firstName,
    last_name: lastName,
    nickname: sanitizeNameField(phpEmpty(input.nickname) ? login : input.nickname),
    description: input.description ?? '',
    locale: input.locale ?? '',
    roles: input.roles && input.roles.length > 0 ? input.roles : [defaultRole],
  });
  const user = await ctx.users.findById(id);
  if (!user) throw new RestError('rest_user_create', 'Error creating new user.', { status: 500 });
  return user;
}

/** wp_delete_user(): removes the user; their posts go to `reassignTo` or are deleted with them. */
export async function deleteUser(ctx: CmsContext, userId: number, reassignTo: number | null): Promise<void> {
  await writeTransaction(ctx.db, async (trx) => {
    if (reassignTo) await ctx.content.reassignPosts(trx, userId, reassignTo);
    else await ctx.content.deletePostsOfUser(trx, userId);
    await ctx.users.delete(userId, trx);
  });
}

export { uniqueNicename };
