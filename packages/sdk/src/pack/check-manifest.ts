import { createPublicKey, verify } from 'node:crypto';
import { ExportManifest, PACK_MANIFEST_FILE, PACK_SIGNATURE_FILE } from '#contract';
import { Value } from '@sinclair/typebox/value';
import { canonicalJson } from '../canonical-json.js';
import type { CheckList } from './pack-checks.js';
import type { ZipView } from './read-zip.js';
import type { TrustedKey } from './trusted-keys.js';

const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

/** manifest.json: canonical, well-formed, and signed by a trusted key that was valid at the time. */
export async function checkManifest(
  list: CheckList,
  zip: ZipView,
  keys: TrustedKey[],
): Promise<ExportManifest | null> {
  if (!zip.names.includes(PACK_MANIFEST_FILE)) {
    list.fail('manifest.format', 'manifest.json is missing');
    return null;
  }
  const bytes = await zip.read(PACK_MANIFEST_FILE, MAX_MANIFEST_BYTES);
  let manifest: ExportManifest | null = null;
  try {
    const parsed: unknown = JSON.parse(bytes.toString('utf8'));
    if (canonicalJson(parsed) !== bytes.toString('utf8')) throw new Error('not in RFC 8785 canonical form');
    if (!Value.Check(ExportManifest, parsed))
      throw new Error(`does not match presence.export.v1: ${firstError(parsed)}`);
    manifest = parsed;
    list.pass('manifest.format', `export ${manifest.exportId} of tenant ${manifest.tenantId}`);
  } catch (error) {
    list.fail('manifest.format', `manifest.json ${(error as Error).message}`);
  }
  await checkSignature(list, zip, bytes, manifest, keys);
  return manifest;
}

function firstError(value: unknown): string {
  const e = Value.Errors(ExportManifest, value).First();
  return e ? `${e.path || '/'} ${e.message}` : 'unknown';
}

async function checkSignature(
  list: CheckList,
  zip: ZipView,
  manifestBytes: Buffer,
  manifest: ExportManifest | null,
  keys: TrustedKey[],
): Promise<void> {
  if (keys.length === 0) {
    list.fail(
      'manifest.signature',
      'no trusted key given: pass a pinned key or the published keys (the pack’s own keys are not a trust root)',
    );
    return;
  }
  let sig: { alg?: unknown; kid?: unknown; signatureB64Url?: unknown } = {};
  try {
    sig = JSON.parse((await zip.read(PACK_SIGNATURE_FILE, 64 * 1024)).toString('utf8')) as typeof sig;
  } catch (error) {
    list.fail('manifest.signature', `manifest.sig.json is unreadable: ${(error as Error).message}`);
    return;
  }
  const key = keys.find((k) => k.kid === sig.kid);
  if (sig.alg !== 'Ed25519' || typeof sig.signatureB64Url !== 'string' || !key) {
    list.fail(
      'manifest.signature',
      `signed by ${String(sig.kid)}, which is not a trusted key (or not an Ed25519 signature record)`,
    );
    return;
  }
  const publicKey = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: key.publicKeyB64Url },
    format: 'jwk',
  });
  const ok = verify(null, manifestBytes, publicKey, Buffer.from(sig.signatureB64Url, 'base64url'));
  const named =
    manifest === null ||
    (manifest.signing.kid === key.kid && manifest.signing.publicKeyB64Url === key.publicKeyB64Url);
  list.add(
    'manifest.signature',
    ok && named,
    !ok
      ? `the signature does not verify with ${key.kid}`
      : named
        ? `signed by ${key.kid}${key.pinned ? ' (pinned key)' : ''}`
        : 'the manifest names another signing key than the one that signed it',
  );
  if (manifest && ok) checkKeyValidity(list, key, manifest.generatedAt);
}

function checkKeyValidity(list: CheckList, key: TrustedKey, generatedAt: string): void {
  if (key.pinned) {
    list.pass(
      'manifest.keyValidity',
      `pinned key: no validity window known (pass the published keys to check it)`,
    );
    return;
  }
  const at = Date.parse(generatedAt);
  const inside = at >= Date.parse(key.notBefore) && (key.notAfter === null || at <= Date.parse(key.notAfter));
  list.add(
    'manifest.keyValidity',
    inside,
    inside
      ? `generated while ${key.kid} was valid`
      : `generated at ${generatedAt}, outside ${key.kid}'s validity`,
  );
}
