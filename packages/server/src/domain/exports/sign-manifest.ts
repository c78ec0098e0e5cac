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
 * the active service key. The manifest names its signing key, so when a rotation lands between
 * choosing the key and signing, it is rebuilt for the key that actually signed.
 */
export function signManifest(deps: Pick<Deps, 'signer'>, state: PackState): SignedManifest {
  if (state.files.length !== PACK_DATA_FILES.length + (state.log ? PACK_LOG_FILES.length : 0)) {
    throw new Error('a pack file was not written to the end before the manifest was requested');
  }
  for (let attempt = 0; attempt < 3; attempt++) {
    const key = deps.signer.publishedKeys().find((k) => k.status === 'active');
    if (!key) break;
    const manifestBytes = Buffer.from(canonicalJson(buildManifest(state, key)), 'utf8');
    const signed = deps.signer.sign(manifestBytes);
    if (signed.kid !== key.kid) continue;
    const signature: ServiceSignature = { alg: 'Ed25519', ...signed };
    state.manifestSha256 = sha256Hex(manifestBytes);
    state.kid = signed.kid;
    return { manifestBytes, signatureBytes: Buffer.from(canonicalJson(signature), 'utf8') };
  }
  throw new Error('the active signing key kept changing while the manifest was signed');
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
