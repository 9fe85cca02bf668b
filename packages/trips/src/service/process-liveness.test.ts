import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { isDeadLocalHolder, leaseOwnerName } from './process-liveness.ts';

const linux = existsSync('/proc/sys/kernel/random/boot_id');
const withPid = (owner: string, pid: number) => owner.replace(`:${process.pid}:`, `:${pid}:`);

describe.skipIf(!linux)('lease holders of this machine', () => {
  const alive = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
  afterAll(() => {
    alive.kill();
  });

  it('knows a holder whose process has exited as dead, and no other', () => {
    const exited = spawnSync(process.execPath, ['-e', '0']).pid!;
    const mine = leaseOwnerName('abcd1234');
    expect(isDeadLocalHolder(withPid(mine, exited))).toBe(true);
    // Alive, or this very process.
    expect(isDeadLocalHolder(withPid(mine, alive.pid!))).toBe(false);
    expect(isDeadLocalHolder(mine)).toBe(false);
    // Another host, another boot or process namespace, a name from before the tag, none.
    expect(isDeadLocalHolder(withPid(mine, exited).replace(/^[^:]*/, 'other-host'))).toBe(false);
    expect(isDeadLocalHolder(withPid(mine, exited).replace(/:[0-9a-f]{12}-/, ':000000000000-'))).toBe(false);
    expect(isDeadLocalHolder(withPid(mine, exited).replace(/:[0-9a-f]{12}-/, ':'))).toBe(false);
    expect(isDeadLocalHolder(null)).toBe(false);
  });
});
