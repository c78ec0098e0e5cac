/**
 * Examples of the main flows in the OpenAPI document, keyed by operationId. They are checked
 * against their schemas by the OpenAPI lint (`no-invalid-media-type-examples`), so they stay true.
 */
import { ERRORS, problemType } from '@presence/contract';

const hash = '3b8f2c1d9e7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c';
const challengeId = 'chl_01JD3W4Q8M2N5P7R9T1V3X5Z7B';
const receiptId = 'rct_01JD3W4R2K6M8P0R2T4V6X8Z0B';
const credentialRef = 'cred_01JD3V9X7K5M3P1R9T7V5X3Z1B';
const webauthnId = 'Xk3J9yGv8pQ2sT5wZ1bN4cR7eH0uA6fD';
const endpointId = 'whe_01JD3W5A1B2C3D4E5F6G7H8J9K';
const at = '2026-11-22T10:00:00.000Z';

export interface OperationExamples {
  request?: Record<string, { summary: string; value: unknown }>;
  response?: { status: string; examples: Record<string, { summary: string; value: unknown }> };
}

export const OPERATION_EXAMPLES: Record<string, OperationExamples> = {
  createChallenge: {
    request: {
      payout: {
        summary: 'A challenge for one exact payout, for a subject with enrolled credentials',
        value: { actionHashHex: hash, subject: 'user_42', purpose: 'payout 125.00 EUR to acct 0042' },
      },
    },
    response: {
      status: '201',
      examples: {
        pending: {
          summary: 'Hand publicKey to navigator.credentials.get',
          value: {
            challengeId,
            actionHashHex: hash,
            status: 'pending',
            expiresAt: '2026-11-22T10:02:00.000Z',
            publicKey: {
              challenge: 'q2nE4Xw0c3b1S7dTq1mV9zP6kL8hJ5fR2yU0aW4eG3o',
              timeout: 120000,
              rpId: 'localhost',
              allowCredentials: [{ id: webauthnId, type: 'public-key' }],
              userVerification: 'required',
            },
          },
        },
      },
    },
  },
  verifyPresence: {
    request: {
      assertion: {
        summary: 'The AuthenticationResponseJSON the browser returned',
        value: {
          challengeId,
          assertion: {
            id: webauthnId,
            rawId: webauthnId,
            type: 'public-key',
            response: {
              clientDataJSON: 'eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoi…',
              authenticatorData: 'SZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2MFAAAAAQ',
              signature: 'MEUCIQDx…',
              userHandle: 'dXNlcl80Mg',
            },
            clientExtensionResults: {},
          },
        },
      },
    },
    response: {
      status: '200',
      examples: {
        verified: {
          summary: 'The only success: execute the action and store receiptHashHex',
          value: {
            decision: 'PRESENCE_VERIFIED',
            challengeId,
            receiptId,
            receiptHashHex: 'a1f0c3e5b7d9f1a3c5e7b9d1f3a5c7e9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1',
          },
        },
        denied: {
          summary: 'A denial: do not execute the action',
          value: {
            decision: 'USER_NOT_VERIFIED',
            challengeId,
            reason: 'the authenticator did not verify the user',
          },
        },
      },
    },
  },
  createWebhookEndpoint: {
    request: {
      endpoint: {
        summary: 'Receive receipts and denials',
        value: { url: 'https://hooks.example.org/presence', events: ['receipt.created', 'presence.denied'] },
      },
    },
    response: {
      status: '201',
      examples: {
        created: {
          summary: 'The secret is shown here only',
          value: {
            endpoint: {
              endpointId,
              id: endpointId,
              url: 'https://hooks.example.org/presence',
              description: null,
              events: ['receipt.created', 'presence.denied'],
              enabled: true,
              disabledReason: null,
              disabledAt: null,
              secretCreatedAt: at,
              previousSecretExpiresAt: null,
              failingSince: null,
              createdAt: at,
              updatedAt: at,
            },
            secret: 'whsec_cHJlc2VuY2UtZXhhbXBsZS1zZWNyZXQtbm90LXVzZWQ=',
          },
        },
      },
    },
  },
  revokeCredential: {
    response: {
      status: '200',
      examples: {
        revoked: {
          summary: 'credentialRef is the service reference; credentialId the WebAuthn id',
          value: {
            credential: {
              credentialRef,
              id: credentialRef,
              credentialId: webauthnId,
              subject: 'user_42',
              aaguid: '00000000-0000-0000-0000-000000000000',
              attestationFormat: 'none',
              algorithm: -7,
              transports: ['internal', 'hybrid'],
              backupEligible: true,
              backedUp: true,
              signCount: 0,
              createdAt: at,
              lastUsedAt: at,
              revokedAt: '2026-11-22T11:00:00.000Z',
            },
          },
        },
      },
    },
  },
};

export const PROBLEM_EXAMPLE = {
  type: problemType('invalid_request', 'http://localhost:8080'),
  title: ERRORS.invalid_request.title,
  status: 400,
  code: 'invalid_request',
  detail: 'body/actionHashHex must match pattern "^[0-9a-f]{64}$"',
  requestId: 'req_Qm9vZ2xlIGl0IHlvdXJzZWxm',
  errors: [{ field: 'body/actionHashHex', message: 'must match pattern "^[0-9a-f]{64}$"' }],
};
