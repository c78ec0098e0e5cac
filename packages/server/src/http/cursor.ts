import { createHmac, timingSafeEqual } from 'node:crypto';
import { DomainError } from '../domain/errors.js';

/**
 * Opaque, tamper-proof pagination cursors: base64url(JSON) + '.' + HMAC. The MAC covers the
 * tenant and the query, so a cursor cannot be edited, nor replayed against another tenant or
 * another filter.
 */
export class CursorCodec {
  /** `previousKey`: during a master-key rotation, cursors issued under the old key still decode. */
  constructor(
    private readonly key: Buffer,
    private readonly previousKey?: Buffer,
  ) {}

  encode(scope: string, position: Record<string, unknown>): string {
    const body = Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
    return `${body}.${this.mac(this.key, scope, body)}`;
  }

  decode(scope: string, cursor: string): Record<string, unknown> {
    const [body, mac] = cursor.split('.');
    const keys = this.previousKey === undefined ? [this.key] : [this.key, this.previousKey];
    const matches = (key: Buffer) => {
      const expected = this.mac(key, scope, body ?? '');
      return (
        mac !== undefined &&
        mac.length === expected.length &&
        timingSafeEqual(Buffer.from(mac), Buffer.from(expected))
      );
    };
    if (body === undefined || !keys.some(matches)) {
      throw new DomainError('invalid_cursor', 'the cursor was not issued for this query', [
        { field: 'querystring/cursor', message: 'invalid cursor' },
      ]);
    }
    return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
  }

  private mac(key: Buffer, scope: string, body: string): string {
    return createHmac('sha256', key).update(scope).update('\u0000').update(body).digest('base64url');
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
