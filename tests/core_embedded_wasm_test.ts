/** The shared inflater of embedded, gzip-compressed base64 modules. */

import assert from "node:assert/strict";
import { inflateEmbeddedWasm } from "../src/core/embedded_wasm.ts";

async function gzipBase64(bytes: Uint8Array): Promise<string> {
  const packed = await new Response(
    new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
      new CompressionStream("gzip"),
    ),
  ).bytes();
  // Line breaks as an embedded constant carries them; they are ignored.
  return packed.toBase64().replace(/(.{40})/g, "$1\n");
}

const BYTES = Uint8Array.from({ length: 5000 }, (_, i) => (i * 7) % 251);

Deno.test("inflateEmbeddedWasm() gives back the bytes in a buffer of their size", async () => {
  const out = await inflateEmbeddedWasm(await gzipBase64(BYTES), {
    bytes: BYTES.length,
    label: "test",
  });
  assert.equal(out.byteLength, BYTES.length);
  assert.deepEqual(out, BYTES);
});

Deno.test("inflateEmbeddedWasm() refuses more or fewer bytes than announced", async () => {
  const base64 = await gzipBase64(BYTES);
  await assert.rejects(
    () => inflateEmbeddedWasm(base64, { bytes: BYTES.length - 1, label: "test" }),
    { message: `embedded test wasm is over ${BYTES.length - 1} bytes` },
  );
  await assert.rejects(
    () => inflateEmbeddedWasm(base64, { bytes: BYTES.length + 1, label: "test" }),
    { message: `embedded test wasm is ${BYTES.length} bytes, expected ${BYTES.length + 1}` },
  );
});
