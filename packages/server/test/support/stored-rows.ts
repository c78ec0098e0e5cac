/** The shape of the files in test/fixtures/stored-rows/, shared by the test that reads them and the one that writes them. */
import type { Database } from '../../src/storage/schema.js';

/** The tenant id the files hold; each read gives the rows to a fresh tenant instead. */
export const FIXTURE_TENANT = 'ten_00000000000000000000000000';

/** The tables a file may hold rows of, parents first, so foreign keys hold. */
export const TABLE_ORDER: (keyof Database)[] = [
  'policies',
  'api_keys',
  'registrations',
  'credentials',
  'challenges',
  'webhook_endpoints',
  'billing_plans',
  'usage_rollups',
  'invoices',
  'invoice_counters',
  'audit_events',
  'approvals',
  'approval_approvers',
  'approval_sets',
];

export interface StoredRows {
  writtenBy: string;
  readAt: number;
  rows: Partial<Record<keyof Database, Record<string, unknown>[]>>;
  /** `as: 'operator'`: read through the operator API (`/admin/v1`) with the operator token. */
  reads: { url: string; as?: 'operator'; status: number; json: unknown }[];
}
