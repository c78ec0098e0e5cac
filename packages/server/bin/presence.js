#!/usr/bin/env node
// The `presence` command. npm links bins when it installs, which in this repository is before
// `npm run build` has written dist/; this committed file always exists and loads the built one.
/* global URL, process */
import { existsSync } from 'node:fs';
import { exitUnlessSupported } from './check-node.js';

exitUnlessSupported('presence');

const built = new URL('../dist/cli/main.js', import.meta.url);
if (existsSync(built)) {
  await import(built.href);
} else {
  process.stderr.write(
    'presence: not built yet. Run `npm run build` (or `npm start`) in the repository first.\n',
  );
  process.exitCode = 1;
}
