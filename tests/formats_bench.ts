/**
 * Benchmarks of the format readers on real files: `elfImage()` (the analysis
 * image) beside `parseElf()` (the raw reader it builds on) on the largest
 * shared library of this machine and on the deno executable, and
 * `machOImages()` beside `parseMachO()` on the largest real Mach-O fixture,
 * and `wasmImage()` beside `parseWasm()` on esbuild.wasm.
 */

import { parseElf } from "../src/apps/formats/elf/parse.ts";
import { elfImage } from "../src/apps/formats/elf/image.ts";
import { machOImages } from "../src/apps/formats/macho/image.ts";
import { parseMachO } from "../src/apps/formats/macho/parse.ts";
import { largestSharedLibrary } from "./helpers/largest_library.ts";
import { npmFixture } from "./helpers/npm_fixtures.ts";
import { wasmImage } from "../src/apps/formats/wasm/image.ts";
import { parseWasm } from "../src/apps/formats/wasm/parse.ts";

const targets: [string, string | null][] = [
  ["the largest .so", largestSharedLibrary()],
  ["the deno binary", Deno.realPathSync(Deno.execPath())],
];

for (const [label, path] of targets) {
  if (path === null) {
    console.log(`skip: ${label}: not found`);
    continue;
  }
  const bytes = Deno.readFileSync(path);
  const mb = (bytes.length / 1e6).toFixed(1);
  Deno.bench({
    name: `elfImage() on ${label} (${mb} MB)`,
    group: label,
    baseline: true,
    n: 5,
    warmup: 1,
    fn: () => {
      elfImage(bytes, label);
    },
  });
  Deno.bench({
    name: `parseElf() on ${label} (${mb} MB)`,
    group: label,
    n: 5,
    warmup: 1,
    fn: () => {
      parseElf(bytes);
    },
  });
}

const machO = [
  await npmFixture("@esbuild/darwin-arm64@0.28.2", "bin/esbuild"),
  await npmFixture("fsevents@2.3.3", "fsevents.node"),
  await npmFixture("7zip-bin@5.2.0", "mac/x64/7za"),
].filter((path): path is string => path !== null)
  .map((path) => ({ path, size: Deno.statSync(path).size }))
  .sort((a, b) => b.size - a.size)[0];
if (machO) {
  const bytes = Deno.readFileSync(machO.path);
  const label = `the largest Mach-O fixture (${(bytes.length / 1e6).toFixed(1)} MB)`;
  Deno.bench({
    name: `machOImages() on ${label}`,
    group: "mach-o",
    baseline: true,
    n: 5,
    warmup: 1,
    fn: () => {
      machOImages(bytes, "bench");
    },
  });
  Deno.bench({
    name: `parseMachO() on ${label}`,
    group: "mach-o",
    n: 5,
    warmup: 1,
    fn: () => {
      parseMachO(bytes);
    },
  });
} else console.log("skip: no real Mach-O fixture is available");

const esbuildWasm = await npmFixture("esbuild-wasm@0.28.2", "esbuild.wasm");
if (esbuildWasm) {
  const bytes = Deno.readFileSync(esbuildWasm);
  const label = `esbuild.wasm (${(bytes.length / 1e6).toFixed(1)} MB)`;
  Deno.bench({
    name: `wasmImage() on ${label}`,
    group: "wasm",
    baseline: true,
    n: 7,
    warmup: 1,
    fn: () => {
      wasmImage(bytes, "esbuild.wasm");
    },
  });
  Deno.bench({
    name: `parseWasm() on ${label}`,
    group: "wasm",
    n: 7,
    warmup: 1,
    fn: () => {
      parseWasm(bytes);
    },
  });
} else console.log("skip: esbuild.wasm is not available");
