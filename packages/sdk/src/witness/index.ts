/** The tenant-run witness of a receipt log (presence-witness). */
export * from './witness-key.js';
export * from './witness-state.js';
export * from './witness-once.js';
export { runWitnessCli, WITNESS_USAGE } from './run-witness-cli.js';
