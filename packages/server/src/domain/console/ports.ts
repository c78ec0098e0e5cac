/** What the console's domain needs from storage (implemented once, for both dialects). */

export const CONSOLE_ROLES = ['owner', 'admin', 'developer', 'auditor'] as const;
export type ConsoleRole = (typeof CONSOLE_ROLES)[number];

export interface MemberRecord {
  id: string;
  tenantId: string;
  displayName: string;
  role: ConsoleRole;
  createdAt: number;
  removedAt: number | null;
}

export interface InviteRecord {
  id: string;
  tenantId: string;
  /** Hex SHA-256 of the invite token; the token itself exists only in the invite link. */
  tokenHash: string;
  role: ConsoleRole;
  /** The member this invite creates; its passkeys are enrolled for subject `console:<memberId>`. */
  memberId: string;
  createdBy: string | null;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
}

export interface SessionRecord {
  id: string;
  tenantId: string;
  memberId: string;
  /** Hex SHA-256 of the cookie value. */
  tokenHash: string;
  createdAt: number;
  lastSeenAt: number;
  /** The absolute end, whatever the activity. */
  expiresAt: number;
  revokedAt: number | null;
}

export const CONSOLE_CHANGE_STATUSES = [
  'pending',
  'applied',
  'stale',
  'rejected',
  'expired',
  'cancelled',
] as const;
export type ConsoleChangeStatus = (typeof CONSOLE_CHANGE_STATUSES)[number];

/** A dangerous change that waits for its approval (quorum ≥ 2), then is applied once or ends. */
export interface ConsoleChangeRecord {
  id: string;
  tenantId: string;
  requesterId: string;
  kind: string;
  target: string;
  params: Record<string, unknown>;
  before: unknown;
  after: unknown;
  /** The exact change as its approvers signed it: RFC 8785 text, whose SHA-256 is the action hash. */
  changeJson: string;
  /**
   * The approval in the console tenant and its page's link, sealed with the master key
   * (change-link.ts): the link shows, never decides, but it is a capability all the same.
   */
  approvalId: string;
  approvalUrlSealed: string;
  /** The approval page shows it too: approvers check it against the requester's. */
  bindingCode: string;
  required: number;
  status: ConsoleChangeStatus;
  createdAt: number;
  updatedAt: number;
  /** The member who applied or cancelled it. */
  finishedBy: string | null;
}

export interface ConsoleRepos {
  members: {
    insert(m: MemberRecord): Promise<void>;
    get(tenantId: string, id: string): Promise<MemberRecord | undefined>;
    /** Across tenants: how a verified passkey finds its member. */
    getAnyTenant(id: string): Promise<MemberRecord | undefined>;
    list(tenantId: string): Promise<MemberRecord[]>;
    remove(tenantId: string, id: string, at: number): Promise<boolean>;
    /**
     * Inside a transaction: holds the active member's row until it ends (PostgreSQL's row lock;
     * SQLite transactions are serial), so changes to one member's passkeys run one at a time.
     * False when there is no such active member.
     */
    lock(tenantId: string, id: string): Promise<boolean>;
    /** Removes the member unless it is the last owner; serialized per tenant (inside a transaction). */
    removeKeepingAnOwner(
      tenantId: string,
      id: string,
      at: number,
    ): Promise<'removed' | 'not_found' | 'last_owner'>;
    /**
     * Inside a transaction: the number of active owners, holding the tenant's row until it ends so
     * that changes which could leave no owner run one at a time (PostgreSQL; SQLite is serial).
     */
    lockOwners(tenantId: string): Promise<number>;
    /** Sets a current member's role only if it is still `from` (compare-and-set); false otherwise. */
    setRole(tenantId: string, id: string, from: ConsoleRole, to: ConsoleRole): Promise<boolean>;
  };
  invites: {
    insert(i: InviteRecord): Promise<void>;
    findByTokenHash(tokenHash: string): Promise<InviteRecord | undefined>;
    /** Marks it used only if unused and unexpired; false otherwise (single use under races). */
    consume(id: string, at: number): Promise<boolean>;
    listOpen(tenantId: string, now: number): Promise<InviteRecord[]>;
    /**
     * Ends an invite of the tenant still open at `at` (its link stops working): its `expiresAt`
     * becomes 0, before any time an acceptance may compare; false when not open.
     */
    cancel(tenantId: string, id: string, at: number): Promise<boolean>;
  };
  sessions: {
    insert(s: SessionRecord): Promise<void>;
    findByTokenHash(tokenHash: string): Promise<SessionRecord | undefined>;
    touch(id: string, at: number): Promise<void>;
    revoke(id: string, at: number): Promise<void>;
    revokeAllOfMember(memberId: string, at: number): Promise<number>;
  };
  changes: {
    insert(c: ConsoleChangeRecord): Promise<void>;
    get(tenantId: string, id: string): Promise<ConsoleChangeRecord | undefined>;
    /** Newest first. */
    list(tenantId: string, limit: number): Promise<ConsoleChangeRecord[]>;
    /** Compare-and-set `from` → `to` (single use: of racing calls exactly one wins); false otherwise. */
    transition(
      tenantId: string,
      id: string,
      from: ConsoleChangeStatus,
      to: ConsoleChangeStatus,
      at: number,
      by: string | null,
    ): Promise<boolean>;
  };
  /** Approvers required for the tenant's dangerous changes; no row means 1. */
  quorum: {
    get(tenantId: string): Promise<number | undefined>;
    put(tenantId: string, required: number, at: number, by: string | null): Promise<void>;
  };
  passkeyNames: {
    put(p: {
      credentialRef: string;
      tenantId: string;
      memberId: string;
      name: string;
      at: number;
    }): Promise<void>;
    /** credential ref → name, for one member of the tenant. */
    ofMember(tenantId: string, memberId: string): Promise<Map<string, string>>;
  };
}
