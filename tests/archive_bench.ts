/**
 * Throughput of the archive readers on a tar of 100+ MB built from /usr/lib
 * in a temporary directory, each beside its peer tool in the same run:
 * readTar() reading every body (against `tar -xOf | cat`), and decompress() for
 * gzip, xz and zstd (against `gzip -dc`, `xz -dc`, `zstd -dc`). Prints MB/s
 * of uncompressed output and the ratio to the peer.
 *
 * Run with `deno bench --no-prompt -A tests/archive_bench.ts`.
 */

import { compareTo, measure, median } from "./helpers/bench_stats.ts";
import { hasProgram } from "./helpers/programs.ts";
import { buildUsrLibTar } from "./helpers/usr_lib_tar.ts";
import { fileSource } from "../src/apps/artifacts/byte_source.ts";
import { type Codec, decompress } from "../src/apps/artifacts/compression.ts";
import { readTar } from "../src/apps/artifacts/tar.ts";

const TARGET_BYTES = 120 * 2 ** 20;
const LIMITS = { maxEntries: 1_000_000, maxPathBytes: 4096 };
const DECOMPRESS = { maxOutputBytes: 2 ** 40, maxRatio: 1e6 };

const ready = hasProgram("tar") && hasProgram("du");
const dir = ready ? await Deno.makeTempDir({ prefix: "casefile-archive-bench-" }) : "";
const tar = ready ? (await buildUsrLibTar(dir, TARGET_BYTES))?.path ?? null : null;
if (!tar) console.log("skip: cannot build a 100 MB tar from /usr/lib");
globalThis.addEventListener("unload", () => {
  if (dir) Deno.removeSync(dir, { recursive: true });
});

const tarBytes = tar ? Deno.statSync(tar).size : 0;
const throughputs: string[] = [];

function mbps(name: string): number {
  return tarBytes / 2 ** 20 / (median(name) / 1000);
}

async function runPeer(program: string, args: string[]): Promise<void> {
  const out = await new Deno.Command(program, { args, stdout: "null", stderr: "piped" }).output();
  if (!out.success) throw new Error(`${program} failed: ${new TextDecoder().decode(out.stderr)}`);
}

if (tar) {
  Deno.bench({
    name: "readTar() over fileSource().stream(), every body read",
    group: "tar",
    n: 3,
    warmup: 1,
    fn: async (b) => {
      await measure("readTar", b, async () => {
        const source = await fileSource(tar);
        let bytes = 0;
        for await (const { body } of readTar(source.stream(0, source.size), LIMITS)) {
          for await (const chunk of body()) bytes += chunk.byteLength;
        }
        source.close();
        if (bytes === 0) throw new Error("read nothing");
      });
    },
  });
  Deno.bench({
    name: "peer: tar -xOf | cat (every member's bytes through a pipe)",
    group: "tar",
    baseline: true,
    n: 3,
    warmup: 1,
    fn: async (b) => {
      // Through a pipe: GNU tar skips reading member data when its output is /dev/null itself.
      await measure(
        "tar -xOf",
        b,
        () => runPeer("sh", ["-c", `tar -xOf '${tar}' | cat > /dev/null`]),
      );
    },
  });
  compareTo(
    `readTar() on ${(tarBytes / 2 ** 20).toFixed(0)} MiB vs tar -xOf`,
    "readTar",
    "tar -xOf",
    null,
  );
  throughputs.push("readTar", "tar -xOf");

  const codecs: [Codec, string, string[], string][] = [
    ["gzip", "gzip", ["-c", "-6"], "gz"],
    ["xz", "xz", ["-c", "-T2", "-1"], "xz"],
    ["zstd", "zstd", ["-q", "-c"], "zst"],
  ];
  for (const [codec, program, args, suffix] of codecs) {
    if (!hasProgram(program)) {
      console.log(`skip: ${program} not available`);
      continue;
    }
    const compressed = `${tar}.${suffix}`;
    const file = await Deno.open(compressed, { write: true, create: true, truncate: true });
    await new Deno.Command(program, { args: [...args, tar], stdout: "piped" }).spawn().stdout
      .pipeTo(file.writable);
    const ratio = tarBytes / Deno.statSync(compressed).size;
    Deno.bench({
      name: `decompress("${codec}") over fileSource().stream() (ratio ${ratio.toFixed(2)})`,
      group: codec,
      n: 3,
      warmup: 1,
      fn: async (b) => {
        await measure(codec, b, async () => {
          const source = await fileSource(compressed);
          let bytes = 0;
          for await (const chunk of decompress(codec, source.stream(0, source.size), DECOMPRESS)) {
            bytes += chunk.byteLength;
          }
          source.close();
          if (bytes !== tarBytes) throw new Error(`decoded ${bytes} of ${tarBytes} bytes`);
        });
      },
    });
    Deno.bench({
      name: `peer: ${program} -dc`,
      group: codec,
      baseline: true,
      n: 3,
      warmup: 1,
      fn: async (b) => {
        await measure(`${program} -dc`, b, () => runPeer(program, ["-dc", compressed]));
      },
    });
    compareTo(
      `decompress("${codec}") vs ${program} -dc (compression ratio ${ratio.toFixed(2)})`,
      codec,
      `${program} -dc`,
      null,
    );
    throughputs.push(codec, `${program} -dc`);
  }
}

globalThis.addEventListener("unload", () => {
  const lines = throughputs.filter((name) => !Number.isNaN(median(name))).map((name) =>
    `${name}: ${mbps(name).toFixed(0)} MiB/s of uncompressed tar`
  );
  if (lines.length > 0) console.log(`\nthroughput (medians, same run):\n  ${lines.join("\n  ")}`);
});
