/**
 * Query parameters whose names look like credentials (`apiKey`, `api_key`, `token`,
 * `access_token`, `key`, `secret`, `password`, `signature`, `session`, …). Their values never
 * reach a log line.
 */
const CREDENTIAL_NAME = /(key|token|secret|passw|pwd|auth|signature|^sig$|session|credential|cookie|bearer)/;

export function isCredentialName(name: string): boolean {
  return CREDENTIAL_NAME.test(name.toLowerCase().replace(/[^a-z]/g, ''));
}

/** The URL with the value of every credential-looking query parameter replaced by `[redacted]`. */
export function redactUrl(url: string): string {
  const question = url.indexOf('?');
  if (question === -1) return url;
  const pairs = url.slice(question + 1).split('&');
  const kept = pairs.map((pair) => {
    const equals = pair.indexOf('=');
    const rawName = equals === -1 ? pair : pair.slice(0, equals);
    let name: string;
    try {
      name = decodeURIComponent(rawName.replace(/\+/g, ' '));
    } catch {
      name = rawName;
    }
    return isCredentialName(name) ? `${rawName}=[redacted]` : pair;
  });
  return `${url.slice(0, question)}?${kept.join('&')}`;
}
