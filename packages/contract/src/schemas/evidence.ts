/**
 * Receipt listing and export packs (docs/api-contract.md#6-receipts, docs/api-contract.md#7-export-packs). The pack's JSON files are described here
 * too, so the server that writes them and the SDK verifier that reads them share one definition;
 * docs/evidence.md explains them byte by byte.
 */
import { Type, type Static } from '@sinclair/typebox';
import { DECISIONS } from '../decisions.js';
import { Base64Url, Cursor, HashHex, IsoTime, Limit, Subject, prefixedId } from './common.js';
import { ChallengeView } from './presence.js';
import { Receipt, ServiceKey, ServiceSignature } from './receipts.js';

/** Either the service id (`cred_…`) or the WebAuthn credential id (base64url). */
const CredentialRefOrId = Type.String({
  minLength: 1,
  maxLength: 1400,
  pattern: '^[A-Za-z0-9_-]+$',
  description: 'the credentialRef (cred_…) or the WebAuthn credentialId (base64url)',
});

const receiptFilters = {
  subject: Type.Optional(Subject),
  actionHashHex: Type.Optional(HashHex),
  credentialId: Type.Optional(CredentialRefOrId),
  decision: Type.Optional(
    Type.Union(
      DECISIONS.map((d) => Type.Literal(d)),
      { description: 'receipts exist only for PRESENCE_VERIFIED; any other decision matches nothing' },
    ),
  ),
};

export const ListReceiptsQuery = Type.Object(
  {
    from: Type.Optional(Type.String({ format: 'date-time', description: 'issuedAt ≥ from' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'issuedAt < to' })),
    ...receiptFilters,
    order: Type.Optional(
      Type.Union([Type.Literal('asc'), Type.Literal('desc')], {
        default: 'desc',
        description: 'by seq, the order receipts were committed in',
      }),
    ),
    limit: Type.Optional(Limit),
    cursor: Type.Optional(Cursor),
  },
  { additionalProperties: false },
);
export type ListReceiptsQuery = Static<typeof ListReceiptsQuery>;

export const ReceiptListItem = Type.Object(
  {
    seq: Type.Integer({ minimum: 1, description: "the receipt's position in the tenant's receipt log" }),
    receipt: Receipt,
    challenge: ChallengeView,
    receiptHashHex: HashHex,
    signature: ServiceSignature,
  },
  { $id: 'ReceiptListItem' },
);
export type ReceiptListItem = Static<typeof ReceiptListItem>;

export const ReceiptListPage = Type.Object(
  {
    data: Type.Array(ReceiptListItem),
    nextCursor: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'ReceiptListPage' },
);
export type ReceiptListPage = Static<typeof ReceiptListPage>;

export const ExportReceiptsQuery = Type.Object(
  {
    from: Type.String({ format: 'date-time', description: 'issuedAt ≥ from' }),
    to: Type.String({ format: 'date-time', description: 'issuedAt < to' }),
    ...receiptFilters,
    logSince: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: Number.MAX_SAFE_INTEGER,
        description:
          'the tree size of a checkpoint you saved earlier: log/consistency.json then proves the pack checkpoint extends it (presence-verify --since)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ExportReceiptsQuery = Static<typeof ExportReceiptsQuery>;

/** The files of a pack, in the order they are written; manifest.json and its signature come last. */
export const PACK_DATA_FILES = [
  'VERIFY.txt',
  'receipts.ndjson',
  'policy.snapshot.json',
  'trust.snapshot.json',
] as const;
/**
 * The receipt-log files of a pack (docs/adr/0009-receipt-log.md), listed in the manifest after the
 * data files. Packs made before the log existed have none and still verify.
 */
export const PACK_LOG_FILES = ['log/checkpoint.txt', 'log/inclusion.ndjson', 'log/consistency.json'] as const;
/**
 * The approval sets of a pack (docs/approvals.md): present, and named in the manifest after the
 * other files, only when an approval set was decided in the pack's range; packs without approvals
 * are exactly as before.
 */
export const PACK_APPROVALS_FILE = 'approvals.ndjson';

/** One line of log/inclusion.ndjson, in the order of receipts.ndjson (RFC 8785, then '\n'). */
export const PackInclusionLine = Type.Object({
  receiptId: prefixedId('rct'),
  leafIndex: Type.Integer({ minimum: 0 }),
  hashes: Type.Array(Type.String()),
});
export type PackInclusionLine = Static<typeof PackInclusionLine>;

export const PACK_MANIFEST_FILE = 'manifest.json';
export const PACK_SIGNATURE_FILE = 'manifest.sig.json';

/** One line of receipts.ndjson (RFC 8785 canonical JSON, then '\n'). */
export const PackReceiptLine = Type.Object({
  seq: Type.Integer({ minimum: 1 }),
  receipt: Receipt,
  challenge: ChallengeView,
  receiptHashHex: HashHex,
  signature: ServiceSignature,
});
export type PackReceiptLine = Static<typeof PackReceiptLine>;

export const PackFilters = Type.Object(
  {
    subject: Type.Optional(Type.String()),
    actionHashHex: Type.Optional(Type.String()),
    credentialRef: Type.Optional(Type.String()),
    decision: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type PackFilters = Static<typeof PackFilters>;

export const PackFile = Type.Object({
  name: Type.String(),
  sha256: HashHex,
  bytes: Type.Integer({ minimum: 0 }),
});
export type PackFile = Static<typeof PackFile>;

export const ExportManifest = Type.Object(
  {
    version: Type.Literal('presence.export.v1'),
    exportId: prefixedId('exp'),
    tenantId: prefixedId('ten'),
    generatedAt: IsoTime,
    range: Type.Object({ from: IsoTime, to: IsoTime }, { description: 'issuedAt in [from, to)' }),
    filters: PackFilters,
    counts: Type.Object({
      receipts: Type.Integer({ minimum: 0 }),
      credentials: Type.Integer({ minimum: 0 }),
      policies: Type.Integer({ minimum: 0 }),
      serviceKeys: Type.Integer({ minimum: 0 }),
      approvalSets: Type.Optional(
        Type.Integer({ minimum: 1, description: 'only when approvals.ndjson is in the pack' }),
      ),
    }),
    receipts: Type.Object({
      firstSeq: Type.Union([Type.Integer(), Type.Null()]),
      lastSeq: Type.Union([Type.Integer(), Type.Null()]),
      firstIssuedAt: Type.Union([IsoTime, Type.Null()]),
      lastIssuedAt: Type.Union([IsoTime, Type.Null()]),
      snapshotSeq: Type.Integer({ minimum: 0, description: "the tenant's last seq when the export began" }),
    }),
    files: Type.Array(PackFile),
    signing: Type.Object({
      alg: Type.Literal('Ed25519'),
      kid: Type.String(),
      publicKeyB64Url: Base64Url,
    }),
  },
  { additionalProperties: false },
);
export type ExportManifest = Static<typeof ExportManifest>;

export const PolicySnapshot = Type.Object({
  version: Type.Literal('presence.policy-snapshot.v1'),
  tenantId: Type.String(),
  policies: Type.Array(
    Type.Object({
      policyId: Type.String(),
      version: Type.Integer(),
      hashHex: HashHex,
      rules: Type.Object({}, { additionalProperties: true }),
      createdAt: IsoTime,
    }),
  ),
});
export type PolicySnapshot = Static<typeof PolicySnapshot>;

export const TrustCredential = Type.Object({
  credentialRef: Type.String(),
  credentialId: Base64Url,
  subject: Type.String(),
  publicKeyB64Url: Base64Url,
  algorithm: Type.Integer(),
  aaguid: Type.String(),
  attestationFormat: Type.String(),
  attestationObjectB64Url: Base64Url,
  clientDataJSONB64Url: Base64Url,
  transports: Type.Array(Type.String()),
  backupEligible: Type.Boolean(),
  registrationId: Type.String(),
  policyId: Type.String(),
  createdAt: IsoTime,
  revokedAt: Type.Union([IsoTime, Type.Null()]),
});
export type TrustCredential = Static<typeof TrustCredential>;

export const TrustSnapshot = Type.Object({
  version: Type.Literal('presence.trust-snapshot.v1'),
  tenantId: Type.String(),
  credentials: Type.Array(TrustCredential),
  serviceKeys: Type.Array(ServiceKey, {
    description: 'for reference only: verify against keys you obtained yourself, never these alone',
  }),
});
export type TrustSnapshot = Static<typeof TrustSnapshot>;

export { ServiceSignature as ManifestSignature };
