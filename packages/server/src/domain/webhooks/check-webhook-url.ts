import type { Deps } from '../deps.js';
import { DomainError } from '../errors.js';
import { TargetRefused } from './ports.js';

function refuse(message: string): DomainError {
  return new DomainError('invalid_request', `url: ${message}`, [{ field: 'body/url', message }]);
}

/**
 * A webhook URL must be http(s), carry no credentials or fragment, and its host must resolve
 * only to addresses the SSRF policy allows (checked again before every attempt).
 */
export async function checkWebhookUrl(deps: Pick<Deps, 'webhooks'>, raw: string): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse('not an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse('only http and https URLs');
  if (url.username !== '' || url.password !== '') throw refuse('credentials in the URL are not allowed');
  if (url.hash !== '') throw refuse('a fragment is never sent; remove it');
  try {
    await deps.webhooks.resolve(url);
  } catch (error) {
    if (error instanceof TargetRefused) throw refuse(error.reason);
    throw error;
  }
  return url.toString();
}
