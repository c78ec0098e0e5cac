import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { ServiceKey } from '@presence/contract';
import { verifyReceipt } from '@presence/sdk/node';
import { loadConfig } from '../config/load-config.js';
import { compose } from '../compose.js';
import { formatConformanceReport, runConformance } from '../domain/webauthn/run-conformance.js';
import type { Command } from './commands.js';

/** The OpenAPI document, generated from the route schemas of a throwaway instance. */
async function generateOpenApi(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'presence-openapi-'));
  const config = loadConfig({
    PRESENCE_DATA_DIR: dir,
    PRESENCE_DEV_TENANT: 'false',
    PRESENCE_MASTER_KEY: randomBytes(32).toString('base64url'),
  });
  const composed = await compose(config, false);
  try {
    await composed.app.ready();
    return `${JSON.stringify(composed.app.swagger(), null, 2)}\n`;
  } finally {
    await composed.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export const toolCommands: Record<string, Command> = {
  conformance: {
    summary:
      '<vectors.json> [more.json…]: run the WebAuthn verifier over conformance vectors (files concatenated)',
    run: async (files) => {
      if (files.length === 0) throw new Error('conformance needs a vectors file');
      const vectors = files.flatMap((file) => JSON.parse(readFileSync(file, 'utf8')) as unknown[]);
      const result = await runConformance(vectors);
      process.stdout.write(formatConformanceReport(result));
      return result.failed === 0 ? 0 : 1;
    },
  },
  openapi: {
    summary: '[--check FILE]: print the OpenAPI document, or fail when FILE differs from it',
    run: async (args) => {
      const { values } = parseArgs({
        args,
        options: { check: { type: 'string' }, write: { type: 'string' } },
      });
      const document = await generateOpenApi();
      if (values.write) writeFileSync(values.write, document);
      else if (values.check) {
        if (readFileSync(values.check, 'utf8') !== document) {
          process.stderr.write(
            `${values.check} is out of date with the route schemas: run npm run openapi\n`,
          );
          return 1;
        }
        process.stdout.write(`${values.check} matches the route schemas\n`);
      } else process.stdout.write(document);
      return 0;
    },
  },
  'verify-receipt': {
    summary: '<receipt.json> --keys <keys.json>: check a receipt offline',
    run: async (args) => {
      const { values, positionals } = parseArgs({
        args,
        allowPositionals: true,
        options: { keys: { type: 'string' } },
      });
      const [file] = positionals;
      if (!file || !values.keys)
        throw new Error(
          'verify-receipt needs a receipt file and --keys (a saved /.well-known/presence/keys.json)',
        );
      const signed = JSON.parse(readFileSync(file, 'utf8')) as Parameters<typeof verifyReceipt>[0];
      const keys = (JSON.parse(readFileSync(values.keys, 'utf8')) as { keys: ServiceKey[] }).keys;
      const report = verifyReceipt(signed, { keys });
      for (const [name, check] of Object.entries(report.checks)) {
        process.stdout.write(`${check.ok ? 'PASS' : 'FAIL'}  ${name.padEnd(18)} ${check.detail}\n`);
      }
      process.stdout.write(report.valid ? `VALID receipt ${report.receiptId}\n` : 'INVALID receipt\n');
      return report.valid ? 0 : 1;
    },
  },
};
