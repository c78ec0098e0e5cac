import type { Deps } from '../deps.js';
import type { ConsoleChangeRecord } from './ports.js';

/**
 * A console change's approval link (`/approve/<token>`) is a capability: whoever holds it can open
 * the approval page. It is stored sealed with the master key (domain/secrets.ts), bound to its
 * change's id, so members still see it on the Changes page but a database dump does not give it.
 */
export function changeLinkSealContext(changeId: string): string {
  return `console-change-link:${changeId}`;
}

export function sealChangeLink(deps: Pick<Deps, 'secrets'>, changeId: string, url: string): string {
  return deps.secrets.seal(Buffer.from(url, 'utf8'), changeLinkSealContext(changeId));
}

export function openChangeLink(
  deps: Pick<Deps, 'secrets'>,
  record: Pick<ConsoleChangeRecord, 'id' | 'approvalUrlSealed'>,
): string {
  return deps.secrets.open(record.approvalUrlSealed, changeLinkSealContext(record.id)).toString('utf8');
}
