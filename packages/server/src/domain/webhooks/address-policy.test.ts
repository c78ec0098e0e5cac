import { describe, expect, it } from 'vitest';
import { createAddressPolicy, parseAllowNets } from './address-policy.js';

const strict = createAddressPolicy([]);

describe('webhook address policy', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.100.100.200', 'carrierGradeNat'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.10', 'reserved'],
    ['198.51.100.1', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd00:ec2::254', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['::ffff:10.0.0.1', 'private'],
    ['64:ff9b::a00:1', 'private'],
    ['::ffff:0:7f00:1', 'loopback'],
    ['::127.0.0.1', ' address'], // IPv4-compatible form
    ['2002:7f00:1::1', '6to4'],
    ['2001::1', 'teredo'],
  ])('refuses %s (%s)', (address, kind) => {
    expect(strict.refusal(address)).toContain(kind);
  });

  it.each(['93.184.215.14', '1.1.1.1', '2606:4700:4700::1111', '::ffff:93.184.215.14', '64:ff9b::5db8:d70e'])(
    'allows the public address %s',
    (address) => {
      expect(strict.refusal(address)).toBeNull();
    },
  );

  it('refuses what is not an IP address', () => {
    expect(strict.refusal('example.com')).toContain('not an IP address');
  });

  it('lets listed networks through, including their IPv4-mapped form, and nothing else', () => {
    const dev = createAddressPolicy(['127.0.0.0/8', 'fd12::/16']);
    expect(dev.refusal('127.0.0.1')).toBeNull();
    expect(dev.refusal('::ffff:127.0.0.1')).toBeNull();
    expect(dev.refusal('fd12::5')).toBeNull();
    expect(dev.refusal('10.0.0.1')).toContain('private');
    expect(dev.refusal('::1')).toContain('loopback');
  });

  it('rejects a malformed allow list', () => {
    expect(() => parseAllowNets(['10.0.0.0/33'])).toThrow(/not a CIDR/);
    expect(() => parseAllowNets(['localhost'])).toThrow(/not a CIDR/);
  });
});
