import { AUDIT_ACTOR_TYPES, AuditAction, type AuditEvent } from '@presence/contract';
import { Type, type Static } from '@sinclair/typebox';
import type { AuditEventQuery } from '../../../domain/audit/list-audit-events.js';
import { UTC_MINUTE } from '../../../http/validators.js';

/** The browser's datetime-local value, read as UTC: a real minute (an impossible date is a 400). */
const LocalTime = Type.String({ format: UTC_MINUTE });
const orEmpty = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) =>
  Type.Optional(Type.Union([t, Type.Literal('')]));

/** The audit page's filters, as its GET form sends them (empty fields mean "any"). */
export const AuditFilterQuery = Type.Object(
  {
    actorType: orEmpty(Type.Union(AUDIT_ACTOR_TYPES.map((t) => Type.Literal(t)))),
    action: orEmpty(AuditAction),
    from: orEmpty(LocalTime),
    to: orEmpty(LocalTime),
    before: Type.Optional(Type.String({ pattern: '^aud_[0-9A-HJKMNP-TV-Z]{26}$' })),
  },
  { additionalProperties: false },
);
export type AuditFilterQuery = Static<typeof AuditFilterQuery>;

export const AuditExportQuery = Type.Object(
  {
    ...AuditFilterQuery.properties,
    format: Type.Union([Type.Literal('csv'), Type.Literal('ndjson')]),
  },
  { additionalProperties: false },
);

const iso = (local: string | undefined) => (local ? `${local}:00.000Z` : undefined);

export function toAuditQuery(q: AuditFilterQuery): AuditEventQuery {
  return {
    actorType: q.actorType || undefined,
    action: q.action || undefined,
    from: iso(q.from),
    to: iso(q.to),
  };
}

/** The query string of the same filters (for export links and the next page). */
export function filterParams(q: AuditFilterQuery): URLSearchParams {
  const out = new URLSearchParams();
  for (const name of ['actorType', 'action', 'from', 'to'] as const) {
    const value = q[name];
    if (value) out.set(name, value);
  }
  return out;
}

export const CSV_COLUMNS = [
  'auditEventId',
  'at',
  'actorType',
  'actorId',
  'actorName',
  'action',
  'targetType',
  'targetId',
  'targetName',
  'approvalId',
  'receiptId',
  'requestId',
] as const;

/** RFC 4180 field; a leading = + - @ is quoted with ' so spreadsheets never run it as a formula. */
function csvField(value: string | undefined): string {
  const text = value === undefined ? '' : /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n']/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvLine(e: AuditEvent): string {
  const cells = [
    e.auditEventId,
    e.at,
    e.actor.type,
    e.actor.id,
    e.actor.name,
    e.action,
    e.target.type,
    e.target.id,
    e.target.name,
    e.approvalId,
    e.receiptId,
    e.requestId,
  ];
  return `${cells.map(csvField).join(',')}\r\n`;
}
