/** What the domain needs from storage for api-keys (a member of StoreTx in ../ports.ts). */
import type { Scope } from '@presence/contract';
import type { PageRequest } from '../ports.js';

export interface ApiKeyRecord {
  id: string;
  tenantId: string;
  name: string;
  prefix: string;
  /** Hex SHA-256 of the whole secret; the secret itself is never stored. */
  keyHash: string;
  scopes: Scope[];
  createdAt: number;
  lastUsedAt: number | null;
  expiresAt: number | null;
  revokedAt: number | null;
  /**
   * The console member who created the key (for a rotation's successor: who rotated it); null for
   * keys made through the API, the CLI or the operator API. The key belongs to the tenant all the same.
   */
  createdByMemberId: string | null;
}

export interface ApiKeyRepo {
  insert(k: ApiKeyRecord): Promise<void>;
  findByHash(keyHash: string): Promise<ApiKeyRecord | undefined>;
  get(tenantId: string, id: string): Promise<ApiKeyRecord | undefined>;
  list(tenantId: string, page: PageRequest): Promise<ApiKeyRecord[]>;
  /** Sets revokedAt (when still null) or moves expiresAt earlier; returns the updated row. */
  update(
    tenantId: string,
    id: string,
    change: { revokedAt?: number; expiresAt?: number },
  ): Promise<ApiKeyRecord | undefined>;
  touch(id: string, at: number): Promise<void>;
  /**
   * The keys `memberId` created that still work at `now` (not revoked, not expired), oldest first,
   * at most `limit` of them, and how many there are in all.
   */
  liveByCreator(
    tenantId: string,
    memberId: string,
    now: number,
    limit: number,
  ): Promise<{ keys: ApiKeyRecord[]; total: number }>;
  /**
   * The one rotation of a key, as a compare-and-set: records `successorId` and moves expiresAt to
   * at most `expiresAt`, only while the key is live at `now` and was never rotated. Returns the
   * updated key, or undefined when another rotation (or a revocation or expiry) came first.
   */
  markRotated(
    tenantId: string,
    id: string,
    rotation: { successorId: string; expiresAt: number; now: number },
  ): Promise<ApiKeyRecord | undefined>;
}
