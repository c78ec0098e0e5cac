/** The suite helpers live beside the dialect list; tests under test/ import them from here. */
export {
  describeEachDialect,
  dialectAvailable,
  startedForSuite,
  useTestStore,
} from '../../src/storage/each-dialect.js';
