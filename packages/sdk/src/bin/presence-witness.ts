#!/usr/bin/env node
/** `presence-witness --url URL --state DIR --key witness.key`: cosigns a tenant's receipt log while it stays consistent. */
import { runWitnessCli } from '../witness/run-witness-cli.js';

runWitnessCli(process.argv.slice(2), process.env, (text) => process.stdout.write(text)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`presence-witness: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  },
);
