import { Type, type Static } from '@sinclair/typebox';

/** One hash of a Merkle proof: 32 bytes, standard base64 (as C2SP checkpoints write root hashes). */
const ProofHash = Type.String({ pattern: '^[A-Za-z0-9+/]{43}=$', description: 'base64 SHA-256 node hash' });
const TreeSize = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });

export const InclusionProofQuery = Type.Object(
  {
    leafIndex: Type.Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'seq − 1 of the receipt',
    }),
    treeSize: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
  },
  { additionalProperties: false },
);

export const InclusionProof = Type.Object({
  leafIndex: TreeSize,
  treeSize: TreeSize,
  hashes: Type.Array(ProofHash, { description: 'RFC 9162 §2.1.3 audit path, lowest level first' }),
});
export type InclusionProof = Static<typeof InclusionProof>;

export const ConsistencyProofQuery = Type.Object(
  { from: TreeSize, to: TreeSize },
  { additionalProperties: false },
);

export const ConsistencyProof = Type.Object({
  from: TreeSize,
  to: TreeSize,
  hashes: Type.Array(ProofHash, { description: 'RFC 9162 §2.1.4 consistency path' }),
});
export type ConsistencyProof = Static<typeof ConsistencyProof>;

/** Where a receipt sits in its tenant's log, with a proof against a signed checkpoint. */
export const ReceiptLogEntry = Type.Object({
  leafIndex: TreeSize,
  treeSize: TreeSize,
  inclusionProof: Type.Array(ProofHash),
  checkpoint: Type.String({
    description: 'the C2SP signed-note checkpoint the proof is against, with cosignatures',
  }),
});
export type ReceiptLogEntry = Static<typeof ReceiptLogEntry>;

export const CosignatureBody = Type.Object(
  {
    checkpoint: Type.String({
      minLength: 1,
      maxLength: 8192,
      description: 'the checkpoint the witness cosigned: its body, or the whole signed note as served',
    }),
    cosignature: Type.String({
      minLength: 1,
      maxLength: 1024,
      description: 'the C2SP tlog-cosignature line `— <name> <base64>`',
    }),
    witnessKey: Type.String({
      minLength: 1,
      maxLength: 1024,
      description: 'the witness verifier key `<name>+<key id hex>+<base64(0x04 || Ed25519 key)>`',
    }),
  },
  { additionalProperties: false },
);
export type CosignatureBody = Static<typeof CosignatureBody>;

export const CosignatureAccepted = Type.Object({
  treeSize: TreeSize,
  witnessName: Type.String(),
  stored: Type.Boolean({ description: 'false when this witness had already cosigned this checkpoint' }),
});
