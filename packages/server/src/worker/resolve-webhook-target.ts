import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { AddressPolicy } from '../domain/webhooks/address-policy.js';
import { TargetRefused, type CheckedTarget } from '../domain/webhooks/ports.js';

/**
 * Resolves the URL's host and checks every address it resolves to (one refused address refuses
 * the URL, so a name cannot mix a public and a private record). The attempt then connects to the
 * returned address, never to a second lookup's answer (no DNS rebinding between check and use).
 */
export async function resolveWebhookTarget(
  policy: AddressPolicy,
  url: URL,
  timeoutMs: number,
): Promise<CheckedTarget> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const addresses =
    isIP(host) !== 0 ? [{ address: host, family: isIP(host) }] : await lookupAll(host, timeoutMs);
  if (addresses.length === 0) throw new TargetRefused(`${host} does not resolve`);
  for (const { address } of addresses) {
    const refusal = policy.refusal(address);
    if (refusal !== null) {
      throw new TargetRefused(
        address === host ? `${refusal}; not allowed` : `${host} resolves to ${refusal}; not allowed`,
      );
    }
  }
  const first = addresses[0]!;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}

async function lookupAll(host: string, timeoutMs: number): Promise<{ address: string; family: number }[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TargetRefused(`DNS lookup of ${host} timed out`)), timeoutMs);
  });
  try {
    return await Promise.race([lookup(host, { all: true, verbatim: true }), timeout]);
  } catch (error) {
    if (error instanceof TargetRefused) throw error;
    const code = (error as { code?: unknown }).code;
    throw new TargetRefused(`${host} does not resolve (${typeof code === 'string' ? code : 'DNS error'})`);
  } finally {
    clearTimeout(timer);
  }
}
