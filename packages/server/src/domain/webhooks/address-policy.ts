/**
 * Which IP addresses a webhook may reach. Only ordinary public unicast addresses, unless an
 * operator lists a network in PRESENCE_WEBHOOK_ALLOW_NETS (development and tests: 127.0.0.0/8).
 * IPv4-mapped (::ffff:a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d) and NAT64 (64:ff9b::/96)
 * addresses are judged by the IPv4 address they carry; every other special IPv6 range (6to4,
 * Teredo, ULA, link-local, documentation, …) is refused outright.
 */
import { createRequire } from 'node:module';
import type * as IpAddr from 'ipaddr.js';

/** ipaddr.js is a CommonJS (UMD) module whose exports Node's ESM loader cannot name: require it. */
const ipaddr = createRequire(import.meta.url)('ipaddr.js') as typeof IpAddr;

type Address = IpAddr.IPv4 | IpAddr.IPv6;

/** Ranges refused beyond ipaddr.js's own non-unicast classes (its "unicast" is everything unlisted). */
const EXTRA_DENY: [Address, number][] = [
  ipaddr.parseCIDR('::/96'), // IPv4-compatible (deprecated), e.g. ::127.0.0.1
  ipaddr.parseCIDR('64:ff9b:1::/48'), // local-use NAT64
  ipaddr.parseCIDR('fd00:ec2::254/128'), // AWS metadata over IPv6 (also ULA)
  ipaddr.parseCIDR('169.254.169.254/32'), // cloud metadata (also link-local)
  ipaddr.parseCIDR('100.100.100.200/32'), // Alibaba metadata (also CGNAT)
];
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');

export interface AddressPolicy {
  /** Null when the address may be reached, else why not (safe to show to the tenant). */
  refusal(address: string): string | null;
}

/** Throws on a malformed CIDR, so bad configuration fails at start-up. */
export function parseAllowNets(nets: readonly string[]): [Address, number][] {
  return nets.map((net) => {
    try {
      return ipaddr.parseCIDR(net.trim());
    } catch (error) {
      throw new Error(`not a CIDR network: ${net}`, { cause: error });
    }
  });
}

export function createAddressPolicy(allowNets: readonly string[]): AddressPolicy {
  const allowed = parseAllowNets(allowNets);
  return {
    refusal(text) {
      if (!ipaddr.isValid(text)) return `${text} is not an IP address`;
      const address = ipaddr.parse(text);
      const candidates = [address, ...embeddedIPv4(address)];
      if (candidates.some((a) => allowed.some((net) => inNet(a, net)))) return null;
      for (const a of candidates) {
        const range = a.range();
        if (range !== 'unicast' && !isEmbeddingRange(a, range)) return `${text} is a ${range} address`;
        if (EXTRA_DENY.some((net) => inNet(a, net))) return `${text} is a reserved address`;
      }
      return null;
    },
  };
}

function embeddedIPv4(address: Address): IpAddr.IPv4[] {
  if (address.kind() !== 'ipv6') return [];
  const v6 = address as IpAddr.IPv6;
  const range = v6.range();
  if (range === 'ipv4Mapped' || range === 'rfc6145' || v6.match(NAT64)) {
    const bytes = v6.toByteArray().slice(12);
    return [new ipaddr.IPv4(bytes)];
  }
  return [];
}

/** The IPv6 wrapper ranges whose verdict is the embedded IPv4 address's. */
function isEmbeddingRange(address: Address, range: string): boolean {
  return range === 'ipv4Mapped' || range === 'rfc6145' || (range === 'rfc6052' && address.match(NAT64));
}

function inNet(address: Address, [net, bits]: [Address, number]): boolean {
  return address.kind() === net.kind() && address.match(net, bits);
}
