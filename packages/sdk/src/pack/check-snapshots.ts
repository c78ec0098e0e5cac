import { createHash } from 'node:crypto';
import type { ExportManifest, PolicySnapshot, TrustCredential, TrustSnapshot } from '#contract';
import { canonicalJson } from '../canonical-json.js';
import type { CheckList } from './pack-checks.js';

type Policy = PolicySnapshot['policies'][number];

export interface Snapshots {
  credentials: Map<string, TrustCredential>;
  policies: Map<string, Policy>;
}

/**
 * policy.snapshot.json and trust.snapshot.json: canonical JSON of the manifest's tenant, with the
 * counts the manifest states; every policy's hash recomputed from its rules.
 */
export function checkSnapshots(
  list: CheckList,
  files: Map<string, Buffer>,
  manifest: ExportManifest | null,
): Snapshots {
  const policy = parse<PolicySnapshot>(
    list,
    'policy.snapshot',
    files.get('policy.snapshot.json'),
    'presence.policy-snapshot.v1',
    manifest,
  );
  const trust = parse<TrustSnapshot>(
    list,
    'trust.snapshot',
    files.get('trust.snapshot.json'),
    'presence.trust-snapshot.v1',
    manifest,
  );
  const policies = new Map((policy?.policies ?? []).map((p) => [p.policyId, p]));
  const credentials = new Map((trust?.credentials ?? []).map((c) => [c.credentialRef, c]));
  if (policy) {
    const wrong = policy.policies
      .filter((p) => sha256Hex(canonicalJson(p.rules)) !== p.hashHex)
      .map((p) => p.policyId);
    const counted = manifest === null || manifest.counts.policies === policy.policies.length;
    list.add(
      'policy.snapshot',
      wrong.length === 0 && counted,
      wrong.length > 0
        ? `rules do not hash to hashHex for ${wrong.join(', ')}`
        : counted
          ? `${policies.size} policy version(s), each hash recomputed from its rules`
          : 'the policy count differs from the manifest',
    );
  }
  if (trust) {
    const counted =
      manifest === null ||
      (manifest.counts.credentials === trust.credentials.length &&
        manifest.counts.serviceKeys === trust.serviceKeys.length);
    list.add(
      'trust.snapshot',
      counted,
      counted
        ? `${credentials.size} credential(s) with enrollment evidence; ${trust.serviceKeys.length} service key(s), for reference only`
        : 'the credential or service key count differs from the manifest',
    );
  }
  return { credentials, policies };
}

function parse<T extends { version: string; tenantId: string }>(
  list: CheckList,
  check: string,
  bytes: Buffer | undefined,
  version: string,
  manifest: ExportManifest | null,
): T | null {
  if (!bytes) {
    list.fail(check, 'the file is missing');
    return null;
  }
  try {
    const text = bytes.toString('utf8');
    const value = JSON.parse(text) as T;
    if (canonicalJson(value) !== text) throw new Error('is not in RFC 8785 canonical form');
    if (value.version !== version) throw new Error(`is not ${version}`);
    if (manifest && value.tenantId !== manifest.tenantId)
      throw new Error(`belongs to tenant ${value.tenantId}`);
    return value;
  } catch (error) {
    list.fail(check, `the file ${(error as Error).message}`);
    return null;
  }
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
