import { createChallenge, type ChallengeDeps } from '../presence/create-challenge.js';
import { SIGN_IN_ACTION_HASH_HEX, type ConsoleSettings } from './console-settings.js';

/**
 * A discoverable sign-in: a presence challenge of the console tenant for the sign-in action with
 * no subject, so the browser offers any console passkey and no user name is typed.
 */
export async function startSignIn(deps: ChallengeDeps, settings: Pick<ConsoleSettings, 'consoleTenantId'>) {
  return createChallenge(deps, settings.consoleTenantId, {
    actionHashHex: SIGN_IN_ACTION_HASH_HEX,
    purpose: 'console sign-in',
  });
}
