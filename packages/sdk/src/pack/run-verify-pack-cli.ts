import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { ServiceKey } from '#contract';
import { formatPackReport } from './format-pack-report.js';
import { verifyPack } from './verify-pack.js';

export const VERIFY_PACK_USAGE = `Usage: presence-verify <pack.zip> [--key pub.pem]... [--keys keys.json]
  --key   an Ed25519 public key (PEM) you pinned; repeatable (one per key, old ones too)
  --keys  a saved copy of https://<service>/.well-known/presence/keys.json
At least one of them is required: the keys inside the pack are never trusted on their own.
Exit status: 0 when every check passes, 1 when any fails, 2 on a usage error.
`;

/** `presence-verify` and `presence verify-pack`: prints a line per check and the verdict. */
export async function runVerifyPackCli(args: string[], out: (text: string) => void): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        key: { type: 'string', multiple: true },
        keys: { type: 'string' },
        help: { type: 'boolean' },
      },
    });
  } catch (error) {
    out(`${(error as Error).message}\n${VERIFY_PACK_USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [file] = positionals;
  if (values.help || !file || positionals.length > 1 || (!values.key && !values.keys)) {
    out(VERIFY_PACK_USAGE);
    return values.help ? 0 : 2;
  }
  const pinnedPublicKeyPem = (values.key ?? []).map((path) => readFileSync(path, 'utf8'));
  const keys = values.keys
    ? (JSON.parse(readFileSync(values.keys, 'utf8')) as { keys: ServiceKey[] }).keys
    : undefined;
  const report = await verifyPack(file, { pinnedPublicKeyPem, keys });
  out(formatPackReport(report, file));
  return report.valid ? 0 : 1;
}
