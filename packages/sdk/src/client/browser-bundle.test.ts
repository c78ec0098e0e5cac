/**
 * The universal entry must run in browsers: bundling it for the browser platform fails on any
 * `node:` import, and the bundle must not drag in the contract's schema code (types only).
 */
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const entry = fileURLToPath(new URL('../index.ts', import.meta.url));

describe('@presence/sdk universal entry', () => {
  it('bundles for the browser without Node built-ins, schemas or verifiers, and stays small', async () => {
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      target: 'es2022',
      minify: true,
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    expect(result.errors).toEqual([]);
    const inputs = Object.keys(result.metafile.inputs);
    expect(
      inputs.filter((p) =>
        /node:|@sinclair|contract|yauzl|tiny-cbor|verify-receipt|verify-webhook|cose-key|challenge\.ts/.test(
          p,
        ),
      ),
    ).toEqual([]);
    const bytes = result.outputFiles[0]!.contents.byteLength;
    expect(bytes).toBeLessThan(16 * 1024);
  });
});
