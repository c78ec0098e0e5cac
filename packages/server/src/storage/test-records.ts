/**
 * Record builders for storage tests: valid records with ids that sort in creation order within
 * one builder and never collide across builders (a random tag per builder).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { ApiKeyRecord } from '../domain/api-keys/ports.js';
import type { OutboxEventRecord } from '../domain/events/ports.js';
import type { ChallengeRecord, DeniedSettlement, VerifiedSettlement } from '../domain/presence/ports.js';
import type { CredentialRecord, RegistrationRecord } from '../domain/credentials/ports.js';
import type { PolicyRecord } from '../domain/policy/ports.js';
import type { ReceiptRecord, SigningKeyRecord } from '../domain/receipts/ports.js';
import type { Store } from '../domain/ports.js';
import type { TenantRecord } from '../domain/tenants/ports.js';
import type { UsageEventRecord } from '../domain/usage/ports.js';

/** A tenant's row by id (a challenge, a delivery): what a settlement or a usage unit refers to. */
type TenantRow = { id: string; tenantId: string };

export const T0 = 1_700_000_000_000;

export class TestRecords {
  readonly #tag = randomBytes(5).toString('hex').toUpperCase();
  #sequence = 0;

  id(prefix: string): string {
    this.#sequence += 1;
    return `${prefix}_${this.#tag}${String(this.#sequence).padStart(6, '0')}`;
  }

  tenant(o: Partial<TenantRecord> = {}): TenantRecord {
    return {
      id: this.id('ten'),
      name: 'Acme',
      createdAt: T0,
      ...o,
    };
  }

  apiKey(tenantId: string, o: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
    return {
      id: this.id('key'),
      tenantId,
      name: 'ci',
      prefix: 'pk_test',
      keyHash: randomBytes(32).toString('hex'),
      scopes: ['receipts:read', 'challenges:write'],
      createdAt: T0,
      lastUsedAt: null,
      expiresAt: null,
      revokedAt: null,
      createdByMemberId: null,
      ...o,
    };
  }

  policy(tenantId: string, o: Partial<PolicyRecord> = {}): PolicyRecord {
    return {
      id: this.id('pol'),
      tenantId,
      version: 1,
      rules: POLICY_RULES,
      hashHex: 'ab'.repeat(32),
      createdAt: T0,
      ...o,
    };
  }

  registration(tenantId: string, policyId: string, o: Partial<RegistrationRecord> = {}): RegistrationRecord {
    return {
      id: this.id('reg'),
      tenantId,
      subject: 'user-1',
      challengeB64Url: 'Y2hhbGxlbmdl',
      userIdB64Url: 'dXNlcg',
      policyId,
      createdAt: T0,
      expiresAt: T0 + 300_000,
      usedAt: null,
      ...o,
    };
  }

  credential(tenantId: string, reg: RegistrationRecord, o: Partial<CredentialRecord> = {}): CredentialRecord {
    return {
      id: this.id('cred'),
      tenantId,
      credentialId: randomBytes(16).toString('base64url'),
      subject: reg.subject,
      publicKeyB64Url: 'pQECAyYgASFY',
      algorithm: -7,
      signCount: 0,
      aaguid: '00000000-0000-0000-0000-000000000000',
      transports: ['internal', 'hybrid'],
      backupEligible: true,
      backedUp: false,
      attestationFormat: 'none',
      attestationObjectB64Url: 'o2NmbXQ',
      clientDataJSONB64Url: 'eyJ0eXBlIjoi',
      registrationId: reg.id,
      policyId: reg.policyId,
      createdAt: T0,
      lastUsedAt: null,
      revokedAt: null,
      ...o,
    };
  }

  challenge(tenantId: string, policyId: string, o: Partial<ChallengeRecord> = {}): ChallengeRecord {
    return {
      id: this.id('chl'),
      tenantId,
      actionHashHex: 'cd'.repeat(32),
      subject: 'user-1',
      purpose: 'wire',
      nonceB64Url: 'bm9uY2U',
      challengeB64Url: 'Y2hhbA',
      allowCredentialIds: ['AAEC', 'AwQF'],
      policyId,
      createdAt: T0,
      expiresAt: T0 + 120_000,
      status: 'pending',
      usedAt: null,
      decision: null,
      reason: null,
      receiptId: null,
      credentialRef: null,
      ...o,
    };
  }

  receipt(challenge: ChallengeRecord, o: Partial<ReceiptRecord> = {}): ReceiptRecord {
    return {
      id: this.id('rct'),
      tenantId: challenge.tenantId,
      challengeId: challenge.id,
      credentialRef: 'cred_x',
      subject: 'user-1',
      actionHashHex: challenge.actionHashHex,
      issuedAt: T0 + 1000,
      canonicalJson: '{"a":1,"b":"é"}',
      hashHex: 'ef'.repeat(32),
      kid: 'k1',
      signatureB64Url: 'c2ln',
      ...o,
    };
  }

  signingKey(o: Partial<SigningKeyRecord> = {}): SigningKeyRecord {
    return {
      kid: this.id('kid'),
      publicKeyB64Url: 'cHVi',
      privateKeySealed: 'sealed',
      createdAt: T0,
      notBefore: T0,
      notAfter: null,
      status: 'active',
      ...o,
    };
  }

  /** One unit of `meter` used by the source's tenant, caused by `source`, at `occurredAt`. */
  usage(source: TenantRow, meter: string, occurredAt: number): UsageEventRecord {
    const { tenantId } = source;
    return { id: this.id('use'), tenantId, meter, quantity: 1, occurredAt, sourceId: source.id };
  }

  /**
   * What a verification of `challenge` at `at` writes (as the verify path does): the credential's
   * counter moved by `credentialUse`, a receipt by that credential, one presence.verified unit and
   * the receipt.created event.
   */
  verified(
    challenge: ChallengeRecord,
    credentialUse: VerifiedSettlement['credentialUse'],
    at: number,
  ): VerifiedSettlement {
    const receipt = this.receipt(challenge, { credentialRef: credentialUse.id, issuedAt: at });
    return {
      credentialUse,
      usedAt: at,
      receipt,
      usage: this.usage(challenge, 'presence.verified', at),
      event: this.#event(challenge, 'receipt.created', { receiptId: receipt.id }, at),
    };
  }

  /**
   * What a SIGNATURE_INVALID denial of `challenge` at `at` writes: the settlement (by
   * `credentialRef`, none unless given), one presence.denied unit and the presence.denied event
   * (`event` overrides its fields).
   */
  denied(
    challenge: TenantRow,
    at: number,
    o: { credentialRef?: string | null; event?: Partial<OutboxEventRecord> } = {},
  ): DeniedSettlement {
    return {
      tenantId: challenge.tenantId,
      challengeId: challenge.id,
      settlement: {
        status: 'denied',
        usedAt: at,
        decision: 'SIGNATURE_INVALID',
        reason: 'bad signature',
        receiptId: null,
        credentialRef: o.credentialRef ?? null,
      },
      usage: this.usage(challenge, 'presence.denied', at),
      event: { ...this.#event(challenge, 'presence.denied', { challengeId: challenge.id }, at), ...o.event },
    };
  }

  #event(challenge: TenantRow, type: string, payload: object, createdAt: number): OutboxEventRecord {
    return { id: this.id('evt'), tenantId: challenge.tenantId, type, payload, createdAt };
  }
}

/** Inserts a tenant and its first policy: what most tenant-owned rows need (foreign keys). */
export async function seedTenant(
  store: Store,
  records: TestRecords,
): Promise<{ tenant: TenantRecord; policy: PolicyRecord }> {
  const tenant = records.tenant();
  const policy = records.policy(tenant.id);
  await store.tenants.insert(tenant);
  await store.policies.insert(policy);
  return { tenant, policy };
}

/**
 * Commits `n` receipts for the tenant, in transactions of up to 1,000 (seq stays gap-free and in
 * order), issued from T0 on; returns their receipt hashes (hex), in seq order.
 */
export async function addReceipts(
  store: Store,
  records: TestRecords,
  tenantId: string,
  policyId: string,
  n: number,
): Promise<string[]> {
  const hashes: string[] = [];
  for (let done = 0; done < n;) {
    const batch = Math.min(1000, n - done);
    await store.transaction(async (tx) => {
      for (let i = 0; i < batch; i += 1) {
        const challenge = records.challenge(tenantId, policyId);
        const hashHex = createHash('sha256').update(challenge.id).digest('hex');
        hashes.push(hashHex);
        await tx.challenges.insert(challenge);
        await tx.receipts.insert(records.receipt(challenge, { issuedAt: T0 + done + i, hashHex }));
      }
    });
    done += batch;
  }
  return hashes;
}

export const POLICY_RULES: PolicyRecord['rules'] = {
  rpId: 'example.com',
  rpName: 'Example',
  allowedOrigins: ['https://example.com'],
  allowCrossOrigin: false,
  allowedTopOrigins: [],
  challengeTtlSeconds: 120,
  registrationTtlSeconds: 300,
  userVerification: 'required',
  allowedAlgorithms: [-7, -8, -257],
  attestation: { conveyance: 'none', allowedFormats: [], aaguidAllowlist: [] },
  counter: 'reject-regression',
};
