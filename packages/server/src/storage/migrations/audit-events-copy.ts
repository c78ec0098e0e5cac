/**
 * The console audit rows of 0009, renamed into the audit vocabulary of 0014 (docs/console.md):
 * old action → new action and target type. Shared by both dialects' 0014 migration.
 */
const RENAMES: readonly [string, string, string][] = [
  ['api-key.create', 'api_key.created', 'api_key'],
  ['api-key.revoke', 'api_key.revoked', 'api_key'],
  ['api-key.rotate', 'api_key.rotated', 'api_key'],
  ['credential.revoke', 'credential.revoked', 'credential'],
  ['member.invite', 'invite.created', 'invite'],
  ['member.joined', 'member.joined', 'member'],
  ['member.remove', 'member.removed', 'member'],
  ['member.signed-in', 'member.signed_in', 'member'],
  ['member.signed-out-everywhere', 'member.signed_out_everywhere', 'member'],
  ['member.passkey.add', 'member_passkey.added', 'member'],
  ['member.passkey.remove', 'member_passkey.removed', 'member'],
  ['policy.change', 'policy.changed', 'policy'],
  ['webhook.create', 'webhook_endpoint.created', 'webhook_endpoint'],
  ['webhook.delete', 'webhook_endpoint.deleted', 'webhook_endpoint'],
  ['webhook.enable', 'webhook_endpoint.enabled', 'webhook_endpoint'],
  ['webhook.disable', 'webhook_endpoint.disabled', 'webhook_endpoint'],
  ['webhook.recover', 'webhook_endpoint.recovered', 'webhook_endpoint'],
  ['webhook.redeliver', 'webhook_delivery.redelivered', 'webhook_endpoint'],
  ['webhook.rotate-secret', 'webhook_endpoint.secret_rotated', 'webhook_endpoint'],
];

function caseOf(column: 1 | 2, fallback: string): string {
  const arms = RENAMES.map((r) => `WHEN '${r[0]}' THEN '${r[column]}'`).join(' ');
  return `CASE a.action ${arms} ELSE ${fallback} END`;
}

/** INSERT … SELECT copying console_audit into audit_events (member names joined in). */
export function copyConsoleAudit(replaceHyphens: string, firstWord: string): string {
  return `INSERT INTO audit_events (id, tenant_id, at, actor_type, actor_id, actor_name, action,
      target_type, target_id, target_name, approval_id, receipt_id, receipt_hash_hex, request_id, detail)
    SELECT a.id, a.tenant_id, a.created_at,
      CASE WHEN a.member_id IS NULL THEN 'operator' ELSE 'console_member' END,
      COALESCE(a.member_id, 'operator'),
      COALESCE(m.display_name, a.member_id, 'operator'),
      ${caseOf(1, replaceHyphens)},
      ${caseOf(2, firstWord)},
      COALESCE(a.target, ''), NULL, NULL, a.receipt_id, a.receipt_hash_hex, NULL, a.detail
    FROM console_audit a LEFT JOIN console_members m ON m.id = a.member_id`;
}
