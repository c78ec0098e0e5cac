// The SDK's software authenticator (@presence/sdk/testing; `npm run build` first) in the shape the
// benchmarks use: constructed with rpId and origin, ceremonies take the challenge string.
import { SoftwareAuthenticator } from '@presence/sdk/testing';

export class SoftAuthenticator extends SoftwareAuthenticator {
  constructor(rpId, origin) {
    super({ rpId, origin });
  }

  /** The COSE public key bytes. */
  get cose() {
    return this.coseKey;
  }

  /** RegistrationResponseJSON over `challenge`. */
  register(challenge) {
    return super.register({ challenge });
  }

  /** AuthenticationResponseJSON over `challenge`; the signature counter advances by one. */
  assert(challenge) {
    return super.authenticate({ challenge });
  }
}
