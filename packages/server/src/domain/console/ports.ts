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

export interface AuditRecord {
  id: string;
  tenantId: string;
  memberId: string | null;
  action: string;
  target: string | null;
  detail: Record<string, unknown>;
  /** The presence receipt that approved the action (dangerous actions and sign-ins). */
  receiptId: string | null;
  receiptHashHex: string | null;
  createdAt: number;
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
  };
  invites: {
    insert(i: InviteRecord): Promise<void>;
    findByTokenHash(tokenHash: string): Promise<InviteRecord | undefined>;
    /** Marks it used only if unused and unexpired; false otherwise (single use under races). */
    consume(id: string, at: number): Promise<boolean>;
    listOpen(tenantId: string, now: number): Promise<InviteRecord[]>;
  };
  sessions: {
    insert(s: SessionRecord): Promise<void>;
    findByTokenHash(tokenHash: string): Promise<SessionRecord | undefined>;
    touch(id: string, at: number): Promise<void>;
    revoke(id: string, at: number): Promise<void>;
    revokeAllOfMember(memberId: string, at: number): Promise<number>;
  };
  audit: {
    insert(a: AuditRecord): Promise<void>;
    /** Newest first. */
    list(tenantId: string, limit: number): Promise<AuditRecord[]>;
  };
}
