#!/usr/bin/env node
/** `presence-verify pack.zip [--key pub.pem]... [--keys keys.json]`: the auditor's offline pack check. */
import { runVerifyPackCli } from '../pack/run-verify-pack-cli.js';

runVerifyPackCli(process.argv.slice(2), (text) => process.stdout.write(text)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`presence-verify: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  },
);
