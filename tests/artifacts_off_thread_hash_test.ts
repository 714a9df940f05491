import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import {
  BATCH_BYTES,
  HashWorkerError,
  MAX_IN_FLIGHT_BYTES,
  OffThreadHasher,
} from "../src/apps/artifacts/off_thread_hash.ts";
import { IntegrityFailure, scanArtifact } from "../src/apps/artifacts/scan.ts";
import { type ArtifactSnapshot, DEFAULT_LIMITS } from "../src/apps/artifacts/model.ts";
import { hasProgram } from "./helpers/programs.ts";
import { findLibc } from "./helpers/system_files.ts";

const hasTar = hasProgram("tar");

/** A real shared library of this machine (the C library), or null. */
const LIBC = findLibc();

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

Deno.test({
  name: "off-thread hash: a worker's digest of a real file equals node:crypto's, in any split",
  ignore: LIBC === null,
  async fn(): Promise<void> {
    const bytes = await Deno.readFile(LIBC!);
    const hasher = OffThreadHasher.start();
    assert.ok(hasher, "the tests may read the worker's module, so a worker starts");
    try {
      // Pieces of 1 byte, a page, a batch and a half and the rest, across batch boundaries.
      const cuts = [0, 1, 4097, 4097 + BATCH_BYTES + BATCH_BYTES / 2, bytes.byteLength];
      const split = hasher.job();
      const whole = hasher.job();
      for (let i = 0; i + 1 < cuts.length; i++) {
        split.update(bytes.subarray(cuts[i], cuts[i + 1]));
        // A second job interleaved with the first: each keeps its own bytes.
        if (i === 1) whole.update(bytes);
      }
      const empty = hasher.job();
      assert.deepEqual(await Promise.all([split.digest(), whole.digest(), empty.digest()]), [
        sha256(bytes),
        sha256(bytes),
        sha256(new Uint8Array(0)),
      ]);
    } finally {
      hasher.close();
    }
  },
});

Deno.test("off-thread hash: a reader that waits when asked keeps the bytes in flight bounded", async () => {
  const hasher = OffThreadHasher.start()!;
  try {
    const chunk = new Uint8Array(1 << 20);
    const reference = createHash("sha256");
    const job = hasher.job();
    let most = 0;
    let waited = 0;
    for (let i = 0; i < 96; i++) {
      chunk.fill(i);
      job.update(chunk);
      reference.update(chunk);
      most = Math.max(most, hasher.inFlight);
      if (hasher.congested) {
        waited++;
        await hasher.drained();
      }
    }
    assert.ok(waited > 0, "96 MiB given without yielding passes the bound at least once");
    assert.ok(most <= MAX_IN_FLIGHT_BYTES + BATCH_BYTES, `${most} bytes were in flight`);
    assert.equal(await job.digest(), reference.digest("hex"));
  } finally {
    hasher.close();
  }
});

Deno.test("off-thread hash: a worker that fails rejects what it owes with a HashWorkerError", async () => {
  const dir = await Deno.makeTempDir({ prefix: "casefile-hash-worker-" });
  try {
    const broken = join(dir, "broken_worker.ts");
    await Deno.writeTextFile(broken, 'throw new Error("this module hashes nothing");\n');
    const hasher = OffThreadHasher.start(new URL(`file://${broken}`));
    assert.ok(hasher);
    const job = hasher.job();
    job.update(new Uint8Array(10));
    await assert.rejects(async () => await job.digest(), HashWorkerError);
    assert.ok(hasher.failure instanceof HashWorkerError);
    hasher.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Writes a tar of real files from this machine into a temp dir; returns its path. */
async function realTar(dir: string): Promise<string> {
  const path = join(dir, "real.tar");
  const sources = ["/usr/share/doc/tar", "/usr/share/doc/gzip", "/usr/share/doc/bash"]
    .filter((p) => {
      try {
        return Deno.statSync(p).isDirectory;
      } catch {
        return false;
      }
    });
  const files = LIBC ? [LIBC] : [];
  const tar = await new Deno.Command("tar", {
    args: ["-cf", path, "--hard-dereference", "-P", ...sources, ...files],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!tar.success) throw new Error(new TextDecoder().decode(tar.stderr));
  return path;
}

function scanOf(
  path: string,
  hashWorkers: false | { minBytes: number; url?: URL },
  expected?: string,
): Promise<ArtifactSnapshot> {
  return scanArtifact({ kind: "file", realPath: path, name: "real.tar" }, {
    limits: DEFAULT_LIMITS,
    hashWorkers,
    ...(expected ? { expectedRootSha256: expected } : {}),
  });
}

Deno.test({
  name: "scan: hashing the root on a worker gives the snapshot hashing it inline gives",
  ignore: !hasTar,
  async fn(): Promise<void> {
    const dir = await Deno.makeTempDir({ prefix: "casefile-off-thread-scan-" });
    try {
      const path = await realTar(dir);
      const digest = sha256(await Deno.readFile(path));
      const inline = await scanOf(path, false, digest);
      const offThread = await scanOf(path, { minBytes: 0 }, digest);
      assert.equal(inline.manifest.complete, true);
      assert.ok(inline.occurrences.length > 3, "the tar holds several real files");
      assert.deepEqual(offThread, inline);
      assert.equal(offThread.manifest.root_sha256, digest);

      // The digest taken on the worker is checked against the one taken at open: a root that
      // changed since (here: an expected digest that is not the file's) is a contradiction.
      const stale = "0".repeat(64);
      const failures = await Promise.all([false as const, { minBytes: 0 }].map(async (mode) => {
        const error = await scanOf(path, mode, stale).then(() => null, (e: unknown) => e);
        assert.ok(error instanceof IntegrityFailure, `${JSON.stringify(mode)}: ${error}`);
        return error.contradiction;
      }));
      assert.equal(failures[1]!.check, "root-digest");
      assert.equal(failures[1]!.observed, digest);
      assert.deepEqual(failures[1], failures[0]);

      // A worker that cannot hash: the scan is done again on one thread, with the same result.
      const broken = join(dir, "broken_worker.ts");
      await Deno.writeTextFile(broken, 'throw new Error("this module hashes nothing");\n');
      const fallback = await scanOf(
        path,
        { minBytes: 0, url: new URL(`file://${broken}`) },
        digest,
      );
      assert.deepEqual(fallback, inline);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
