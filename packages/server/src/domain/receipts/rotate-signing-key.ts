import type { Deps } from '../deps.js';
import { DomainError } from '../errors.js';
import { toIso } from '../encoding.js';
import { newSigningKey } from './signing-key-schedule.js';

export interface RotationTimes {
  /** How long the next key is published before it signs. */
  leadMs: number;
  /** How long the old keys stay valid after the switch. */
  overlapMs: number;
}

export interface ScheduledRotation {
  kid: string;
  /** When the new key starts signing (ISO). */
  switchAt: string;
  /** The keys whose validity now ends, and when. */
  ending: { kid: string; notAfter: string }[];
}

/** 10 minutes: longer than keys.json's HTTP cache lifetime (5 minutes), so caches see the key first. */
export const DEFAULT_ROTATION_LEAD_MS = 10 * 60_000;
/** 1 hour: an export that began before the switch is signed by the old key and must end within it. */
export const DEFAULT_ROTATION_OVERLAP_MS = 60 * 60_000;
/** Added to 2 × refresh for the rotation's own commit latency and clock skew between hosts. */
const MARGIN_MS = 1000;

/**
 * Schedules a signing-key rotation (ADR 0007) without ever invalidating evidence being signed:
 * the next key is published now and signs from now + lead; every key still open ends at
 * switch + overlap. Both must exceed 2 × the signer refresh interval (+1 s), the longest any
 * process signs from an old copy of the key table. One rotation at a time, also across processes.
 */
export async function rotateSigningKey(
  deps: Pick<Deps, 'store' | 'clock' | 'secrets'>,
  refreshMs: number,
  times: RotationTimes = { leadMs: DEFAULT_ROTATION_LEAD_MS, overlapMs: DEFAULT_ROTATION_OVERLAP_MS },
): Promise<ScheduledRotation> {
  const minimum = 2 * refreshMs + MARGIN_MS;
  if (times.leadMs < minimum || times.overlapMs < minimum) {
    throw new DomainError(
      'invalid_request',
      `lead and overlap must each be at least ${minimum} ms (2 × the ${refreshMs} ms signer refresh interval + 1 s)`,
    );
  }
  return deps.store.transaction(async (tx) => {
    const now = deps.clock.now();
    const rows = await tx.signingKeys.list();
    const pending = rows.find((k) => k.notBefore > now);
    if (pending) {
      throw new DomainError(
        'conflict',
        `a rotation is already scheduled: ${pending.kid} starts signing at ${toIso(pending.notBefore)}`,
      );
    }
    const switchAt = now + times.leadMs;
    const endAt = switchAt + times.overlapMs;
    const ending = rows.filter((k) => k.notAfter === null || k.notAfter > endAt);
    for (const k of ending) {
      // Compare-and-set on what was read: a concurrent rotation (another process) that retired
      // this key first makes this one a 409 instead of a second scheduled key.
      if (!(await tx.signingKeys.retire(k.kid, endAt, k.notAfter))) {
        throw new DomainError('conflict', 'another signing-key rotation was scheduled at the same time');
      }
    }
    const fresh = newSigningKey(deps, switchAt);
    await tx.signingKeys.insert(fresh);
    return {
      kid: fresh.kid,
      switchAt: toIso(switchAt),
      ending: ending.map((k) => ({ kid: k.kid, notAfter: toIso(endAt) })),
    };
  });
}
