import { parse } from 'tldts';
import { DomainError, type FieldError } from '../errors.js';

/** What a policy says about where its passkeys live. */
export interface RelyingPartyFields {
  rpId: string;
  allowedOrigins: readonly string[];
  relatedOrigins?: readonly string[] | undefined;
}

/**
 * Refuses an rpId no browser accepts and origins whose passkeys could never be used (WebAuthn
 * Level 3, §5.1.3/§13.4.9), before anything is stored:
 * 1. The rpId is a domain name, never an IP address, and never a public suffix (`com`, `co.uk`,
 *    `github.io`: the Public Suffix List as the `tldts` package ships it, private section
 *    included). `localhost` stays allowed for development.
 * 2. Each web origin is written as the browser sends it (scheme, lower-case host, port).
 * 3. Each web origin uses https; http only for `localhost` (and `*.localhost`).
 * 4. Each web origin's host is the rpId or under it, unless the policy lists the origin in
 *    `relatedOrigins` (related origin requests: the browser then fetches
 *    `https://<rpId>/.well-known/webauthn` and finds the origin there).
 * 5. A related origin is also an allowed origin, and uses https.
 * Every problem found is named, with what to set instead.
 */
export function checkRelyingParty(policy: RelyingPartyFields): void {
  const related = new Set(policy.relatedOrigins ?? []);
  const fields = [
    ...checkRpId(policy.rpId),
    ...policy.allowedOrigins.flatMap((origin, i) =>
      checkOrigin(origin, policy.rpId, related.has(origin), `/allowedOrigins/${i}`),
    ),
    ...[...related].flatMap((origin, i) =>
      checkRelated(origin, policy.allowedOrigins, `/relatedOrigins/${i}`),
    ),
  ];
  if (fields.length > 0) {
    throw new DomainError(
      'invalid_request',
      fields.map((f) => `${f.field}: ${f.message}`).join('; '),
      fields,
    );
  }
}

function checkRpId(rpId: string): FieldError[] {
  if (rpId === 'localhost') return [];
  const host = parse(rpId, { allowPrivateDomains: true });
  if (host.isIp === true) {
    return [
      {
        field: '/rpId',
        message: `${rpId} is an IP address; browsers accept only a domain name as rpId: set the domain your pages are served from (e.g. example.com), or localhost in development`,
      },
    ];
  }
  if (host.domain === null || host.publicSuffix === rpId) {
    return [
      {
        field: '/rpId',
        message: `${rpId} is a public suffix (Public Suffix List): no site may own passkeys for it; set your registrable domain or a name under it (e.g. example.com or login.example.com)`,
      },
    ];
  }
  return [];
}

function checkOrigin(origin: string, rpId: string, related: boolean, field: string): FieldError[] {
  if (!/^https?:\/\//.test(origin)) return []; // an app origin (android:apk-key-hash:…), not a web one
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return [{ field, message: `${origin} is not a valid origin; write it as https://host[:port]` }];
  }
  if (url.origin !== origin) {
    return [{ field, message: `write the origin as the browser sends it: ${url.origin}` }];
  }
  if (url.protocol === 'http:' && !isLocalhost(url.hostname)) {
    return [{ field, message: `${origin} uses http; use https://${url.host} (http only for localhost)` }];
  }
  if (related || url.hostname === rpId || url.hostname.endsWith(`.${rpId}`)) return [];
  return [
    {
      field,
      message: `${url.hostname} is neither the rpId ${rpId} nor under it, so the browser would refuse its passkeys: serve the page under ${rpId}, change rpId, or list ${origin} in relatedOrigins and publish {"origins": ["${origin}"]} at https://${rpId}/.well-known/webauthn`,
    },
  ];
}

function checkRelated(origin: string, allowed: readonly string[], field: string): FieldError[] {
  if (!origin.startsWith('https://')) {
    return [{ field, message: `${origin}: a related origin must use https` }];
  }
  if (!allowed.includes(origin)) {
    return [
      {
        field,
        message: `${origin} is a related origin but not an allowed origin: list it in allowedOrigins too`,
      },
    ];
  }
  return [];
}

function isLocalhost(hostname: string): boolean {
  return hostname === 'localhost' || hostname.endsWith('.localhost');
}
