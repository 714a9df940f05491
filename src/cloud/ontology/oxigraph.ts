/**
 * The oxigraph RDF store and SPARQL engine (npm `oxigraph`), initialised once
 * from its WebAssembly module. Import oxigraph through this module only.
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
import wasmModule from "./oxigraph_wasm.js";

initSync({ module: wasmModule });

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
