import { BlockList, isIP } from 'node:net';

/**
 * Networks a server-side request must never reach unless configured: "this" network, private, loopback,
 * link-local, carrier-grade NAT, documentation/benchmark ranges, multicast and reserved space, and their
 * IPv6 counterparts (unique-local, link-local, site-local, multicast, documentation, discard).
 */
const BLOCKED_IPV4: ReadonlyArray<[string, number]> = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

const BLOCKED_IPV6: ReadonlyArray<[string, number]> = [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['2001:db8::', 32],
  ['2001:10::', 28],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
];

/** Settings of {@link AddressPolicy}. */
export interface AddressPolicyOptions {
  /** CIDR blocks that are allowed even though they are private/loopback (`127.0.0.0/8`, `fd00::/8`). */
  allowedNetworks?: readonly string[];
  /** Ports a URL may name; WordPress's safe ports (80, 443, 8080) by default; `'any'` lifts the rule. */
  allowedPorts?: readonly number[] | 'any';
}

/** Decides which addresses and ports a server-side request may connect to. */
export class AddressPolicy {
  readonly #blocked = new BlockList();
  readonly #allowed = new BlockList();
  readonly #ports: ReadonlySet<number> | 'any';

  constructor(options: AddressPolicyOptions = {}) {
    for (const [net, prefix] of BLOCKED_IPV4) this.#blocked.addSubnet(net, prefix, 'ipv4');
    for (const [net, prefix] of BLOCKED_IPV6) this.#blocked.addSubnet(net, prefix, 'ipv6');
    for (const cidr of options.allowedNetworks ?? []) {
      const [net, bits] = cidr.split('/');
      const family = net ? isIP(net) : 0;
      if (!net || family === 0) throw new Error(`Invalid network "${cidr}" in the oEmbed allow-list.`);
      const prefix = bits === undefined ? (family === 4 ? 32 : 128) : Number(bits);
      if (!Number.isInteger(prefix) || prefix < 0 || prefix > (family === 4 ? 32 : 128)) {
        throw new Error(`Invalid prefix length in "${cidr}" in the oEmbed allow-list.`);
      }
      this.#allowed.addSubnet(net, prefix, family === 4 ? 'ipv4' : 'ipv6');
    }
    this.#ports = options.allowedPorts === 'any' ? 'any' : new Set(options.allowedPorts ?? [80, 443, 8080]);
  }

  /** Whether a port may be named explicitly in a URL. */
  isPortAllowed(port: number): boolean {
    return this.#ports === 'any' || this.#ports.has(port);
  }

  /** Whether an IP address may be connected to. */
  isAddressAllowed(address: string): boolean {
    const normalised = normaliseAddress(address);
    const family = isIP(normalised);
    if (family === 0) return false;
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (this.#allowed.check(normalised, type)) return true;
    if (this.#blocked.check(normalised, type)) return false;
    if (family === 6) {
      // Addresses that carry an IPv4 address (mapped, NAT64, 6to4) are judged by that address.
      const embedded = embeddedIpv4(normalised);
      if (embedded !== undefined) return this.isAddressAllowed(embedded);
    }
    return true;
  }
}

/** Strips brackets and a zone index; lower-cases. */
function normaliseAddress(address: string): string {
  return address
    .replace(/^\[|\]$/g, '')
    .replace(/%.*$/, '')
    .toLowerCase();
}

/** The IPv4 address inside an IPv4-mapped (`::ffff:a.b.c.d`), NAT64 (`64:ff9b::/96`) or 6to4 address. */
function embeddedIpv4(address: string): string | undefined {
  const groups = expandIpv6(address);
  if (!groups) return undefined;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && (g5 === 0xffff || g5 === 0)) return v4(g6, g7);
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return v4(g6, g7);
  if (g0 === 0x2002) return v4(g1, g2);
  return undefined;
}

/** The eight 16-bit groups of an IPv6 address (an embedded dotted IPv4 tail allowed). */
function expandIpv6(address: string): number[] | undefined {
  let text = address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const parts = dotted[1].split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((parts[0] << 8) | parts[1]).toString(16)}:${((parts[2] << 8) | parts[3]).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  if (tail === undefined ? missing !== 0 : missing < 0) return undefined;
  const groups = [...headGroups, ...Array(tail === undefined ? 0 : missing).fill('0'), ...tailGroups];
  const numbers = groups.map((g) => Number.parseInt(g, 16));
  return numbers.length === 8 && numbers.every((n) => Number.isInteger(n) && n >= 0 && n <= 0xffff)
    ? numbers
    : undefined;
}
