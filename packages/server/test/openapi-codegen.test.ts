/**
 * docs/openapi.json stays usable by other people's tools: openapi-typescript generates types
 * from it, and a small typed use of the main flow compiles (and misuses do not).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

const documentPath = fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'presence-openapi-ts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const usage = `
import type { components, operations, paths, webhooks } from './api.js';

type Schemas = components['schemas'];
type Json<P extends keyof paths, M extends keyof paths[P]> = paths[P][M];

export const body: Schemas['CreateChallengeBody'] = { actionHashHex: 'ab'.repeat(32), subject: 'user_42' };
export declare const created: operations['createChallenge']['responses']['201']['content']['application/json'];
export const challengeId: string = created.challengeId;
export const pending: 'pending' = created.status;
export declare const verified: operations['verifyPresence']['responses']['200']['content']['application/json'];
export const ok: boolean = verified.decision === 'PRESENCE_VERIFIED';
export declare const problem: operations['verifyPresence']['responses']['4XX']['content']['application/problem+json'];
export const code: 'invalid_request' | Schemas['Problem']['code'] = problem.code;
export declare const receipt: Schemas['Receipt'];
export const ref: string = receipt.credentialRef;
export declare const credential: Schemas['Credential'];
export const both: [string, string] = [credential.credentialRef, credential.credentialId];
export declare const event: Schemas['ReceiptCreatedEvent'];
export const receiptId: string = event.data.receiptId;
export type Hook = webhooks['receipt.created']['post'];
export type Listing = Json<'/v1/presence/receipts', 'get'>;

// @ts-expect-error a challenge body needs actionHashHex
export const missing: Schemas['CreateChallengeBody'] = { subject: 'user_42' };
// @ts-expect-error Problem.code is the catalogue, not any string
export const unknownCode: Schemas['Problem']['code'] = 'no_such_code';
`;

function diagnosticsOf(files: string[]): string[] {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    types: [],
    skipLibCheck: true,
  });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('docs/openapi.json with openapi-typescript', () => {
  it('generates types whose use type-checks, with named schemas, operations and webhooks', async () => {
    const document = JSON.parse(readFileSync(documentPath, 'utf8')) as Parameters<typeof openapiTS>[0];
    const generated = astToString(await openapiTS(document));
    expect(generated).toContain('CreateChallengeBody');
    expect(generated).not.toMatch(/def-\d+/);
    writeFileSync(join(dir, 'api.ts'), generated);
    writeFileSync(join(dir, 'usage.ts'), usage);
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
    expect(diagnosticsOf([join(dir, 'usage.ts')])).toEqual([]);
  });

  it('fails the check when a use does not match the document', () => {
    writeFileSync(join(dir, 'wrong.ts'), `${usage}\nexport const bad: number = created.challengeId;\n`);
    expect(diagnosticsOf([join(dir, 'wrong.ts')]).join('\n')).toMatch(/not assignable to type 'number'/);
  });
});
