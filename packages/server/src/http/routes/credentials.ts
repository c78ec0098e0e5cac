import {
  Credential,
  CredentialCreated,
  CredentialParams,
  ListCredentialsQuery,
  NoQuery,
  Page,
  RegisterCredentialBody,
  RegistrationOptions,
  RegistrationOptionsBody,
} from '@presence/contract';
import { createRegistrationOptions } from '../../domain/credentials/create-registration-options.js';
import {
  getCredential,
  listCredentials,
  revokeCredential,
} from '../../domain/credentials/manage-credentials.js';
import { registerCredential } from '../../domain/credentials/register-credential.js';
import { cursorScope } from '../cursor.js';
import { tenantOf, type App } from '../types.js';
import { problemResponses } from './errors.js';
import { pageOf, readAfterId } from './paging.js';
import type { RouteDeps } from './route-deps.js';

const tags = ['credentials'];

export function credentialRoutes(app: App, { cursors }: RouteDeps): void {
  app.post('/v1/presence/credentials/options', {
    config: { scope: 'credentials:write', idempotent: true },
    schema: {
      tags,
      summary: 'Start enrolling an authenticator for a subject',
      body: RegistrationOptionsBody,
      response: { 200: RegistrationOptions, ...problemResponses },
    },
    handler: async (request) => createRegistrationOptions(request.deps, tenantOf(request), request.body),
  });

  app.post('/v1/presence/credentials', {
    config: { scope: 'credentials:write', idempotent: true },
    schema: {
      tags,
      summary: 'Finish enrolling: verify the registration response and store the credential',
      body: RegisterCredentialBody,
      response: { 201: CredentialCreated, ...problemResponses },
    },
    handler: async (request, reply) =>
      reply
        .code(201)
        .send({ credential: await registerCredential(request.deps, tenantOf(request), request.body) }),
  });

  app.get('/v1/presence/credentials', {
    config: { scope: 'credentials:read' },
    schema: {
      tags,
      summary: 'List credentials',
      querystring: ListCredentialsQuery,
      response: { 200: Page(Credential), ...problemResponses },
    },
    handler: async (request) => {
      const { subject, includeRevoked = false, limit = 50, cursor } = request.query;
      const scope = cursorScope(tenantOf(request), 'credentials', { subject, includeRevoked });
      const page = await listCredentials(
        request.deps,
        tenantOf(request),
        { subject, includeRevoked },
        { limit, afterId: readAfterId(cursors, scope, cursor) },
      );
      return pageOf(cursors, scope, page, (c) => c.id);
    },
  });

  app.get('/v1/presence/credentials/:credentialId', {
    config: { scope: 'credentials:read' },
    schema: {
      tags,
      summary: 'One credential',
      params: CredentialParams,
      querystring: NoQuery,
      response: { 200: CredentialCreated, ...problemResponses },
    },
    handler: async (request) => ({
      credential: await getCredential(request.deps, tenantOf(request), request.params.credentialId),
    }),
  });

  app.delete('/v1/presence/credentials/:credentialId', {
    config: { scope: 'credentials:write' },
    schema: {
      tags,
      summary: 'Revoke a credential: later assertions with it are denied',
      params: CredentialParams,
      response: { 200: CredentialCreated, ...problemResponses },
    },
    handler: async (request) => ({
      credential: await revokeCredential(request.deps, tenantOf(request), request.params.credentialId),
    }),
  });
}
