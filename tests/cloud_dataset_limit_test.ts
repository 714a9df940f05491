/**
 * The input size limit is an operator setting (`--max-dataset-bytes`): files
 * above it are refused before any byte is read, with a message naming the
 * flag and the memory bound, and the workspace stays as it was. The loader
 * does not hold a file's text beside its parsed tree.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { parseCli, UsageError } from "../src/cli.ts";
import {
  LOAD_MEMORY_BOUND,
  LOAD_PEAK_FACTOR,
  MAX_DATASET_BYTES_FLAG,
  MAX_INPUT_BYTES,
  parseByteSize,
} from "../src/cloud/importers/read.ts";
import { ImporterRegistry, loadInput } from "../src/cloud/importers/detect.ts";
import { readInputText } from "../src/cloud/importers/import_input.ts";
import { emptyNotes, type Importer } from "../src/cloud/importers/importer.ts";
import { parseJsonOrLines } from "../src/cloud/importers/scanner_common.ts";
import { LoadError } from "../src/cloud/model/errors.ts";
import { emptyRecords } from "../src/cloud/model/records.ts";
import { cloudWorkbenchWith } from "../src/cloud/workbench.ts";
import { fails, ok, withClient } from "./helpers/in_memory.ts";

const KiB = 1024;

/** A generic dataset file of about `bytes` bytes (one asset, padded). */
function genericDataset(bytes: number): string {
  const base = { assets: [{ id: "a-1", type: "S3_BUCKET", name: "pad" }], edges: [], findings: [] };
  const text = JSON.stringify({ ...base, pad: "" });
  return JSON.stringify({ ...base, pad: "x".repeat(Math.max(0, bytes - text.length)) });
}

async function withScratch(run: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "cloud-limit-" }));
  try {
    await run(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function datasetNames(client: Parameters<typeof ok>[0]): Promise<string[]> {
  const listed = (await ok(client, "list_datasets")).result;
  return (listed.datasets as { name: string }[]).map((d) => d.name);
}

Deno.test("parseByteSize() reads bytes and K/M/G sizes and refuses anything else", () => {
  assert.equal(parseByteSize("1048576"), 1048576);
  assert.equal(parseByteSize("512K"), 512 * KiB);
  assert.equal(parseByteSize("300M"), 300 * 2 ** 20);
  assert.equal(parseByteSize("300MiB"), 300 * 2 ** 20);
  assert.equal(parseByteSize("1g"), 2 ** 30);
  assert.equal(parseByteSize("1.5GB"), 1.5 * 2 ** 30);
  for (const bad of ["", "0", "-5", "ten", "5T", "1e9", "65G"]) {
    assert.throws(() => parseByteSize(bad), (e: unknown) => {
      assert.ok(e instanceof RangeError);
      assert.match(e.message, /--max-dataset-bytes takes a size/);
      return true;
    });
  }
});

Deno.test("the default limit keeps the worst measured load under the stated memory bound", () => {
  assert.ok(MAX_INPUT_BYTES * LOAD_PEAK_FACTOR <= LOAD_MEMORY_BOUND);
  assert.equal(MAX_INPUT_BYTES % 2 ** 20, 0);
  assert.equal(MAX_DATASET_BYTES_FLAG, "--max-dataset-bytes");
});

Deno.test("parseCli() takes --max-dataset-bytes and refuses a bad value as a usage error", () => {
  const cloud = cloudWorkbenchWith();
  const config = parseCli(["--max-dataset-bytes", "1M"], [cloud]);
  assert.ok(config);
  assert.throws(
    () => parseCli(["--max-dataset-bytes", "lots"], [cloud]),
    (e: unknown) => e instanceof UsageError && /--max-dataset-bytes takes a size/.test(e.message),
  );
  assert.match(cloud.cli?.help ?? "", /--max-dataset-bytes N/);
});

Deno.test("load_dataset refuses a file over --max-dataset-bytes, naming the flag; the workspace is unchanged", async () => {
  await withScratch(async (dir) => {
    await Deno.writeTextFile(join(dir, "small.json"), genericDataset(30 * KiB));
    await Deno.writeTextFile(join(dir, "big.json"), genericDataset(80 * KiB));
    await withClient({
      roots: [dir],
      workbenches: [cloudWorkbenchWith({ demo: true, maxDatasetBytes: 64 * KiB })],
    }, async (client) => {
      const before = await datasetNames(client);
      assert.deepEqual(before, ["sample", "after"]);
      const error = await fails(client, "load_dataset", { path: join(dir, "big.json") });
      assert.match(
        error.message,
        /big\.json: it is 80 KiB and this server refuses input files larger than 64 KiB \(--max-dataset-bytes\)/,
      );
      assert.match(error.message, new RegExp(`about ${LOAD_PEAK_FACTOR}× the file's size`));
      assert.equal(error.details.limit, 64 * KiB);
      assert.equal(error.details.setting, "--max-dataset-bytes");
      // The same limit applies to reports merged by ingest_reports.
      const ingest = await fails(client, "ingest_reports", {
        reports: { prowler: [join(dir, "big.json")] },
        dataset: "sample",
      });
      assert.match(ingest.message, /larger than 64 KiB \(--max-dataset-bytes\)/);
      assert.deepEqual(await datasetNames(client), before);
      // Under the limit, the same kind of file loads.
      await ok(client, "load_dataset", { path: join(dir, "small.json") });
      assert.deepEqual(await datasetNames(client), [...before, "small"]);
    });
  });
});

Deno.test("load_dataset refuses a 1 GB file at the default limit before reading it", async () => {
  await withScratch(async (dir) => {
    // Sparse: no disk is used, and a read of it would take seconds.
    const file = await Deno.open(join(dir, "huge.tfstate"), { create: true, write: true });
    await file.truncate(2 ** 30);
    file.close();
    await withClient({
      roots: [dir],
      workbenches: [cloudWorkbenchWith({ demo: true })],
    }, async (client) => {
      const began = performance.now();
      const error = await fails(client, "load_dataset", { path: join(dir, "huge.tfstate") });
      assert.ok(performance.now() - began < 2_000, "refused without reading the file");
      assert.match(
        error.message,
        new RegExp(
          `it is 1 GiB and this server refuses input files larger than ${
            MAX_INPUT_BYTES / 2 ** 20
          } MiB \\(--max-dataset-bytes\\)`,
        ),
      );
      assert.deepEqual(await datasetNames(client), ["sample", "after"]);
    });
  });
});

Deno.test("--dataset preloads honour --max-dataset-bytes", async () => {
  await withScratch(async (dir) => {
    await Deno.writeTextFile(join(dir, "small.json"), genericDataset(30 * KiB));
    await Deno.writeTextFile(join(dir, "big.json"), genericDataset(80 * KiB));
    await withClient({
      roots: [dir],
      workbenches: [
        cloudWorkbenchWith({
          datasets: [{ path: join(dir, "big.json") }, { path: join(dir, "small.json") }],
          maxDatasetBytes: 64 * KiB,
        }),
      ],
    }, async (client) => {
      assert.deepEqual(await datasetNames(client), ["small"]);
    });
  });
});

Deno.test("--dataset preloads read a named kind instead of detecting one", async () => {
  await withScratch(async (dir) => {
    await Deno.writeTextFile(join(dir, "generic.json"), genericDataset(8 * KiB));
    const names = async (kind?: string): Promise<string[]> => {
      let loaded: string[] = [];
      await withClient({
        roots: [dir],
        workbenches: [
          cloudWorkbenchWith({
            datasets: [{ path: join(dir, "generic.json"), ...(kind ? { kind } : {}) }],
          }),
        ],
      }, async (client) => {
        loaded = await datasetNames(client);
      });
      return loaded;
    };
    assert.deepEqual(await names(), ["generic"]);
    assert.deepEqual(await names("generic"), ["generic"]);
    // Read as a Trivy report, it is refused (and logged); nothing else is loaded in its place.
    assert.deepEqual(await names("trivy"), []);
  });
});

Deno.test("loadInput() hands a parsed JSON file to the importer without its text, and the limit", async () => {
  await withScratch(async (dir) => {
    const seen: { text: boolean; json: boolean; maxBytes?: number; reread: string }[] = [];
    const probe: Importer = {
      kind: "probe",
      description: "records what the loader hands over",
      detectors: [{ stage: "json", order: 1, test: (v) => isProbe(v) }],
      load: async (input) => {
        seen.push({
          text: input.text !== undefined,
          json: input.json !== undefined,
          ...(input.maxBytes === undefined ? {} : { maxBytes: input.maxBytes }),
          // An importer that wants the text after all still gets it.
          reread: await readInputText(input, { kind: "probe", path: input.path }),
        });
        return { records: emptyRecords(), notes: emptyNotes(), metadata: {} };
      },
    };
    const registry = new ImporterRegistry([probe]);
    const path = join(dir, "probe.json");
    const text = JSON.stringify({ probe: true });
    await Deno.writeTextFile(path, text);
    await loadInput(path, { fence: (p) => Deno.realPath(p), registry, maxBytes: 4 * KiB });
    assert.deepEqual(seen, [{ text: false, json: true, maxBytes: 4 * KiB, reread: text }]);
  });
});

Deno.test("parseJsonOrLines() reads JSON Lines line by line, blank lines skipped, bad lines located", () => {
  const lines = ['{"a":1}', "", '  {"a":2}  ', '{"a":3}'].join("\n") + "\n";
  assert.deepEqual(parseJsonOrLines(lines, { kind: "k", path: "f.jsonl" }), [
    { a: 1 },
    { a: 2 },
    { a: 3 },
  ]);
  assert.throws(
    () => parseJsonOrLines('{"a":1}\n{"a":2}\n{"a":\n', { kind: "k", path: "f.jsonl" }),
    /line 3 is not a JSON object/,
  );
});

function isProbe(value: unknown): boolean {
  return typeof value === "object" && value !== null && "probe" in value;
}

Deno.test("loadInput() holds the files of a directory input to one limit together", async () => {
  await withScratch(async (dir) => {
    const reader: Importer = {
      kind: "two-files",
      description: "reads a.txt and b.txt of a directory",
      detectors: [{ stage: "directory", order: 1, test: (listing) => listing.hasFile("a.txt") }],
      load: async (input) => {
        const a = await input.readText(join(input.path, "a.txt"));
        const b = await input.readText(join(input.path, "b.txt"));
        return {
          records: emptyRecords(),
          notes: emptyNotes(),
          metadata: { read: a.length + b.length },
        };
      },
    };
    const registry = new ImporterRegistry([reader]);
    const fence = (p: string): Promise<string> => Deno.realPath(p);
    for (const [name, size] of [["small", 20 * KiB], ["large", 40 * KiB]] as const) {
      await Deno.mkdir(join(dir, name));
      await Deno.writeTextFile(join(dir, name, "a.txt"), "a".repeat(size));
      await Deno.writeTextFile(join(dir, name, "b.txt"), "b".repeat(size));
    }
    const small = await loadInput(join(dir, "small"), { fence, registry, maxBytes: 64 * KiB });
    assert.equal(small.metadata.read, 40 * KiB);
    await assert.rejects(
      () => loadInput(join(dir, "large"), { fence, registry, maxBytes: 64 * KiB }),
      (e: unknown) => {
        assert.ok(e instanceof LoadError);
        assert.match(
          e.message,
          /Cannot load large: with b\.txt its files add up to 80 KiB, and this server refuses inputs larger than 64 KiB \(--max-dataset-bytes\)/,
        );
        return true;
      },
    );
  });
});
