/** What the domain needs from storage for audit events (a member of StoreTx in ../ports.ts). */
import type { AuditActorType } from '@presence/contract';

/** Who made a change, and through which door. */
export interface AuditActor {
  type: AuditActorType;
  /** `key_…`, `mem_…`, or the door's name for the operator API and the CLI. */
  id: string;
  name: string;
}

/**
 * The audit context of one request or command: who acts, and what authorised it. Each door sets
 * it on the deps it hands the domain (API key auth, console session, operator token, CLI).
 */
export interface AuditContext {
  actor: AuditActor;
  requestId?: string | undefined;
  /** The presence receipt that approved the change (console dangerous changes). */
  receipt?: { receiptId: string; receiptHashHex: string } | undefined;
  approvalId?: string | undefined;
}

export interface AuditTarget {
  type: string;
  id: string;
  name?: string | undefined;
}

export interface AuditEventRecord {
  id: string;
  tenantId: string;
  at: number;
  actor: AuditActor;
  action: string;
  target: AuditTarget;
  approvalId: string | null;
  receiptId: string | null;
  receiptHashHex: string | null;
  requestId: string | null;
  /** What changed (never a secret). */
  detail: Record<string, unknown>;
}

export interface AuditEventFilter {
  from?: number | undefined;
  to?: number | undefined;
  actorType?: AuditActorType | undefined;
  action?: string | undefined;
}

export interface AuditEventRepo {
  insert(e: AuditEventRecord): Promise<void>;
  /** Newest first; `beforeId` is the exclusive keyset bound (the last id of the previous page). */
  list(
    tenantId: string,
    filter: AuditEventFilter,
    page: { limit: number; beforeId?: string | undefined },
  ): Promise<AuditEventRecord[]>;
}
