/** Paths where two JSON values differ (`a.b[2].c: ours X, oracle Y`), for field-by-field comparisons. */
export function jsonDiff(ours: unknown, oracle: unknown, path = ''): string[] {
  if (JSON.stringify(ours) === JSON.stringify(oracle)) return [];
  const isObj = (v: unknown) => v !== null && typeof v === 'object';
  if (!isObj(ours) || !isObj(oracle) || Array.isArray(ours) !== Array.isArray(oracle)) {
    return [`${path || '.'}: ours ${JSON.stringify(ours)}, oracle ${JSON.stringify(oracle)}`];
  }
  const out: string[] = [];
  const a = ours as Record<string, unknown>;
  const b = oracle as Record<string, unknown>;
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const sub = Array.isArray(ours) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
    if (!(key in a)) out.push(`${sub}: missing in ours`);
    else if (!(key in b)) out.push(`${sub}: extra in ours`);
    else out.push(...jsonDiff(a[key], b[key], sub));
  }
  if (out.length === 0 && !Array.isArray(ours)) out.push(`${path || '.'}: key order differs`);
  return out;
}
