import { createHmac, timingSafeEqual } from 'node:crypto';
import { DomainError } from '../domain/errors.js';

/**
 * Opaque, tamper-proof pagination cursors: base64url(JSON) + '.' + HMAC. The MAC covers the
 * tenant and the query, so a cursor cannot be edited, nor replayed against another tenant or
 * another filter.
 */
export class CursorCodec {
  constructor(private readonly key: Buffer) {}

  encode(scope: string, position: Record<string, unknown>): string {
    const body = Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
    return `${body}.${this.mac(scope, body)}`;
  }

  decode(scope: string, cursor: string): Record<string, unknown> {
    const [body, mac] = cursor.split('.');
    const expected = body === undefined ? '' : this.mac(scope, body);
    if (
      body === undefined ||
      mac === undefined ||
      mac.length !== expected.length ||
      !timingSafeEqual(Buffer.from(mac), Buffer.from(expected))
    ) {
      throw new DomainError('invalid_cursor', 'the cursor was not issued for this query', [
        { field: 'querystring/cursor', message: 'invalid cursor' },
      ]);
    }
    return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
  }

  private mac(scope: string, body: string): string {
    return createHmac('sha256', this.key).update(scope).update('\u0000').update(body).digest('base64url');
  }
}

/** The cursor scope: tenant, route and every filter of the query. */
export function cursorScope(tenantId: string, route: string, filters: Record<string, unknown>): string {
  return JSON.stringify([
    tenantId,
    route,
    Object.entries(filters)
      .filter(([, v]) => v !== undefined)
      .sort(),
  ]);
}
