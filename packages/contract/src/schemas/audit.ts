/**
 * Audit events (docs/api-contract.md#14-audit-events): every change of configuration or access, whoever made it and
 * through whichever door (an API key, the console, the CLI, the operator API).
 */
import { Type, type Static } from '@sinclair/typebox';
import { Cursor, IsoTime, Limit, prefixedId } from './common.js';

export const AUDIT_ACTOR_TYPES = ['api_key', 'console_member', 'operator', 'cli'] as const;
export type AuditActorType = (typeof AUDIT_ACTOR_TYPES)[number];

const AuditActorTypeSchema = Type.Union(
  AUDIT_ACTOR_TYPES.map((t) => Type.Literal(t)),
  { description: 'the door: an API key, a console member, the operator API or the local CLI' },
);

/** `<resource>.<verb>`, e.g. `api_key.created`, `member.role_changed`. */
export const AuditAction = Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z_]+(\\.[a-z_]+)+$' });

export const AuditEvent = Type.Object(
  {
    auditEventId: prefixedId('aud'),
    at: IsoTime,
    actor: Type.Object({
      type: AuditActorTypeSchema,
      id: Type.String({ description: 'key_ id, mem_ id, "operator" or "cli"' }),
      name: Type.String({ description: 'the key name, the member display name, or the door' }),
    }),
    action: AuditAction,
    target: Type.Object({
      type: Type.String({ description: 'api_key, webhook_endpoint, policy, credential, member, invite, …' }),
      id: Type.String(),
      name: Type.Optional(Type.String()),
    }),
    approvalId: Type.Optional(Type.String({ description: 'the approval that authorised the change' })),
    receiptId: Type.Optional(prefixedId('rct', 'the presence receipt that approved the change')),
    requestId: Type.Optional(Type.String({ description: 'the HTTP request that made the change' })),
  },
  { $id: 'AuditEvent' },
);
export type AuditEvent = Static<typeof AuditEvent>;

export const ListAuditEventsQuery = Type.Object(
  {
    from: Type.Optional(Type.String({ format: 'date-time', description: 'at ≥ from' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'at < to' })),
    actorType: Type.Optional(AuditActorTypeSchema),
    action: Type.Optional(AuditAction),
    limit: Type.Optional(Limit),
    cursor: Type.Optional(Cursor),
  },
  { additionalProperties: false },
);
export type ListAuditEventsQuery = Static<typeof ListAuditEventsQuery>;
