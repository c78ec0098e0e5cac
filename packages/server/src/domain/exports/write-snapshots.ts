import type { Deps } from '../deps.js';
import { canonicalJson, toIso } from '../encoding.js';
import type { CredentialRecord } from '../credentials/ports.js';
import type { PackState } from './pack-state.js';

const CREDENTIAL_CHUNK = 200;

/**
 * policy.snapshot.json: every policy version the receipts name, in RFC 8785 form. Written as
 * pieces whose concatenation is canonicalJson({policies, tenantId, version}) (keys in order).
 */
export async function* writePolicySnapshot(
  deps: Pick<Deps, 'store'>,
  state: PackState,
): AsyncGenerator<Buffer> {
  const tenantId = state.record.tenantId;
  const policies = [];
  for (const id of state.policyIds) {
    const p = await deps.store.policies.get(tenantId, id);
    if (!p) throw new Error(`receipt policy ${id} is missing`);
    policies.push(p);
  }
  policies.sort((a, b) => a.version - b.version);
  state.policyCount = policies.length;
  const items = policies.map((p) =>
    canonicalJson({
      policyId: p.id,
      version: p.version,
      hashHex: p.hashHex,
      rules: p.rules,
      createdAt: toIso(p.createdAt),
    }),
  );
  yield Buffer.from(
    `{"policies":[${items.join(',')}],"tenantId":${JSON.stringify(tenantId)},"version":"presence.policy-snapshot.v1"}`,
  );
}

/**
 * trust.snapshot.json: the credentials the receipts use, with their enrollment evidence, and the
 * service's published keys, streamed in chunks (a tenant may have many credentials).
 */
export async function* writeTrustSnapshot(
  deps: Pick<Deps, 'store' | 'signer'>,
  state: PackState,
): AsyncGenerator<Buffer> {
  const tenantId = state.record.tenantId;
  const refs = [...state.credentialRefs].sort();
  state.credentialCount = refs.length;
  yield Buffer.from('{"credentials":[');
  for (let i = 0; i < refs.length; i += CREDENTIAL_CHUNK) {
    const pieces = [];
    for (const ref of refs.slice(i, i + CREDENTIAL_CHUNK)) {
      const c = await deps.store.credentials.get(tenantId, ref);
      if (!c) throw new Error(`receipt credential ${ref} is missing`);
      pieces.push(canonicalJson(trustCredential(c)));
    }
    yield Buffer.from((i === 0 ? '' : ',') + pieces.join(','));
  }
  const keys = deps.signer.publishedKeys();
  state.serviceKeyCount = keys.length;
  yield Buffer.from(
    `],"serviceKeys":${canonicalJson(keys)},"tenantId":${JSON.stringify(tenantId)},"version":"presence.trust-snapshot.v1"}`,
  );
}

function trustCredential(c: CredentialRecord) {
  return {
    credentialRef: c.id,
    credentialId: c.credentialId,
    subject: c.subject,
    publicKeyB64Url: c.publicKeyB64Url,
    algorithm: c.algorithm,
    aaguid: c.aaguid,
    attestationFormat: c.attestationFormat,
    attestationObjectB64Url: c.attestationObjectB64Url,
    clientDataJSONB64Url: c.clientDataJSONB64Url,
    transports: c.transports,
    backupEligible: c.backupEligible,
    registrationId: c.registrationId,
    policyId: c.policyId,
    createdAt: toIso(c.createdAt),
    revokedAt: c.revokedAt === null ? null : toIso(c.revokedAt),
  };
}
