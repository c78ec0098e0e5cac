/** The offline export-pack verifier (Node): what an auditor runs on a pack, months later. */
export { verifyPack } from './verify-pack.js';
export type { PackCheck, PackReport } from './pack-checks.js';
export { serviceKeyId, trustedKeys } from './trusted-keys.js';
export type { TrustRoots, TrustedKey } from './trusted-keys.js';
export { formatPackReport } from './format-pack-report.js';
export { runVerifyPackCli, VERIFY_PACK_USAGE } from './run-verify-pack-cli.js';
export { openZip } from './read-zip.js';
export type { ZipView } from './read-zip.js';
