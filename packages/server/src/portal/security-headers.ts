import type { App } from '../http/types.js';

/** Same-origin only: no inline script or style, no framing, no plugins, no foreign connections. */
export const PORTAL_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

/** Sets the portal's security headers on every response of the (encapsulated) context it is given. */
export function addSecurityHeaders(app: App): void {
  app.addHook('onSend', async (_request, reply) => {
    // A route may set a stricter policy of its own (the printable invoice); otherwise this one.
    if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', PORTAL_CSP);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    reply.header('x-frame-options', 'DENY');
    reply.header('cross-origin-opener-policy', 'same-origin');
  });
}
