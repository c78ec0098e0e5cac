import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Env } from './load-config.js';

const README = readFileSync(new URL('../../../../README.md', import.meta.url), 'utf8');

describe('configuration', () => {
  it('documents every variable the service reads in the README configuration table', () => {
    const table = README.slice(README.indexOf('## Configuration'));
    const undocumented = Object.keys(Env.properties).filter((name) => !table.includes(`\`${name}\``));
    expect(undocumented).toEqual([]);
  });
});
