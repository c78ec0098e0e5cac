import { createChallenge, type ChallengeDeps } from '../presence/create-challenge.js';
import { SIGN_IN_ACTION_HASH_HEX, type ConsoleSettings } from './console-settings.js';

/** Expired sign-in challenges deleted per new one: more than one call ever makes. */
export const SIGN_IN_PRUNE_BATCH = 20;

/** How far back a new sign-in looks for expired ones; anything older is retention's to prune. */
export const SIGN_IN_PRUNE_WINDOW_MS = 15 * 60_000;

/**
 * A discoverable sign-in: a presence challenge of the console tenant for the sign-in action with
 * no subject, so the browser offers any console passkey and no user name is typed.
 * Anyone may ask for one, so what it stores does not outlive it: the sign-in challenges that
 * expired without a receipt (unanswered, or denied) are deleted first. With the sign-in rate
 * limits (per address and for the whole service, http/plugins/rate-limit.ts) this bounds the live
 * sign-in challenges to the total limit times the challenge TTL.
 */
export async function startSignIn(deps: ChallengeDeps, settings: Pick<ConsoleSettings, 'consoleTenantId'>) {
  const tenantId = settings.consoleTenantId;
  const now = deps.clock.now();
  const window = { since: now - SIGN_IN_PRUNE_WINDOW_MS, now };
  await deps.store.challenges.deleteExpired(tenantId, SIGN_IN_ACTION_HASH_HEX, window, SIGN_IN_PRUNE_BATCH);
  return createChallenge(deps, tenantId, {
    actionHashHex: SIGN_IN_ACTION_HASH_HEX,
    purpose: 'console sign-in',
  });
}
