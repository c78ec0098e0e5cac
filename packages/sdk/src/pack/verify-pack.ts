import { createHash } from 'node:crypto';
import {
  PACK_APPROVALS_FILE,
  PACK_DATA_FILES,
  PACK_LOG_FILES,
  PACK_MANIFEST_FILE,
  PACK_SIGNATURE_FILE,
  type ExportManifest,
} from '#contract';
import { checkApprovalLines, hasApprovals, reportApprovals } from './check-approval-lines.js';
import { checkManifest } from './check-manifest.js';
import { checkReceiptLines, type LineSummary } from './check-receipt-lines.js';
import { CheckList, Tally, type PackReport } from './pack-checks.js';
import { checkSnapshots } from './check-snapshots.js';
import { openZip, type ZipView } from './read-zip.js';
import { trustedKeys, trustedLogKeys, type TrustedKey, type TrustRoots } from './trusted-keys.js';
import { checkLogFiles, type LoggedLine } from './check-log-files.js';
import { receiptLeafHash } from '../log/merkle-hash.js';
import { parseVerifierKey } from '../log/signed-note.js';
import { registerDateTimeFormat } from './date-time-format.js';

const MAX_JSON_BYTES = 512 * 1024 * 1024;
const BASE_FILES: readonly string[] = [...PACK_DATA_FILES, PACK_MANIFEST_FILE, PACK_SIGNATURE_FILE];

/** A pack has log files when its signed manifest lists them; packs made before the log have none. */
function hasLog(manifest: ExportManifest | null): boolean {
  return manifest?.files.some((f) => f.name === PACK_LOG_FILES[0]) ?? false;
}

/**
 * Verifies an export pack offline (a path or the zip's bytes), trusting only the keys you pass:
 * pinned PEMs or the service's published keys. The keys inside trust.snapshot.json are never a
 * trust root. Every check is reported; `valid` is true only when all of them pass.
 */
export async function verifyPack(source: string | Uint8Array, roots: TrustRoots = {}): Promise<PackReport> {
  registerDateTimeFormat();
  trustedKeys(roots); // A wrong argument is the caller's error (PresenceUsageError), not a failed check.
  const list = new CheckList();
  let zip: ZipView;
  try {
    zip = await openZip(source);
  } catch (error) {
    list.fail('zip', `not a readable zip: ${(error as Error).message}`);
    return toReport(list, null, 0);
  }
  let manifest: ExportManifest | null = null;
  let receipts = 0;
  try {
    list.pass('zip', `${zip.names.length} entries`);
    manifest = await checkManifest(list, zip, trustedKeys(roots));
    const approvals = hasApprovals(manifest) ? [PACK_APPROVALS_FILE] : [];
    checkFileSet(list, zip.names, [...BASE_FILES, ...approvals, ...(hasLog(manifest) ? PACK_LOG_FILES : [])]);
    receipts = await checkContents(list, zip, manifest, trustedKeys(roots), roots);
  } catch (error) {
    list.fail('pack', `verification stopped: ${(error as Error).message}`);
  } finally {
    zip.close();
  }
  return toReport(list, manifest, receipts);
}

function toReport(list: CheckList, manifest: ExportManifest | null, receipts: number): PackReport {
  return {
    valid: list.checks.length > 0 && list.checks.every((c) => c.ok),
    exportId: manifest?.exportId ?? null,
    tenantId: manifest?.tenantId ?? null,
    receipts,
    checks: list.checks,
  };
}

function checkFileSet(list: CheckList, names: string[], expected: readonly string[]): void {
  const missing = expected.filter((f) => !names.includes(f));
  const extra = names.filter((n) => !expected.includes(n));
  const repeated = names.filter((n, i) => names.indexOf(n) !== i);
  if (missing.length + extra.length + repeated.length === 0)
    list.pass('files.present', `exactly the ${expected.length} pack files`);
  else
    list.fail(
      'files.present',
      [
        missing.length > 0 && `missing ${missing.join(', ')}`,
        extra.length > 0 && `unexpected ${extra.join(', ')}`,
        repeated.length > 0 && `repeated ${repeated.join(', ')}`,
      ]
        .filter(Boolean)
        .join('; '),
    );
}

/** Every data file against the manifest, the snapshots, then every receipt line. */
async function checkContents(
  list: CheckList,
  zip: ZipView,
  manifest: ExportManifest | null,
  keys: TrustedKey[],
  roots: TrustRoots,
): Promise<number> {
  const small = new Map<string, Buffer>();
  for (const name of ['VERIFY.txt', 'policy.snapshot.json', 'trust.snapshot.json'] as const) {
    if (zip.names.includes(name)) small.set(name, await zip.read(name, MAX_JSON_BYTES));
  }
  const snapshots = checkSnapshots(list, small, manifest);
  const tally = new Tally();
  let summary: LineSummary | null = null;
  const logged: LoggedLine[] = [];
  const onReceipt = (seq: number, receiptId: string, hashHex: string) =>
    logged.push({ seq, receiptId, leafHash: receiptLeafHash(hashHex) });
  if (zip.names.includes('receipts.ndjson')) {
    const stream = await zip.stream('receipts.ndjson');
    summary = await checkReceiptLines(stream, { manifest, keys, tally, ...snapshots, onReceipt });
  }
  for (const name of PACK_DATA_FILES) {
    const bytes = small.get(name);
    const actual = bytes
      ? { sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length }
      : name === 'receipts.ndjson'
        ? summary
        : null;
    checkFile(list, manifest, name, actual);
  }
  if (summary) reportReceipts(list, tally, manifest, summary);
  if (hasApprovals(manifest) && zip.names.includes(PACK_APPROVALS_FILE)) {
    const approvals = await checkApprovalLines(await zip.stream(PACK_APPROVALS_FILE), {
      manifest,
      keys,
      tally,
    });
    checkFile(list, manifest, PACK_APPROVALS_FILE, approvals);
    reportApprovals(list, tally, approvals.count);
  }
  await checkLog(list, zip, manifest, logged, roots);
  return summary?.count ?? 0;
}

/** The receipt-log files, when the manifest lists them; their digests against the manifest too. */
async function checkLog(
  list: CheckList,
  zip: ZipView,
  manifest: ExportManifest | null,
  logged: LoggedLine[],
  roots: TrustRoots,
): Promise<void> {
  if (!manifest || !hasLog(manifest)) {
    if (roots.since !== undefined)
      list.fail('log', 'the pack has no receipt log, so --since cannot be checked');
    else list.pass('log', 'this pack predates the receipt log (no log files in its manifest)');
    return;
  }
  if (!PACK_LOG_FILES.every((f) => zip.names.includes(f))) return; // files.present already failed
  const [checkpointFile, inclusionFile, consistencyFile] = PACK_LOG_FILES;
  const checkpoint = await zip.read(checkpointFile, 1024 * 1024);
  const consistency = await zip.read(consistencyFile, 1024 * 1024);
  const { inclusion } = await checkLogFiles(
    list,
    { checkpoint, consistency, inclusion: await zip.stream(inclusionFile) },
    manifest,
    logged,
    {
      logKeys: trustedLogKeys(roots),
      since: roots.since,
      fetchConsistency: roots.fetchConsistency,
      witnesses: (roots.witnessKeys ?? []).map((k) => parseVerifierKey(k)),
      minWitnesses: roots.minWitnesses,
    },
  );
  const digest = (b: Buffer) => ({ sha256: createHash('sha256').update(b).digest('hex'), bytes: b.length });
  checkFile(list, manifest, checkpointFile, digest(checkpoint));
  checkFile(list, manifest, inclusionFile, inclusion);
  checkFile(list, manifest, consistencyFile, digest(consistency));
}

function checkFile(
  list: CheckList,
  manifest: ExportManifest | null,
  name: string,
  actual: { sha256: string; bytes: number } | null,
) {
  const listed = manifest?.files.find((f) => f.name === name);
  if (!listed || !actual)
    return list.fail(`file ${name}`, !actual ? 'missing from the zip' : 'not listed in the manifest');
  const ok = listed.sha256 === actual.sha256 && listed.bytes === actual.bytes;
  return list.add(
    `file ${name}`,
    ok,
    ok
      ? `sha256 ${actual.sha256}, ${actual.bytes} bytes`
      : `sha256 ${actual.sha256} (${actual.bytes} bytes), manifest says ${listed.sha256} (${listed.bytes} bytes)`,
  );
}

function reportReceipts(
  list: CheckList,
  tally: Tally,
  manifest: ExportManifest | null,
  s: LineSummary,
): void {
  tally.report(list, 'receipts.parse', `${s.count} canonical lines`);
  tally.report(
    list,
    'receipts.verify',
    'every receipt: hash, service signature, key validity, challenge binding, client data, rpId hash, flags, WebAuthn signature',
  );
  tally.report(list, 'receipts.unique', 'no receipt twice; seq strictly increasing');
  tally.report(
    list,
    'receipts.scope',
    "every receipt is the manifest's tenant, inside its range and filters",
  );
  tally.report(
    list,
    'trust.credentials',
    "every receipt's credential is in trust.snapshot.json with the same key",
  );
  tally.report(
    list,
    'policy.references',
    "every receipt's policy version is in policy.snapshot.json with the same hash",
  );
  if (!manifest) return;
  const m = manifest.receipts;
  const counted =
    manifest.counts.receipts === s.count &&
    m.firstSeq === s.firstSeq &&
    m.lastSeq === s.lastSeq &&
    (m.firstIssuedAt === null
      ? s.firstIssuedAt === null
      : Date.parse(m.firstIssuedAt) === Date.parse(String(s.firstIssuedAt))) &&
    (m.lastIssuedAt === null
      ? s.lastIssuedAt === null
      : Date.parse(m.lastIssuedAt) === Date.parse(String(s.lastIssuedAt)));
  list.add(
    'receipts.count',
    counted,
    counted
      ? `${s.count} receipts, seq ${String(s.firstSeq)}…${String(s.lastSeq)}`
      : `${s.count} lines (seq ${String(s.firstSeq)}…${String(s.lastSeq)}), manifest says ${manifest.counts.receipts} (seq ${String(m.firstSeq)}…${String(m.lastSeq)})`,
  );
}
