/**
 * The oxigraph RDF store and SPARQL engine (npm `oxigraph`), initialised once
 * from its WebAssembly build, which is embedded in the package
 * (`src/_vendor/oxigraph/`): no file-read permission is needed, and bundles
 * and compiled executables carry it. Import oxigraph through this module
 * only; the ontology modules are loaded on first use, not at start-up.
 *
 * @module
 */

import {
  blankNode,
  defaultGraph,
  initSync,
  literal,
  namedNode,
  quad,
  Store,
} from "oxigraph/web.js";
import { inflateEmbeddedWasm } from "../../core/embedded_wasm.ts";
/** Inflates the embedded wasm into a buffer of its known size. */
async function embeddedWasm(): Promise<Uint8Array<ArrayBuffer>> {
  const { OXIGRAPH_WASM_BYTES, OXIGRAPH_WASM_GZIP_BASE64 } = await import(
    "../../_vendor/oxigraph/oxigraph_wasm.ts"
  );
  return await inflateEmbeddedWasm(OXIGRAPH_WASM_GZIP_BASE64, {
    bytes: OXIGRAPH_WASM_BYTES,
    label: "oxigraph",
  });
}

let ready: Promise<void> | null = null;

/** Loads and initialises the engine once; every later call resolves at once. */
export function oxigraphReady(): Promise<void> {
  ready ??= (async () => {
    initSync({ module: await WebAssembly.compile(await embeddedWasm()) });
  })();
  return ready;
}

export type {
  BlankNode,
  Literal,
  NamedNode,
  Quad,
  Quad_Object,
  Quad_Subject,
  Term,
} from "oxigraph/web.js";
export { blankNode, defaultGraph, literal, namedNode, quad, Store };
