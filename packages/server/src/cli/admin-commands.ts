import { parseArgs } from 'node:util';
import { isScope, type Scope } from '@presence/contract';
import { Value } from '@sinclair/typebox/value';
import { PolicyBody } from '@presence/contract';
import { loadConfig } from '../config/load-config.js';
import { composeDeps } from '../compose.js';
import type { Deps } from '../domain/deps.js';
import { OWNER_SCOPES } from '../domain/api-keys/check-grantable-scopes.js';
import { createApiKey } from '../domain/api-keys/create-api-key.js';
import { listApiKeys, revokeApiKey, rotateApiKey } from '../domain/api-keys/manage-api-keys.js';
import { rotateSigningKey } from '../domain/receipts/receipt-signer.js';
import { createTenant } from '../domain/tenants/create-tenant.js';
import { serve } from '../main.js';
import type { Command } from './commands.js';

/** Local administration: talks to the database through compose, not over HTTP. */
async function withDeps<T>(fn: (deps: Deps) => Promise<T>): Promise<T> {
  const deps = await composeDeps(loadConfig());
  try {
    return await fn(deps);
  } finally {
    await deps.store.close();
  }
}

function print(value: unknown, json: boolean | undefined): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${JSON.stringify(value, null, 2)}\n`);
}

export const adminCommands: Record<string, Command> = {
  serve: { summary: 'run the service (HTTP API, portal)', run: async () => (await serve(), 0) },
  migrate: {
    summary: 'apply pending database migrations',
    run: async () =>
      withDeps(async (deps) => (process.stdout.write(`migrations applied (${deps.store.dialect})\n`), 0)),
  },
  'tenant create': {
    summary: '--name N --rp-id ID --origin URL [--origin URL…] [--json]',
    run: async (args) => {
      const { values } = parseArgs({
        args,
        options: {
          name: { type: 'string' },
          'rp-id': { type: 'string' },
          origin: { type: 'string', multiple: true },
          json: { type: 'boolean' },
        },
      });
      const body = { rpId: values['rp-id'], allowedOrigins: values.origin ?? [] };
      if (!values.name || !Value.Check(PolicyBody, body)) {
        const problems = [...Value.Errors(PolicyBody, body)].map((e) => `${e.path} ${e.message}`).join('; ');
        throw new Error(
          `tenant create needs --name, a valid --rp-id and at least one --origin URL ${problems ? `(${problems})` : ''}`,
        );
      }
      const created = await withDeps((deps) =>
        createTenant(deps, { name: values.name!, rpId: body.rpId, origins: body.allowedOrigins }),
      );
      print({ tenantId: created.tenant.id, apiKey: created.apiKey }, values.json);
      return 0;
    },
  },
  'keys create': {
    summary: '--tenant ID --name N --scope S [--scope S…] [--json]',
    run: async (args) => {
      const { values } = parseArgs({
        args,
        options: {
          tenant: { type: 'string' },
          name: { type: 'string' },
          scope: { type: 'string', multiple: true },
          json: { type: 'boolean' },
        },
      });
      const scopes = values.scope ?? [];
      const bad = scopes.filter((s) => !isScope(s));
      if (!values.tenant || !values.name || scopes.length === 0 || bad.length > 0) {
        throw new Error(
          `keys create needs --tenant, --name and valid --scope values${bad.length ? ` (unknown: ${bad.join(', ')})` : ''}`,
        );
      }
      const created = await withDeps((deps) =>
        createApiKey(deps, values.tenant!, { name: values.name!, scopes: scopes as Scope[] }, OWNER_SCOPES),
      );
      print({ keyId: created.key.keyId, apiKey: created.secret, scopes: created.key.scopes }, values.json);
      return 0;
    },
  },
  'keys list': {
    summary: '--tenant ID [--json]',
    run: async (args) => {
      const { values } = parseArgs({
        args,
        options: { tenant: { type: 'string' }, json: { type: 'boolean' } },
      });
      if (!values.tenant) throw new Error('keys list needs --tenant');
      const page = await withDeps((deps) => listApiKeys(deps, values.tenant!, { limit: 1000 }));
      print(page.items, values.json);
      return 0;
    },
  },
  'keys revoke': {
    summary: '--tenant ID --key KEY_ID',
    run: async (args) => {
      const { values } = parseArgs({
        args,
        options: { tenant: { type: 'string' }, key: { type: 'string' }, json: { type: 'boolean' } },
      });
      if (!values.tenant || !values.key) throw new Error('keys revoke needs --tenant and --key');
      print(await withDeps((deps) => revokeApiKey(deps, values.tenant!, values.key!)), values.json);
      return 0;
    },
  },
  'keys rotate': {
    summary: '--tenant ID --key KEY_ID [--grace-seconds N]',
    run: async (args) => {
      const { values } = parseArgs({
        args,
        options: {
          tenant: { type: 'string' },
          key: { type: 'string' },
          'grace-seconds': { type: 'string' },
          json: { type: 'boolean' },
        },
      });
      if (!values.tenant || !values.key) throw new Error('keys rotate needs --tenant and --key');
      const grace = Number(values['grace-seconds'] ?? 86400);
      if (!Number.isInteger(grace) || grace < 0) throw new Error('--grace-seconds must be a whole number');
      const rotated = await withDeps((deps) =>
        rotateApiKey(deps, values.tenant!, values.key!, grace, OWNER_SCOPES),
      );
      print(
        { keyId: rotated.key.keyId, apiKey: rotated.secret, previousExpiresAt: rotated.previous.expiresAt },
        values.json,
      );
      return 0;
    },
  },
  'signing-keys rotate': {
    summary: 'retire the active receipt signing key and create a new one',
    run: async () => {
      const kid = await withDeps((deps) => rotateSigningKey(deps));
      process.stdout.write(`new signing key ${kid}; old keys stay published\n`);
      return 0;
    },
  },
};
