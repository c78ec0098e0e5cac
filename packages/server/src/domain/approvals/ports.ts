/** What the domain needs from storage for approvals (a member of StoreTx in ../ports.ts). */
import type { ApprovalIntent, ApprovalStatus } from '@presence/contract';
import type { PageRequest } from '../ports.js';

export interface ApprovalRecord {
  id: string;
  tenantId: string;
  /** The action's RFC 8785 canonical JSON text: exactly the bytes of `actionHashHex`. */
  actionJson: string;
  actionHashHex: string;
  title: string | null;
  required: number;
  initiator: string | null;
  purpose: string | null;
  status: ApprovalStatus;
  /** SHA-256 (hex) of the link token; the token itself is never stored. */
  tokenHash: string;
  bindingCode: string;
  /** Bumped by every decision and status change: a long poll watches it. */
  version: number;
  createdAt: number;
  expiresAt: number;
  decidedAt: number | null;
}

export type ApproverDecision = 'approved' | 'rejected';

export interface ApproverRecord {
  approvalId: string;
  tenantId: string;
  subject: string;
  /** Order in the request, so approvers are listed as they were given. */
  position: number;
  decision: ApproverDecision | null;
  receiptId: string | null;
  receiptHashHex: string | null;
  decidedAt: number | null;
}

export interface ApprovalSetRecord {
  approvalId: string;
  tenantId: string;
  /** The approval set's canonical JSON text: the bytes that were hashed and signed. */
  canonicalJson: string;
  hashHex: string;
  kid: string;
  signatureB64Url: string;
  decidedAt: number;
}

export interface ApprovalChallengeRecord {
  challengeId: string;
  tenantId: string;
  approvalId: string;
  intent: ApprovalIntent;
  createdAt: number;
}

export interface EnrollmentLinkRecord {
  id: string;
  tenantId: string;
  tokenHash: string;
  subject: string;
  displayName: string | null;
  /** The registration ceremony the link's page last started, if any. */
  registrationId: string | null;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
}

export interface ApprovalFilter {
  status?: ApprovalStatus | undefined;
}

export interface ApprovalRepo {
  insert(a: ApprovalRecord): Promise<void>;
  get(tenantId: string, id: string): Promise<ApprovalRecord | undefined>;
  getByTokenHash(tokenHash: string): Promise<ApprovalRecord | undefined>;
  /** Newest first by id; `status` pending excludes expired ones only when the caller filters. */
  list(tenantId: string, filter: ApprovalFilter, page: PageRequest): Promise<ApprovalRecord[]>;
  /**
   * Compare-and-set: bumps `version` only while pending and unexpired at `now`, taking the row's
   * write lock until commit, so the decisions of one approval are recorded one at a time.
   */
  lockPending(tenantId: string, id: string, now: number): Promise<boolean>;
  /** Compare-and-set pending → `status` (final); false when it was no longer pending. */
  finish(tenantId: string, id: string, status: ApprovalStatus, at: number): Promise<boolean>;
  /** Pending approvals whose expiresAt has passed, oldest first, across tenants. */
  listDueExpiries(now: number, limit: number): Promise<{ tenantId: string; id: string }[]>;
  /** The approved approval of this action in the tenant, if any (uniqueActions). */
  findApprovedByAction(tenantId: string, actionHashHex: string): Promise<ApprovalRecord | undefined>;
}

export interface ApproverRepo {
  insertAll(approvers: ApproverRecord[]): Promise<void>;
  listFor(tenantId: string, approvalIds: string[]): Promise<ApproverRecord[]>;
  /** Records one approver's decision only if they have none yet; false otherwise. */
  decide(
    tenantId: string,
    approvalId: string,
    subject: string,
    d: { decision: ApproverDecision; receiptId: string; receiptHashHex: string; at: number },
  ): Promise<boolean>;
}

export interface ApprovalSetRepo {
  /** Throws UniqueViolation when the approval already has a set. */
  insert(s: ApprovalSetRecord): Promise<void>;
  get(tenantId: string, approvalId: string): Promise<ApprovalSetRecord | undefined>;
  /** Sets decided in [from, to), oldest first, after `afterApprovalId` at the same time. */
  listDecided(
    tenantId: string,
    range: { from: number; to: number },
    page: { limit: number; after?: { decidedAt: number; approvalId: string } | undefined },
  ): Promise<ApprovalSetRecord[]>;
}

export interface ApprovalChallengeRepo {
  insert(c: ApprovalChallengeRecord): Promise<void>;
  get(tenantId: string, challengeId: string): Promise<ApprovalChallengeRecord | undefined>;
  /**
   * Ceremony challenges verified before `verifiedBefore` whose decision was never recorded though
   * it still could be: the approval is pending and unexpired at `now`, and the receipt's subject is
   * an approver who has not decided (not the initiator). Oldest first, across tenants.
   */
  listUnrecorded(now: number, verifiedBefore: number, limit: number): Promise<ApprovalChallengeRecord[]>;
}

export interface EnrollmentLinkRepo {
  insert(l: EnrollmentLinkRecord): Promise<void>;
  getByTokenHash(tokenHash: string): Promise<EnrollmentLinkRecord | undefined>;
  /** Remembers the registration the page started, only while the link is unused. */
  attachRegistration(id: string, registrationId: string): Promise<boolean>;
  /** Marks the link used only if unused and unexpired: of racing calls exactly one wins. */
  consume(id: string, at: number): Promise<boolean>;
}

export interface ApprovalRepos {
  approvals: ApprovalRepo;
  approvers: ApproverRepo;
  sets: ApprovalSetRepo;
  challenges: ApprovalChallengeRepo;
  enrollmentLinks: EnrollmentLinkRepo;
  uniqueActions: UniqueActionRepo;
}

/** Policy rule uniqueActions: one live holder per action hash, and what already approved it. */
export interface UniqueActionRepo {
  /** Takes the claim if free or its holder's time has passed; true when `holder` now holds it. */
  claim(
    tenantId: string,
    actionHashHex: string,
    holder: { holderId: string; until: number },
    now: number,
  ): Promise<boolean>;
  holder(tenantId: string, actionHashHex: string): Promise<{ holderId: string; until: number } | undefined>;
  /** Frees the claim early (a cancelled or rejected approval), only if `holderId` still holds it. */
  release(tenantId: string, actionHashHex: string, holderId: string): Promise<void>;
  /** The first PRESENCE_VERIFIED receipt of this action that is not an approval ceremony's. */
  firstDirectReceipt(tenantId: string, actionHashHex: string): Promise<string | undefined>;
}
