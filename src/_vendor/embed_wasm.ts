/**
 * What the vendoring generators share: a WebAssembly build written into a
 * TypeScript module beside the generator as gzip + base64 in 100-character
 * lines, with its SHA-256 and size, laid out as `deno fmt` leaves it. A
 * development tool, excluded from the published package.
 *
 * @module
 */

import { sha256Hex } from "../core/canonical_json.ts";

async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
    new CompressionStream("gzip"),
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/**
 * Writes `wasm` to `output` as a module exporting `<prefix>_WASM_SHA256`,
 * `<prefix>_WASM_BYTES` and `<prefix>_WASM_GZIP_BASE64`, after `header`
 * (comment lines naming the source and its license).
 */
export async function writeEmbeddedWasm(
  wasm: Uint8Array,
  options: { prefix: string; header: string; output: URL },
): Promise<void> {
  const { prefix, header, output } = options;
  const packed = (await gzip(wasm)).toBase64();
  const lines = packed.match(/.{1,100}/g) ?? [];
  const source = `${header.trimEnd()}

/** SHA-256 of the uncompressed wasm. */
export const ${prefix}_WASM_SHA256 =
  "${sha256Hex(wasm)}";

/** Uncompressed size in bytes. */
export const ${prefix}_WASM_BYTES = ${wasm.length};

/** The wasm, gzip-compressed, base64 (whitespace is ignored when decoding). */
export const ${prefix}_WASM_GZIP_BASE64 = \`
${lines.join("\n")}
\`;
`;
  await Deno.writeTextFile(output, source);
  console.log(`wrote ${output.pathname} (${wasm.length} bytes, ${packed.length} base64)`);
}
