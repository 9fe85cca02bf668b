import { describe, expect, it } from 'vitest';
import { AddressPolicy } from './address-policy.ts';

describe('AddressPolicy', () => {
  const policy = new AddressPolicy();

  it('refuses private, loopback, link-local, multicast and reserved IPv4 addresses', () => {
    for (const address of [
      '127.0.0.1',
      '127.5.6.7',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '239.255.255.250',
      '240.0.0.1',
      '255.255.255.255',
      '192.0.2.10',
      '198.18.0.1',
    ]) {
      expect(policy.isAddressAllowed(address), address).toBe(false);
    }
  });

  it('refuses the IPv6 equivalents, also when they wrap a private IPv4 address', () => {
    for (const address of [
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd12:3456::1',
      'ff02::1',
      '2001:db8::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '64:ff9b::a00:1',
      '2002:c0a8:101::1',
      '[::1]',
      'fe80::1%eth0',
    ]) {
      expect(policy.isAddressAllowed(address), address).toBe(false);
    }
  });

  it('allows public addresses', () => {
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8', '172.32.0.1']) {
      expect(policy.isAddressAllowed(address), address).toBe(true);
    }
  });

  it('refuses things that are not IP addresses', () => {
    expect(policy.isAddressAllowed('localhost')).toBe(false);
    expect(policy.isAddressAllowed('')).toBe(false);
  });

  it('lets an allow-list open chosen networks only', () => {
    const open = new AddressPolicy({ allowedNetworks: ['127.0.0.1/32', 'fd00::/8'] });
    expect(open.isAddressAllowed('127.0.0.1')).toBe(true);
    expect(open.isAddressAllowed('127.0.0.2')).toBe(false);
    expect(open.isAddressAllowed('fd00::5')).toBe(true);
    expect(open.isAddressAllowed('10.0.0.1')).toBe(false);
    expect(() => new AddressPolicy({ allowedNetworks: ['nonsense/8'] })).toThrow(/Invalid network/);
  });

  it("limits ports to WordPress's safe ports unless told otherwise", () => {
    expect([80, 443, 8080].every((p) => policy.isPortAllowed(p))).toBe(true);
    expect(policy.isPortAllowed(22)).toBe(false);
    expect(new AddressPolicy({ allowedPorts: 'any' }).isPortAllowed(22)).toBe(true);
  });
});
