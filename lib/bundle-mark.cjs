// The first line of each bundle the project writes (scripts/build.mjs's thread bundles and undici in one file, the tests' test/fixtures/bundle.ts): its writer promises CommonJS without import() at run time, and the compile cache (lib/compile-cache.cjs) keeps its compiled code.
'use strict';

/** A comment, so the bundle's "use strict" after it still counts. */
const BUNDLE_MARK = '/* ces bundle: CommonJS without import() at run time; its compiled code is kept (lib/compile-cache.cjs) */';

module.exports = { BUNDLE_MARK };
