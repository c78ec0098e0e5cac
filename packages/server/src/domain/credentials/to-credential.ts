import type { Credential } from '@presence/contract';
import { toIso } from '../encoding.js';
import type { CredentialRecord } from '../ports.js';

export function toCredential(c: CredentialRecord): Credential {
  return {
    credentialRef: c.id,
    id: c.id,
    credentialId: c.credentialId,
    subject: c.subject,
    aaguid: c.aaguid,
    attestationFormat: c.attestationFormat,
    algorithm: c.algorithm,
    transports: c.transports,
    backupEligible: c.backupEligible,
    backedUp: c.backedUp,
    signCount: c.signCount,
    createdAt: toIso(c.createdAt),
    lastUsedAt: c.lastUsedAt === null ? null : toIso(c.lastUsedAt),
    revokedAt: c.revokedAt === null ? null : toIso(c.revokedAt),
  };
}
