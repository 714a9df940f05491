/**
 * WebAssembly modules shipped inside the code as gzip-compressed base64 and
 * inflated on first use (the ontology store's and the disassembler's).
 *
 * @module
 */

/** What an embedded module is: its inflated size and the name its errors give it. */
export interface EmbeddedWasm {
  /** The inflated size in bytes, known when the module was embedded. */
  bytes: number;
  /** The module's name in error messages (`oxigraph`, `Capstone`). */
  label: string;
}

/**
 * Inflates gzip-compressed base64 (white space ignored) straight into a
 * buffer of the module's known size: no chunk list, no second copy. Throws
 * when the inflated bytes are more or fewer than that size.
 */
export async function inflateEmbeddedWasm(
  base64: string,
  module: EmbeddedWasm,
): Promise<Uint8Array<ArrayBuffer>> {
  const { bytes, label } = module;
  const packed = Uint8Array.fromBase64(base64.replace(/\s+/g, ""));
  const wasm = new Uint8Array(bytes);
  let filled = 0;
  const chunks = new Blob([packed]).stream().pipeThrough(new DecompressionStream("gzip"));
  for await (const chunk of chunks) {
    if (filled + chunk.length > wasm.length) {
      throw new Error(`embedded ${label} wasm is over ${bytes} bytes`);
    }
    wasm.set(chunk, filled);
    filled += chunk.length;
  }
  if (filled !== bytes) {
    throw new Error(`embedded ${label} wasm is ${filled} bytes, expected ${bytes}`);
  }
  return wasm;
}
