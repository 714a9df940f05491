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
/** Inflates the embedded wasm into a buffer of its known size. */
async function embeddedWasm(): Promise<Uint8Array<ArrayBuffer>> {
  const { OXIGRAPH_WASM_BYTES, OXIGRAPH_WASM_GZIP_BASE64 } = await import(
    "../../_vendor/oxigraph/oxigraph_wasm.ts"
  );
  const packed = Uint8Array.fromBase64(OXIGRAPH_WASM_GZIP_BASE64.replace(/\s+/g, ""));
  const wasm = new Uint8Array(OXIGRAPH_WASM_BYTES);
  let filled = 0;
  const chunks = new Blob([packed]).stream().pipeThrough(new DecompressionStream("gzip"));
  for await (const chunk of chunks) {
    if (filled + chunk.length > wasm.length) {
      throw new Error(`embedded oxigraph wasm is over ${OXIGRAPH_WASM_BYTES} bytes`);
    }
    wasm.set(chunk, filled);
    filled += chunk.length;
  }
  if (filled !== OXIGRAPH_WASM_BYTES) {
    throw new Error(`embedded oxigraph wasm is ${filled} bytes, expected ${OXIGRAPH_WASM_BYTES}`);
  }
  return wasm;
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
