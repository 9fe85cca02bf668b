import { createHash } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * This machine's boot and process namespace, hashed: two lease holders with the same host name and this tag run
 * under the same kernel boot and see the same process ids, so a holder's pid can be checked here. Empty where it
 * cannot be known (not Linux), and then no holder is ever judged dead from here.
 */
function machineTag(): string {
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const pidNamespace = readlinkSync('/proc/self/ns/pid');
    return createHash('sha256').update(`${boot}\n${pidNamespace}`).digest('hex').slice(0, 12);
  } catch {
    return '';
  }
}

const TAG = machineTag();

/** A lease holder's name for this process: `host:pid:tag-random` (the random part tells two runs apart). */
export function leaseOwnerName(random: string): string {
  return `${hostname()}:${process.pid}:${TAG}-${random}`;
}

/**
 * Whether the holder named `owner` (as leaseOwnerName names it) is a process of this machine that is no longer
 * running, so its lease can be taken at once instead of after it expires. False whenever that cannot be known
 * for sure: another host, another boot or process namespace (a container with the same host name), an older
 * name without the tag, or a pid that is alive (perhaps reused by another process: then the lease is waited for).
 */
export function isDeadLocalHolder(owner: string | null): boolean {
  if (!owner || TAG === '') return false;
  const match = /^(.*):(\d+):([0-9a-f]{12})-[^:]*$/.exec(owner);
  if (!match || match[1] !== hostname() || match[3] !== TAG) return false;
  const pid = Number(match[2]);
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    // EPERM: it exists under another user.
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
