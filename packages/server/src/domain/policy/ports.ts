/** What the domain needs from storage for policy (a member of StoreTx in ../ports.ts). */
import type { PolicyRules } from '@presence/contract';

export interface PolicyRecord {
  id: string;
  tenantId: string;
  version: number;
  rules: PolicyRules;
  /** SHA-256 over the RFC 8785 bytes of `rules`. */
  hashHex: string;
  createdAt: number;
}

export interface PolicyRepo {
  insert(p: PolicyRecord): Promise<void>;
  current(tenantId: string): Promise<PolicyRecord | undefined>;
  /** Newest version first. */
  history(tenantId: string, limit: number): Promise<PolicyRecord[]>;
  get(tenantId: string, id: string): Promise<PolicyRecord | undefined>;
}
