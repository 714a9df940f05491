/**
 * Test helper for compressed streams with bytes after their end: real
 * compressor output built by a shell script, the peer's decoded digest, and
 * our decoder's digest and warnings over the input split into given chunks.
 *
 * @module
 */

import assert from "node:assert/strict";
import { type Codec, decompress } from "../../src/apps/artifacts/compression.ts";
import { sha256 } from "./archives.ts";
import { runProgram } from "./programs.ts";

/** Runs a shell script; its stdout as bytes (it must succeed). */
export async function shellBytes(script: string): Promise<Uint8Array> {
  const out = await new Deno.Command("bash", { args: ["-o", "pipefail", "-c", script] }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return out.stdout;
}

/**
 * `<tool> -dc` of a file (gzip, bzip2): its output's SHA-256 (the exit code is ignored:
 * trailing garbage is a warning).
 */
export async function peerSha(tool: string, path: string): Promise<string> {
  const out = await runProgram("bash", ["-c", `${tool} -dc '${path}' 2>/dev/null | sha256sum`]);
  return out.stdout.split(" ")[0]!;
}

/** Decodes `parts` (the input's chunks) as `codec`: the output's digest and the warnings. */
export async function decodeParts(
  codec: Codec,
  parts: Uint8Array[],
): Promise<{ sha256: string; warnings: string[] } | { error: unknown }> {
  const warnings: string[] = [];
  const input = new ReadableStream<Uint8Array>({
    start(controller): void {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
  try {
    const out = decompress(codec, input, {
      maxOutputBytes: 1 << 30,
      maxRatio: 1_000_000,
      onWarning: (warning) => warnings.push(warning),
    });
    return { sha256: sha256(new Uint8Array(await new Response(out).arrayBuffer())), warnings };
  } catch (error) {
    return { error };
  }
}
