/** What the domain needs from storage for credentials (a member of StoreTx in ../ports.ts). */
import type { PageRequest } from '../ports.js';

export interface RegistrationRecord {
  id: string;
  tenantId: string;
  subject: string;
  challengeB64Url: string;
  userIdB64Url: string;
  policyId: string;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
}

export interface RegistrationRepo {
  insert(r: RegistrationRecord): Promise<void>;
  get(tenantId: string, id: string): Promise<RegistrationRecord | undefined>;
  /** Marks it used only if unused; false when another call got there first. */
  consume(tenantId: string, id: string, at: number): Promise<boolean>;
}

export interface CredentialRecord {
  id: string;
  tenantId: string;
  /** The WebAuthn credential id, base64url. Unique per tenant. */
  credentialId: string;
  subject: string;
  /** COSE_Key bytes, base64url, exactly as the authenticator produced them. */
  publicKeyB64Url: string;
  algorithm: number;
  signCount: number;
  aaguid: string;
  transports: string[];
  backupEligible: boolean;
  backedUp: boolean;
  attestationFormat: string;
  /** Enrollment evidence, kept verbatim. */
  attestationObjectB64Url: string;
  clientDataJSONB64Url: string;
  registrationId: string;
  policyId: string;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

/**
 * What a presence check reads of a credential. The enrollment evidence (attestation object,
 * clientDataJSON) is not among it: it can run to kilobytes for attested authenticators, stored out
 * of line on PostgreSQL, and neither a decision nor the receipt depends on it.
 */
export type CredentialInUse = Pick<
  CredentialRecord,
  | 'id'
  | 'tenantId'
  | 'credentialId'
  | 'subject'
  | 'publicKeyB64Url'
  | 'algorithm'
  | 'signCount'
  | 'backupEligible'
  | 'revokedAt'
>;

export interface CredentialRepo {
  /** Throws UniqueViolation when the tenant already has this WebAuthn credential id. */
  insert(c: CredentialRecord): Promise<void>;
  get(tenantId: string, id: string): Promise<CredentialRecord | undefined>;
  getByCredentialId(tenantId: string, credentialId: string): Promise<CredentialRecord | undefined>;
  list(
    tenantId: string,
    filter: { subject?: string | undefined; includeRevoked: boolean },
    page: PageRequest,
  ): Promise<CredentialRecord[]>;
  /** Revokes an active credential (compare-and-set); undefined when already revoked or not found. */
  revoke(tenantId: string, id: string, at: number): Promise<CredentialRecord | undefined>;
}
