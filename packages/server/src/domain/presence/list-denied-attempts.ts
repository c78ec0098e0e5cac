import type { Deps } from '../deps.js';
import { toIso } from '../encoding.js';

/** A stored denial: one challenge's one decision that was not PRESENCE_VERIFIED (docs/api-contract.md#5-decisions). */
export interface DeniedAttemptRecord {
  challengeId: string;
  subject: string | null;
  purpose: string | null;
  actionHashHex: string;
  decision: string;
  reason: string | null;
  /** When it was decided. */
  decidedAt: number;
}

export interface DeniedAttemptRepo {
  /** The tenant's denials, newest challenge first; `beforeId` is the exclusive keyset bound. */
  list(
    tenantId: string,
    page: { limit: number; beforeId?: string | undefined },
  ): Promise<DeniedAttemptRecord[]>;
}

/** A denial as the API shows it: the stored record with its time as ISO 8601. */
export type DeniedAttempt = Omit<DeniedAttemptRecord, 'decidedAt'> & { decidedAt: string };

/** One page of denied attempts, from the decisions stored on challenges. */
export async function listDeniedAttempts(
  deps: Pick<Deps, 'store'>,
  tenantId: string,
  page: { limit: number; beforeId?: string | undefined },
): Promise<{ items: DeniedAttempt[]; hasMore: boolean }> {
  const rows = await deps.store.deniedAttempts.list(tenantId, {
    limit: page.limit + 1,
    beforeId: page.beforeId,
  });
  const items = rows.slice(0, page.limit).map((r) => ({ ...r, decidedAt: toIso(r.decidedAt) }));
  return { items, hasMore: rows.length > page.limit };
}
