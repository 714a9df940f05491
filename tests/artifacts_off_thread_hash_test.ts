import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { OFF_THREAD_WINDOW, OffThreadHash } from "../src/apps/artifacts/off_thread_hash.ts";
import { IntegrityFailure, scanArtifact } from "../src/apps/artifacts/scan.ts";
import { DEFAULT_LIMITS } from "../src/apps/artifacts/model.ts";
import { concat, TAR_END, tarData, tarHeader } from "./helpers/archives.ts";

/** `size` bytes that differ from position to position. */
function pattern(size: number, seed: number): Uint8Array {
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = (i * 131 + (i >> 12) + seed) & 0xff;
  return out;
}

const sha256 = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

Deno.test("OffThreadHash digests on a worker what createHash digests here, window after window", async () => {
  const bytes = pattern(3 * OFF_THREAD_WINDOW + 12_345, 1);
  const hash = new OffThreadHash();
  const chunk = 1 << 20;
  for (let at = 0; at < bytes.length; at += chunk) {
    await hash.ready();
    hash.update(bytes.subarray(at, Math.min(bytes.length, at + chunk)));
  }
  assert.equal(await hash.digest(), sha256(bytes));
  await assert.rejects(() => hash.digest(), /ended before its digest|already/);
});

Deno.test("OffThreadHash ended early rejects its digest instead of hanging", async () => {
  const hash = new OffThreadHash();
  hash.update(pattern(1000, 2));
  const digest = hash.digest();
  hash.destroy();
  await assert.rejects(() => digest, /ended before its digest/);
});

/** A tar of one member large enough for the root to be hashed on a worker. */
async function largeTar(dir: string): Promise<{ path: string; bytes: Uint8Array }> {
  const member = pattern(64 * 1024 * 1024 + 1000, 3);
  const bytes = concat([
    tarHeader({ name: "big.bin", size: member.length }),
    tarData(member),
    TAR_END,
  ]);
  const path = join(dir, "large.tar");
  await Deno.writeFile(path, bytes);
  return { path, bytes };
}

Deno.test("scan: a large root is re-verified on a worker, and a changed root still fails", async () => {
  const dir = await Deno.makeTempDir({ prefix: "casefile-off-thread-" });
  const digest = OffThreadHash.prototype.digest;
  let workers = 0;
  OffThreadHash.prototype.digest = function (this: OffThreadHash): Promise<string> {
    workers++;
    return digest.call(this);
  };
  try {
    const { path, bytes } = await largeTar(dir);
    const root = { kind: "file" as const, realPath: path, name: "large.tar" };
    const expected = sha256(bytes);
    const snapshot = await scanArtifact(root, {
      limits: DEFAULT_LIMITS,
      expectedRootSha256: expected,
    });
    assert.equal(workers, 1, "the root was hashed on a worker");
    assert.equal(snapshot.manifest.root_sha256, expected);
    assert.equal(snapshot.occurrences.find((o) => o.logical_path === ".")!.sha256, expected);
    assert.deepEqual(snapshot.integrity_contradictions, []);
    // The digest taken at open no longer matches the content: an integrity failure.
    const wrong = sha256(bytes.subarray(1));
    await assert.rejects(
      () => scanArtifact(root, { limits: DEFAULT_LIMITS, expectedRootSha256: wrong }),
      IntegrityFailure,
    );
    assert.equal(workers, 2);
  } finally {
    OffThreadHash.prototype.digest = digest;
    await Deno.remove(dir, { recursive: true });
  }
});
