/**
 * Conformance vectors on which this verifier knowingly disagrees with the expected verdict, with
 * the reason for each. All of them are registrations: attestation statements are verified by
 * @simplewebauthn/server 14 and never by hand, so where the library is stricter than WebAuthn L3
 * (or reads the wall clock) the disagreement is recorded here instead of patched around.
 * run-conformance.test.ts fails when an entry no longer deviates, so the table cannot go stale.
 * Explained case by case in docs/conformance.md.
 */
export const KNOWN_DEVIATIONS: Readonly<Record<string, string>> = {
  'w3c-tpm-es256-reg':
    '@simplewebauthn/server 14 accepts only TCG-registered TPM manufacturer ids, and this spec vector\'s AIK certificate names the synthetic manufacturer "id:00000000", so the library rejects a TPM attestation that the L3 §8.3 procedure accepts.',
  'w3c-android-key-es256-reg':
    "@simplewebauthn/server 14 validates an android-key x5c against the chain's own last certificate as root, and this spec vector's x5c holds only the leaf (its CA is the vector's trust anchor), so path validation fails although signature, key match and attestationChallenge are correct.",
  'w3c-fido-u2f-es256-reg':
    '@simplewebauthn/server 14 requires an all-zero AAGUID in fido-u2f attestations, but this spec vector carries a random AAGUID, which the L3 §8.6 fido-u2f verification procedure does not examine.',
  'py_webauthn-reg-fido_u2f-test_verify_attestation_with_unsupported_token_binding':
    '@simplewebauthn/server 14 rejects a clientDataJSON whose tokenBinding is the string "unused" (old Edge), whereas L3 reserves tokenBinding and does not ask relying parties to process it; the member is covered by the attestation signature, so it cannot be removed before verification.',
  'swa-reg-tpm-sha256': expired('TPM AIK', '2025-01-31', 'the source test ran at 2025-01-30'),
  'swa-reg-tpm-sha1': expired('TPM AIK', '2025-01-31', 'the source test ran at 2025-01-30'),
  'py_webauthn-reg-tpm-test_verify_attestation_surface_pro_4': expired(
    'TPM AIK',
    '2025-05-22',
    'the source patches the clock',
  ),
  'py_webauthn-reg-tpm-test_verify_attestation_dell_xps_13': expired(
    'TPM AIK',
    '2025-03-21',
    'the source patches the clock',
  ),
  'py_webauthn-reg-tpm-test_verify_attestation_lenovo_carbon_x1': expired(
    'TPM AIK',
    '2025-03-21',
    'the source patches the clock',
  ),
  'py_webauthn-reg-android_key-test_verify_attestation_android_key_hardware_authority': expired(
    'android-key x5c',
    '2025-02-02',
    'the source patches the clock',
  ),
};

function expired(certificate: string, notAfter: string, sourceClock: string): string {
  return `The ${certificate} certificate expired on ${notAfter} and @simplewebauthn/server 14 checks validity against the current time with no way to pass another clock (${sourceClock}); run-conformance.test.ts shows the vector verifies with the clock set before expiry.`;
}
