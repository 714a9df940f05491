/* @ts-self-types="./oxigraph_wasm.d.ts" */
// The compiled oxigraph engine, imported as a WebAssembly.Module (source phase
// import): it comes with the module graph, so no --allow-read is needed for
// the .wasm file. TypeScript has no syntax for this yet, hence plain JS.
import source wasmModule from "oxigraph/web_bg.wasm";

export default wasmModule;
