// @ts-check
/**
 * The one place that picks the SQLite driver for the Node.js that runs us (ADR 0018):
 * better-sqlite3 13 on Node.js 22 and later, better-sqlite3 12 on Node.js 20, the last line 12
 * supports. Both are the same API; only their native addons differ. Every file that opens SQLite
 * (the store, the writer and checkpoint threads, backups, tests, benchmarks) imports this module,
 * never `better-sqlite3` itself.
 */
/* global process */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const major = Number(process.versions.node.split('.')[0]);

/** The package each Node.js line loads: an npm alias installs 13 beside 12. */
export const SQLITE_DRIVER_PACKAGE = major >= 22 ? 'better-sqlite3-node22' : 'better-sqlite3';

/** @type {typeof import('better-sqlite3')} */
const SqliteDatabase = require(SQLITE_DRIVER_PACKAGE);

export default SqliteDatabase;
