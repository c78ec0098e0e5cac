import type { Scope } from '@presence/contract';

/** One line per scope on the key form: what a holder of the key can do with it. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'credentials:write': 'enroll and delete the passkeys of your users',
  'credentials:read': 'list your users’ passkeys',
  'challenges:write': 'create presence challenges for an action',
  'challenges:read': 'read challenges and their state',
  'presence:verify': 'verify an assertion and get the decision and receipt',
  'receipts:read': 'read receipts and the receipt log',
  'receipts:export': 'download signed export packs',
  'billing:read': 'read usage and invoices',
  'webhooks:manage': 'add, change and delete webhook endpoints (they receive your events)',
  'keys:manage': 'create, rotate and revoke API keys with its own scopes',
  'policy:read': 'read the tenant policy',
  'policy:write': 'change the policy: origins, user verification, challenge lifetime',
  'approvals:write': 'ask people to approve an action',
  'approvals:read': 'read approval requests and their decisions',
  'audit:read': 'read the audit log',
};

/** Presets on the key form: the scopes a common caller needs, nothing more. */
export const SCOPE_PRESETS: readonly { label: string; scopes: readonly Scope[] }[] = [
  {
    label: 'Backend gate',
    scopes: ['challenges:write', 'presence:verify', 'credentials:write', 'credentials:read', 'receipts:read'],
  },
  {
    label: 'Auditor',
    scopes: ['receipts:read', 'receipts:export', 'audit:read', 'policy:read', 'billing:read'],
  },
  { label: 'Webhooks', scopes: ['webhooks:manage'] },
];
