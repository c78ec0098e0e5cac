/**
 * The SDK's software authenticator (`@presence/sdk/testing`) in the shape these tests use:
 * constructed with rpId and origin, ceremony options and overrides in one object.
 */
import { AUTHENTICATOR_FLAGS, SoftwareAuthenticator, type CeremonyOverrides } from '@presence/sdk/testing';

export const FLAG = AUTHENTICATOR_FLAGS;

export type AssertOptions = CeremonyOverrides & { challenge: string };

export class SoftAuthenticator extends SoftwareAuthenticator {
  constructor(rpId: string, origin: string) {
    super({ rpId, origin });
  }

  override register({ challenge, ...overrides }: { challenge: string } & CeremonyOverrides) {
    return super.register({ challenge }, overrides);
  }

  assert({ challenge, ...overrides }: AssertOptions) {
    return super.authenticate({ challenge }, overrides);
  }
}
