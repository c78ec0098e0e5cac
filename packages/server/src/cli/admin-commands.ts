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
import {
  DEFAULT_ROTATION_LEAD_MS,
  DEFAULT_ROTATION_OVERLAP_MS,
  rotateSigningKey,
} from '../domain/receipts/rotate-signing-key.js';
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
    summary: '--name N --rp-id ID --origin URL [--origin URL…] [--related-origin URL…] [--json]',
    run: async (args) => {
      const { values } = parseArgs({
        args,
        options: {
          name: { type: 'string' },
          'rp-id': { type: 'string' },
          origin: { type: 'string', multiple: true },
          'related-origin': { type: 'string', multiple: true },
          json: { type: 'boolean' },
        },
      });
      const related = values['related-origin'];
      const body = {
        rpId: values['rp-id'],
        allowedOrigins: values.origin ?? [],
        ...(related ? { relatedOrigins: related } : {}),
      };
      if (!values.name || !Value.Check(PolicyBody, body)) {
        const problems = [...Value.Errors(PolicyBody, body)].map((e) => `${e.path} ${e.message}`).join('; ');
        throw new Error(
          `tenant create needs --name, a valid --rp-id and at least one --origin URL ${problems ? `(${problems})` : ''}`,
        );
      }
      const created = await withDeps((deps) =>
        createTenant(deps, {
          name: values.name!,
          rpId: body.rpId,
          origins: body.allowedOrigins,
          relatedOrigins: body.relatedOrigins,
        }),
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
      print(
        await withDeps((deps) => revokeApiKey(deps, values.tenant!, values.key!, OWNER_SCOPES)),
        values.json,
      );
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
    summary: `[--lead-seconds N] [--overlap-seconds N] [--json]: publish a new receipt signing key now, switch signing to it after the lead (default ${DEFAULT_ROTATION_LEAD_MS / 1000}), end the old key's validity after the overlap (default ${DEFAULT_ROTATION_OVERLAP_MS / 1000}); each at least 2 × PRESENCE_SIGNING_KEY_REFRESH_MS + 1 s`,
    run: async (args) => {
      const { values } = parseArgs({
        args,
        options: {
          'lead-seconds': { type: 'string' },
          'overlap-seconds': { type: 'string' },
          json: { type: 'boolean' },
        },
      });
      const leadMs = seconds(values['lead-seconds'], DEFAULT_ROTATION_LEAD_MS, '--lead-seconds');
      const overlapMs = seconds(values['overlap-seconds'], DEFAULT_ROTATION_OVERLAP_MS, '--overlap-seconds');
      const rotation = await withDeps((deps) =>
        rotateSigningKey(deps, deps.signer.refreshMs, { leadMs, overlapMs }),
      );
      if (values.json) print(rotation, true);
      else {
        const ending = rotation.ending.map((k) => `${k.kid} valid until ${k.notAfter}`).join(', ');
        process.stdout.write(
          `published signing key ${rotation.kid}; it signs from ${rotation.switchAt}; ${ending || 'no key ends'}. Old keys stay published.\n`,
        );
      }
      return 0;
    },
  },
  'signing-keys list': {
    summary: '[--json]: the receipt signing keys as keys.json publishes them (active, next, retired)',
    run: async (args) => {
      const { values } = parseArgs({ args, options: { json: { type: 'boolean' } } });
      print(await withDeps(async (deps) => deps.signer.publishedKeys()), values.json);
      return 0;
    },
  },
};

/** A whole number of seconds from a flag, as milliseconds. */
function seconds(value: string | undefined, fallbackMs: number, flag: string): number {
  if (value === undefined) return fallbackMs;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n))
    throw new Error(`${flag} must be a whole number of seconds`);
  return n * 1000;
}
