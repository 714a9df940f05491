/**
 * WebAssembly modules shipped inside the code as gzip-compressed base64 and
 * inflated on first use (the ontology store's and the disassembler's).
 *
 * @module
 */

import { gunzipSync } from "node:zlib";

/** What an embedded module is: its inflated size and the name its errors give it. */
export interface EmbeddedWasm {
  /** The inflated size in bytes, known when the module was embedded. */
  bytes: number;
  /** The module's name in error messages (`oxigraph`, `Capstone`). */
  label: string;
}

/**
 * Inflates gzip-compressed base64 (ASCII white space ignored, as
 * `Uint8Array.fromBase64` reads it) in one native call, into one output
 * chunk of the module's known size. Throws when the inflated bytes are more
 * or fewer than that size. (A web `DecompressionStream` over a `Blob` did the
 * same in 64 KiB chunks, and left about 7 MiB more resident for Capstone.)
 */
export function inflateEmbeddedWasm(
  base64: string,
  module: EmbeddedWasm,
): Promise<Uint8Array<ArrayBuffer>> {
  try {
    return Promise.resolve(inflate(base64, module));
  } catch (error) {
    return Promise.reject(error);
  }
}

function inflate(base64: string, { bytes, label }: EmbeddedWasm): Uint8Array<ArrayBuffer> {
  const over = () => new Error(`embedded ${label} wasm is over ${bytes} bytes`);
  let wasm: Uint8Array;
  try {
    // One byte of room past the size, so an over-long stream is told from an exact one.
    wasm = gunzipSync(Uint8Array.fromBase64(base64), {
      maxOutputLength: bytes + 1,
      chunkSize: bytes + 1,
    });
  } catch (error) {
    throw error instanceof RangeError ? over() : error;
  }
  if (wasm.length > bytes) throw over();
  if (wasm.length !== bytes) {
    throw new Error(`embedded ${label} wasm is ${wasm.length} bytes, expected ${bytes}`);
  }
  return new Uint8Array(wasm.buffer as ArrayBuffer, wasm.byteOffset, wasm.length);
}
