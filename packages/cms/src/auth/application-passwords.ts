/**
 * Application passwords as WordPress makes them (WP_Application_Passwords, 5.6+): 24 characters from
 * `[a-zA-Z0-9]`, shown once in groups of four (`abcd efgh ijkl mnop qrst uvwx`); spaces are ignored
 * when the password is presented back.
 *
 * Storage differs from WordPress on purpose: the password has ~142 bits of entropy, so a slow KDF adds
 * nothing but latency to every API call; it is stored as HMAC-SHA256 keyed with the server secret
 * (CMS_SECRET or the generated key file under DATA_DIR), which also means a leaked database alone does
 * not allow offline checks.
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { randomString } from './passwords.ts';

export const APP_PASSWORD_LENGTH = 24;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** A new random application password (unformatted). */
export function generateApplicationPassword(): string {
  return randomString(APP_PASSWORD_LENGTH, ALPHABET);
}

/** WP_Application_Passwords::chunk_password(): groups of four separated by spaces. */
export function chunkPassword(password: string): string {
  return (password.match(/.{1,4}/g) ?? []).join(' ');
}

/** The password as the user typed it, with the display spaces removed. */
export function normalizeApplicationPassword(input: string): string {
  return input.replace(/[^a-z\d]/gi, '');
}

/** The stored form of an application password. */
export function hashApplicationPassword(password: string, secret: string): string {
  return createHmac('sha256', secret).update(normalizeApplicationPassword(password)).digest('hex');
}

/** Constant-time comparison of a presented password with a stored hash. */
export function applicationPasswordMatches(password: string, storedHash: string, secret: string): boolean {
  const presented = Buffer.from(hashApplicationPassword(password, secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}

/** A new application password's uuid (WordPress uses wp_generate_uuid4). */
export function newUuid(): string {
  return randomUUID();
}
