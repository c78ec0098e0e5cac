/** Row types of the approvals' and enrollment links' tables, in the conventions of `schema.ts`. */

export type ApprovalsTable = {
  id: string;
  tenant_id: string;
  /** The action's RFC 8785 canonical JSON text. */
  action_json: string;
  action_hash_hex: string;
  title: string | null;
  required: number;
  initiator: string | null;
  purpose: string | null;
  status: string;
  token_hash: string;
  binding_code: string;
  version: number;
  created_at: number;
  expires_at: number;
  decided_at: number | null;
};

export type ApprovalApproversTable = {
  approval_id: string;
  subject: string;
  tenant_id: string;
  position: number;
  decision: string | null;
  receipt_id: string | null;
  receipt_hash_hex: string | null;
  decided_at: number | null;
};

export type ApprovalSetsTable = {
  approval_id: string;
  tenant_id: string;
  canonical_json: string;
  hash_hex: string;
  kid: string;
  signature_b64url: string;
  decided_at: number;
};

export type ApprovalChallengesTable = {
  challenge_id: string;
  tenant_id: string;
  approval_id: string;
  intent: string;
  created_at: number;
};

export type EnrollmentLinksTable = {
  id: string;
  tenant_id: string;
  token_hash: string;
  subject: string;
  display_name: string | null;
  registration_id: string | null;
  created_at: number;
  expires_at: number;
  used_at: number | null;
};

export type UniqueActionClaimsTable = {
  tenant_id: string;
  action_hash_hex: string;
  holder_id: string;
  held_until: number;
};
