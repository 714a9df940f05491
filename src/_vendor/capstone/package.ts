/**
 * Where the embedded Capstone wasm comes from, written once: the generator
 * fetches this package, the native provider names it in its analysis profile,
 * and the tests compare the embedded bytes against it.
 *
 * @module
 */

/** Version of the npm package `@alexaltea/capstone-js` (Capstone's own version). */
export const CAPSTONE_VERSION = "5.0.9";

/** The npm package the embedded wasm comes from. */
export const CAPSTONE_PACKAGE: string = `@alexaltea/capstone-js@${CAPSTONE_VERSION}`;
