/**
 * The pinned oxigraph package whose WebAssembly build is embedded beside this
 * file; the import map pins the same version for its JavaScript bindings.
 *
 * @module
 */

/** The npm package and version. */
export const OXIGRAPH_PACKAGE = "oxigraph@0.5.11";
