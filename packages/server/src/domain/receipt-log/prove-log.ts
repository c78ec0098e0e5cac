import type { Deps } from '../deps.js';
import { DomainError } from '../errors.js';
import { consistencyPath, inclusionPath } from './merkle-proofs.js';
import { createLogTreeReader, type LogTreeReader } from './read-log-tree.js';

type ProveDeps = Pick<Deps, 'store'>;

export interface InclusionProof {
  leafIndex: number;
  treeSize: number;
  hashes: string[];
}

export interface ConsistencyProof {
  from: number;
  to: number;
  hashes: string[];
}

/** RFC 9162 inclusion proof of leaf `leafIndex` in the tree of `treeSize` leaves (≤ the integrated size). */
export async function proveInclusion(
  deps: ProveDeps,
  tenantId: string,
  input: { leafIndex: number; treeSize: number },
  reader: LogTreeReader = createLogTreeReader(deps.store.receiptLogTree, tenantId),
): Promise<InclusionProof> {
  const size = await deps.store.receiptLogTree.treeSize(tenantId);
  if (input.treeSize > size) {
    throw new DomainError('not_found', `the log of this tenant has ${size} leaves, not ${input.treeSize}`);
  }
  if (input.leafIndex >= input.treeSize) {
    throw new DomainError(
      'invalid_request',
      `leafIndex ${input.leafIndex} must be below treeSize ${input.treeSize}`,
    );
  }
  const hashes = await reader.compute((read) => inclusionPath(read, input.leafIndex, input.treeSize));
  return { ...input, hashes: hashes.map((h) => h.toString('base64')) };
}

/** RFC 9162 consistency proof from the tree of `from` leaves to the tree of `to` leaves. */
export async function proveConsistency(
  deps: ProveDeps,
  tenantId: string,
  input: { from: number; to: number },
): Promise<ConsistencyProof> {
  const size = await deps.store.receiptLogTree.treeSize(tenantId);
  if (input.to > size)
    throw new DomainError('not_found', `the log of this tenant has ${size} leaves, not ${input.to}`);
  if (input.from > input.to)
    throw new DomainError('invalid_request', `from ${input.from} must not exceed to ${input.to}`);
  const reader = createLogTreeReader(deps.store.receiptLogTree, tenantId);
  const hashes = await reader.compute((read) => consistencyPath(read, input.from, input.to));
  return { ...input, hashes: hashes.map((h) => h.toString('base64')) };
}
