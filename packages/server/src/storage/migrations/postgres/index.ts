import type { Migration } from '../migration.js';
import * as core from './0001-core.js';

/** Every postgres migration, in order. Add new ones at the end; never edit an applied one. */
export const POSTGRES_MIGRATIONS: readonly Migration[] = [{ id: '0001-core', up: core.up }];
