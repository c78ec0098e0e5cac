import { hashChildren } from '@presence/sdk/node';
import type { NodeKey } from './tile-math.js';

/** Reads the hash of a perfect subtree: node (level, index) covers leaves index·2^level … (index+1)·2^level − 1. */
export type NodeReader = (node: NodeKey) => Buffer;

function largestPowerOfTwoBelow(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** MTH(D[lo:hi]) of RFC 9162 §2.1.1, for the ranges its recursion produces (lo aligned). */
export function rangeHash(read: NodeReader, lo: number, hi: number): Buffer {
  const n = hi - lo;
  if (n > 0 && n === 2 ** Math.round(Math.log2(n)) && lo % n === 0)
    return read({ level: Math.round(Math.log2(n)), index: lo / n });
  const k = largestPowerOfTwoBelow(n);
  return hashChildren(rangeHash(read, lo, lo + k), rangeHash(read, lo + k, hi));
}

/** The root hash of the first `size` leaves (size ≥ 1). */
export function treeRoot(read: NodeReader, size: number): Buffer {
  return rangeHash(read, 0, size);
}

/** RFC 9162 §2.1.3.1 PATH(m, D[n]): the inclusion proof of leaf m in the first n leaves, lowest first. */
export function inclusionPath(read: NodeReader, m: number, size: number): Buffer[] {
  const out: Buffer[] = [];
  const walk = (lo: number, hi: number): void => {
    if (hi - lo <= 1) return;
    const k = largestPowerOfTwoBelow(hi - lo);
    if (m < lo + k) {
      walk(lo, lo + k);
      out.push(rangeHash(read, lo + k, hi));
    } else {
      walk(lo + k, hi);
      out.push(rangeHash(read, lo, lo + k));
    }
  };
  walk(0, size);
  return out;
}

/** RFC 9162 §2.1.4.1 PROOF(m, D[n]): the consistency proof from the first m leaves to the first n. */
export function consistencyPath(read: NodeReader, m: number, size: number): Buffer[] {
  if (m === 0 || m === size) return [];
  const out: Buffer[] = [];
  const sub = (mm: number, lo: number, hi: number, complete: boolean): void => {
    const n = hi - lo;
    if (mm === n) {
      if (!complete) out.push(rangeHash(read, lo, hi));
      return;
    }
    const k = largestPowerOfTwoBelow(n);
    if (mm <= k) {
      sub(mm, lo, lo + k, complete);
      out.push(rangeHash(read, lo + k, hi));
    } else {
      sub(mm - k, lo + k, hi, false);
      out.push(rangeHash(read, lo, lo + k));
    }
  };
  sub(m, 0, size, true);
  return out;
}

/** Runs `fn` with a reader that only records which nodes it asks for (hash values are irrelevant to shape). */
export function nodesNeeded(fn: (read: NodeReader) => unknown): NodeKey[] {
  const seen = new Map<string, NodeKey>();
  const zero = Buffer.alloc(32);
  fn((node) => {
    seen.set(`${node.level}/${node.index}`, node);
    return zero;
  });
  return [...seen.values()];
}
