import type { ExportManifest, ServiceSignature } from '@presence/contract';
import { PACK_DATA_FILES, PACK_LOG_FILES } from '@presence/contract';
import type { Deps } from '../deps.js';
import { canonicalJson, sha256Hex, toIso } from '../encoding.js';
import type { PackState } from './pack-state.js';

export interface SignedManifest {
  /** The RFC 8785 bytes of the manifest: stored as manifest.json exactly, and signed. */
  manifestBytes: Buffer;
  signatureBytes: Buffer;
}

/**
 * Builds the manifest from what the data files turned out to be, and signs its exact bytes with
 * the key scheduled for the pack's `generatedAt` (what verifiers check its validity against). An
 * export that began before a rotation's switch is signed by the old key, which the rotation keeps
 * valid for its overlap (ADR 0007); the signer refuses rather than sign after that key ended.
 */
export async function signManifest(deps: Pick<Deps, 'signer'>, state: PackState): Promise<SignedManifest> {
  const expected =
    PACK_DATA_FILES.length + (state.log ? PACK_LOG_FILES.length : 0) + (state.approvals ? 1 : 0);
  if (state.files.length !== expected) {
    throw new Error('a pack file was not written to the end before the manifest was requested');
  }
  await deps.signer.ensureFresh();
  const key = deps.signer.keyAt(state.generatedAt);
  const manifestBytes = Buffer.from(canonicalJson(buildManifest(state, key)), 'utf8');
  const signature: ServiceSignature = {
    alg: 'Ed25519',
    kid: key.kid,
    signatureB64Url: key.sign(manifestBytes),
  };
  state.manifestSha256 = sha256Hex(manifestBytes);
  state.kid = key.kid;
  return { manifestBytes, signatureBytes: Buffer.from(canonicalJson(signature), 'utf8') };
}

function buildManifest(state: PackState, key: { kid: string; publicKeyB64Url: string }): ExportManifest {
  const r = state.receipts;
  const record = state.record;
  return {
    version: 'presence.export.v1',
    exportId: record.id,
    tenantId: record.tenantId,
    generatedAt: toIso(state.generatedAt),
    range: { from: toIso(record.rangeFrom), to: toIso(record.rangeTo) },
    filters: record.filters,
    counts: {
      receipts: r.count,
      credentials: state.credentialCount,
      policies: state.policyCount,
      serviceKeys: state.serviceKeyCount,
      ...(state.approvals && { approvalSets: state.approvalSetCount }),
    },
    receipts: {
      firstSeq: r.firstSeq,
      lastSeq: r.lastSeq,
      firstIssuedAt: r.firstIssuedAt === null ? null : toIso(r.firstIssuedAt),
      lastIssuedAt: r.lastIssuedAt === null ? null : toIso(r.lastIssuedAt),
      snapshotSeq: record.snapshotSeq,
    },
    files: state.files,
    signing: { alg: 'Ed25519', kid: key.kid, publicKeyB64Url: key.publicKeyB64Url },
  };
}
