/**
 * The SDK's software authenticator (`@presence/sdk/testing`) in the shape these tests use:
 * constructed with rpId, origin and (ES256 unless given) the credential key's algorithm, ceremony
 * options and overrides in one object.
 */
import {
  AUTHENTICATOR_FLAGS,
  SoftwareAuthenticator,
  type CeremonyOverrides,
  type SoftwareKeyAlgorithm,
} from '@presence/sdk/testing';

export const FLAG = AUTHENTICATOR_FLAGS;

export type AssertOptions = CeremonyOverrides & { challenge: string };

export class SoftAuthenticator extends SoftwareAuthenticator {
  constructor(rpId: string, origin: string, algorithm?: SoftwareKeyAlgorithm) {
    super({ rpId, origin, ...(algorithm === undefined ? {} : { algorithm }) });
  }

  override register({ challenge, ...overrides }: { challenge: string } & CeremonyOverrides) {
    return super.register({ challenge }, overrides);
  }

  assert({ challenge, ...overrides }: AssertOptions) {
    return super.authenticate({ challenge }, overrides);
  }
}
