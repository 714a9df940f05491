/** The compiled oxigraph engine, ready to instantiate. */
declare const wasmModule: WebAssembly.Module;
export default wasmModule;
