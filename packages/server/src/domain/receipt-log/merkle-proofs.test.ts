/**
 * Differential tests of the receipt log's Merkle hashing and proofs against what we did not
 * write: the RFC 6962 / RFC 9162 reference vectors published with Certificate Transparency's
 * reference implementation (transparency-dev/merkle, testonly/constants.go and
 * proof/verify_test.go), and the inclusion verifier of Sigstore's `@sigstore/verify`. Our proof
 * generation over stored tiles must produce exactly the reference proofs, and every proof we
 * generate for random trees must satisfy Sigstore's verifier.
 */
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import {
  appendToCompactRange,
  compactRangeRoot,
  hashLeaf,
  rootFromLeafHashes,
  verifyConsistency,
  verifyInclusion,
  ProofError,
} from '@presence/sdk/node';
import { describe, expect, it } from 'vitest';
import { consistencyPath, inclusionPath, treeRoot, type NodeReader } from './merkle-proofs.js';
import {
  appendToTiles,
  compactRangeFromTiles,
  nodeHashFromTile,
  rightEdgeTiles,
  tileId,
} from './tile-math.js';

const require = createRequire(import.meta.url);
// Sigstore's own Merkle inclusion check (Apache-2.0), deep-imported: the package has no exports map.
const { verifyMerkleInclusion } = require('@sigstore/verify/dist/tlog/merkle.js') as {
  verifyMerkleInclusion(
    entry: { canonicalizedBody: Buffer; inclusionProof: { logIndex: string; hashes: Buffer[] } },
    checkpoint: { logSize: bigint; logHash: Buffer },
  ): void;
};

const hex = (h: string) => Buffer.from(h, 'hex');
// RFC 6962 reference leaves and roots (transparency-dev/merkle testonly/constants.go).
const LEAVES = [
  '',
  '00',
  '10',
  '2021',
  '3031',
  '40414243',
  '5051525354555657',
  '606162636465666768696a6b6c6d6e6f',
].map(hex);
const ROOTS = [
  'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
].map(hex);
// proof/verify_test.go: inclusion (1-based leaf, size) and consistency (size1, size2) vectors.
const INCLUSION: [number, number, string[]][] = [
  [
    1,
    8,
    [
      '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
    ],
  ],
  [
    6,
    8,
    [
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  ],
  [3, 3, ['fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125']],
  [
    2,
    5,
    [
      '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
    ],
  ],
];
const CONSISTENCY: [number, number, string[]][] = [
  [
    1,
    8,
    [
      '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
    ],
  ],
  [
    6,
    8,
    [
      '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  ],
  [
    2,
    5,
    [
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
    ],
  ],
  [
    6,
    7,
    [
      '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
      'b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  ],
];

/** A tree stored the way the service stores it: tiles built by appending in uneven batches. */
function tiledReader(leafHashes: Buffer[], batches = [1, 3, 250, 7]): NodeReader {
  const tiles = storedTiles(leafHashes, batches, () => {});
  return (node) => nodeHashFromTile(tiles, node);
}

/** The tiles of `leafHashes` appended batch by batch; `after` sees the tiles at each size reached. */
function storedTiles(
  leafHashes: Buffer[],
  batches: readonly number[],
  after: (size: number, tiles: Map<string, Buffer>, added: Buffer[]) => void,
): Map<string, Buffer> {
  const tiles = new Map<string, Buffer>();
  let size = 0;
  for (let b = 0; size < leafHashes.length; b++) {
    const next = leafHashes.slice(size, size + batches[b % batches.length]!);
    const edge = new Map(rightEdgeTiles(size).map((t) => [tileId(t), tiles.get(tileId(t))!]));
    for (const t of appendToTiles(size, edge, next)) tiles.set(tileId(t), t.hashes);
    size += next.length;
    after(size, tiles, next);
  }
  return tiles;
}

describe('receipt log Merkle tree against the RFC 6962 reference vectors', () => {
  const leafHashes = LEAVES.map((l) => hashLeaf(l));
  const read = tiledReader(leafHashes);

  it('reproduces every reference root, from tiles and from the SDK', () => {
    for (let n = 1; n <= 8; n++) {
      expect(treeRoot(read, n).toString('hex'), `size ${n}`).toBe(ROOTS[n]!.toString('hex'));
      expect(rootFromLeafHashes(leafHashes.slice(0, n))).toEqual(ROOTS[n]);
    }
    expect(rootFromLeafHashes([])).toEqual(ROOTS[0]);
  });

  it('generates exactly the reference inclusion proofs, and the SDK accepts them', () => {
    for (const [leaf, size, proof] of INCLUSION) {
      const ours = inclusionPath(read, leaf - 1, size).map((h) => h.toString('hex'));
      expect(ours, `leaf ${leaf} of ${size}`).toEqual(proof);
      verifyInclusion(leaf - 1, size, leafHashes[leaf - 1]!, proof.map(hex), ROOTS[size]!);
    }
  });

  it('generates exactly the reference consistency proofs, and the SDK accepts them', () => {
    for (const [from, to, proof] of CONSISTENCY) {
      expect(
        consistencyPath(read, from, to).map((h) => h.toString('hex')),
        `${from}→${to}`,
      ).toEqual(proof);
      verifyConsistency(from, to, proof.map(hex), ROOTS[from]!, ROOTS[to]!);
    }
  });

  it('the SDK refuses the reference corruptions of each proof', () => {
    for (const [from, to, proof] of CONSISTENCY) {
      const p = proof.map(hex);
      const bad: [number, number, Buffer[], Buffer, Buffer][] = [
        [from - 1, to, p, ROOTS[from]!, ROOTS[to]!],
        [from + 1, to, p, ROOTS[from]!, ROOTS[to]!],
        [from, to * 2, p, ROOTS[from]!, ROOTS[to]!],
        [from, to, p, ROOTS[to]!, ROOTS[from]!],
        [from, to, [], ROOTS[from]!, ROOTS[to]!],
        [from, to, [...p, ROOTS[from]!], ROOTS[from]!, ROOTS[to]!],
        [from, to, p.slice(0, -1), ROOTS[from]!, ROOTS[to]!],
        ...p.map((_, i): [number, number, Buffer[], Buffer, Buffer] => {
          const flipped = p.map((h) => Buffer.from(h));
          flipped[i]![0]! ^= 16;
          return [from, to, flipped, ROOTS[from]!, ROOTS[to]!];
        }),
      ];
      for (const [a, b, q, r1, r2] of bad) {
        if (a < 0 || b > 8 || a > b) continue;
        expect(() => verifyConsistency(a, b, q, r1, r2), `${a}→${b}`).toThrow(ProofError);
      }
    }
    for (const [leaf, size, proof] of INCLUSION) {
      const p = proof.map(hex);
      expect(() => verifyInclusion(leaf, size, leafHashes[leaf - 1]!, p, ROOTS[size]!)).toThrow(ProofError);
      expect(() => verifyInclusion(leaf - 1, size, leafHashes[leaf - 1]!, p.slice(1), ROOTS[size]!)).toThrow(
        ProofError,
      );
      expect(() =>
        verifyInclusion(leaf - 1, size, leafHashes[leaf - 1]!, [...p, p[0]!], ROOTS[size]!),
      ).toThrow(ProofError);
    }
  });
});

describe('the compact range a checkpoint’s root is computed from', () => {
  it('gives every reference root', () => {
    const leafHashes = LEAVES.map((l) => hashLeaf(l));
    expect(compactRangeRoot([])).toEqual(ROOTS[0]);
    for (let n = 1; n <= 8; n++) {
      const range = appendToCompactRange(0, [], leafHashes.slice(0, n));
      expect(compactRangeRoot(range).toString('hex'), `size ${n}`).toBe(ROOTS[n]!.toString('hex'));
    }
  });

  it('appended batch by batch, matches the tiles and their root at every size', () => {
    const leafHashes = Array.from({ length: 70_000 }, () => hashLeaf(randomBytes(32)));
    // Batches that cross tile and level boundaries: a level-1 tile fills at 65,536 leaves.
    const runs: [number, number[]][] = [
      [20_000, [1, 3, 250, 7]],
      [20_000, [255, 1, 256, 4_000]],
      [70_000, [65_535, 2, 999]],
    ];
    for (const [leaves, batches] of runs) {
      let range: Buffer[] = [];
      let checked = 0;
      storedTiles(leafHashes.slice(0, leaves), batches, (size, tiles, added) => {
        range = appendToCompactRange(size - added.length, range, added);
        expect(compactRangeFromTiles(size, tiles)).toEqual(range);
        expect(compactRangeRoot(range)).toEqual(treeRoot((node) => nodeHashFromTile(tiles, node), size));
        checked++;
      });
      expect(checked).toBeGreaterThan(2);
    }
  });

  it('refuses a range that does not fit its size', () => {
    const two = [hashLeaf(Buffer.of(1)), hashLeaf(Buffer.of(2))];
    expect(() => appendToCompactRange(2, two, [])).toThrow(RangeError);
    expect(() => appendToCompactRange(3, [two[0]!], [two[1]!])).toThrow(RangeError);
    expect(compactRangeRoot(appendToCompactRange(3, two, []))).toEqual(compactRangeRoot(two));
  });
});

describe('receipt log inclusion proofs against @sigstore/verify', () => {
  it('every proof of random trees (sizes 1…300 and a few large ones) satisfies Sigstore and ours', () => {
    for (const size of [1, 2, 3, 5, 8, 13, 64, 255, 256, 257, 300, 1000, 4097]) {
      const bodies = Array.from({ length: size }, () => randomBytes(32));
      const leafHashes = bodies.map((b) => hashLeaf(b));
      const read = tiledReader(leafHashes);
      const root = treeRoot(read, size);
      expect(root).toEqual(rootFromLeafHashes(leafHashes));
      const indexes = size <= 300 ? [...Array(size).keys()] : [0, 1, 255, 256, size - 2, size - 1];
      for (const i of indexes) {
        const proof = inclusionPath(read, i, size);
        verifyMerkleInclusion(
          { canonicalizedBody: bodies[i]!, inclusionProof: { logIndex: String(i), hashes: proof } },
          { logSize: BigInt(size), logHash: root },
        );
        verifyInclusion(i, size, leafHashes[i]!, proof, root);
        if (proof.length > 0) {
          const bad = proof.map((h) => Buffer.from(h));
          bad[0]![5]! ^= 1;
          expect(() =>
            verifyMerkleInclusion(
              { canonicalizedBody: bodies[i]!, inclusionProof: { logIndex: String(i), hashes: bad } },
              { logSize: BigInt(size), logHash: root },
            ),
          ).toThrow();
        }
      }
      for (const m of [1, Math.floor(size / 2), size - 1].filter((m) => m > 0 && m < size)) {
        verifyConsistency(
          m,
          size,
          consistencyPath(read, m, size),
          rootFromLeafHashes(leafHashes.slice(0, m)),
          root,
        );
      }
    }
  });
});
