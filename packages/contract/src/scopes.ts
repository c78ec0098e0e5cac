/** API key scopes. A route names exactly one; a key holds any subset. */
export const SCOPES = [
  'credentials:write',
  'credentials:read',
  'challenges:write',
  'challenges:read',
  'presence:verify',
  'receipts:read',
  'receipts:export',
  'billing:read',
  'webhooks:manage',
  'keys:manage',
  'policy:read',
  'policy:write',
  'approvals:write',
  'approvals:read',
  'audit:read',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
