/** The two environments of the service. They run the same code against separate databases. */
export const ENVIRONMENTS = ['production', 'sandbox'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** Parses an `--env` / config value; throws a one-line error naming the allowed values. */
export function parseEnvironment(value: string): Environment {
  if ((ENVIRONMENTS as readonly string[]).includes(value)) return value as Environment;
  throw new Error(`unknown environment "${value}": use production or sandbox`);
}
