import { decodeCBOR } from '@levischuck/tiny-cbor';

/** Authenticator data flags (WebAuthn L3 §6.1), as booleans. */
export interface AuthenticatorFlags {
  UP: boolean;
  UV: boolean;
  BE: boolean;
  BS: boolean;
  AT: boolean;
  ED: boolean;
}

export interface AssertionAuthenticatorData {
  rpIdHash: Uint8Array;
  flags: AuthenticatorFlags;
  signCount: number;
}

/**
 * The authenticator data of an assertion (§6.1: rpIdHash 32, flags 1, signCount 4, then the
 * extension outputs when ED is set), strictly, for the online and the offline verifier alike.
 * An assertion carries no attested credential data (AT); ED promises extension data, which must
 * be exactly one CBOR map (decoded with @levischuck/tiny-cbor, the decoder @simplewebauthn/server
 * uses); no byte may follow signCount without ED. Returns why not when the bytes break a rule.
 */
export function parseAssertionAuthenticatorData(bytes: Uint8Array): AssertionAuthenticatorData | string {
  if (bytes.length < 37) return `authenticatorData is ${bytes.length} bytes; an assertion needs at least 37`;
  const bits = bytes[32]!;
  const flags: AuthenticatorFlags = {
    UP: (bits & 0x01) !== 0,
    UV: (bits & 0x04) !== 0,
    BE: (bits & 0x08) !== 0,
    BS: (bits & 0x10) !== 0,
    AT: (bits & 0x40) !== 0,
    ED: (bits & 0x80) !== 0,
  };
  if (flags.AT) return 'the AT flag (attested credential data) must not be set in an assertion';
  if (flags.ED && bytes.length === 37) return 'the ED flag is set but no extension data follows';
  if (!flags.ED && bytes.length > 37)
    return `${bytes.length - 37} bytes follow signCount without the ED flag`;
  if (flags.ED) {
    const problem = checkExtensionData(bytes.subarray(37));
    if (problem !== null) return problem;
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { rpIdHash: bytes.subarray(0, 32), flags, signCount: view.getUint32(33) };
}

/** The extension outputs: one CBOR map and nothing after it (§6.5 "authenticator extension outputs"). */
function checkExtensionData(data: Uint8Array): string | null {
  let decoded: unknown;
  try {
    // A copy: the decoder reads the whole underlying buffer of a view.
    decoded = decodeCBOR(new Uint8Array(data));
  } catch (error) {
    return `the extension data after the ED flag is not well-formed CBOR (${(error as Error).message})`;
  }
  return decoded instanceof Map ? null : 'the extension data after the ED flag is not a CBOR map';
}
