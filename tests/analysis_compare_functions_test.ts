/**
 * compare_functions across two versions of real binaries: a Mach-O
 * procedure's size comes from its extent (function starts carry no size),
 * checked against llvm-objdump's function starts; and callees compare by
 * resolved name, so unnamed callees whose addresses moved between the libjq
 * builds do not make the callees differ. Peers: llvm-objdump-14, objdump.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { hasProgram, type Loose, ok, run, withTempRoot } from "./helpers/in_memory.ts";
import { haveJqFixtures, NEW, OLD } from "./helpers/jq_fixtures.ts";
import { npmFixture } from "./helpers/npm_fixtures.ts";

/** The function starts llvm-objdump lists for one slice, ascending. */
async function functionStarts(path: string, arch: string): Promise<bigint[]> {
  const text = await run("llvm-objdump-14", [
    "--macho",
    "--function-starts",
    `--arch=${arch}`,
    path,
  ]);
  return [...text.matchAll(/^([0-9a-f]{8,16})\b/gm)].map((m) => BigInt(`0x${m[1]}`))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

Deno.test({
  name:
    "compare_functions sizes Mach-O procedures by their extent, as llvm-objdump's function starts give it",
  ignore: !hasProgram("llvm-objdump-14") || !hasProgram("npm") || !hasProgram("tar"),
  fn: async () => {
    const older = await npmFixture("fsevents@2.3.2", "fsevents.node");
    const newer = await npmFixture("fsevents@2.3.3", "fsevents.node");
    assert.ok(older && newer, "npm pack fetched both versions");
    await withTempRoot("casefile-test-", async ({ client, dir }) => {
      const paths = [join(dir, "old.node"), join(dir, "new.node")];
      await Deno.copyFile(older, paths[0]!);
      await Deno.copyFile(newer, paths[1]!);
      const ids: string[] = [];
      const expected: number[] = [];
      for (const path of paths) {
        const opened = await ok(client, "open_binary", { path });
        const document = opened.result.target?.document;
        const dossier = await ok(client, "analyze_function", { procedure: "_FSEStart" });
        ids.push(dossier.evidence_id);
        const address = BigInt(dossier.result.procedure.address);
        const arch = /arm64/.test(JSON.stringify(document ?? "")) ? "arm64" : "x86_64";
        const starts = await functionStarts(path, arch);
        const next = starts.find((s) => s > address);
        assert.ok(next !== undefined);
        expected.push(Number(next - address));
      }
      const compared = await ok(client, "compare_functions", {
        left_evidence_id: ids[0],
        right_evidence_id: ids[1],
      });
      const size = compared.result.dimensions.find((d: Loose) => d.name === "size");
      assert.notEqual(size.verdict, "unknown");
      assert.equal(size.left, expected[0]);
      assert.equal(size.right, expected[1]);
    });
  },
});

/** The distinct direct call targets objdump shows inside one procedure. */
async function callTargets(path: string, start: bigint, size: number): Promise<Set<string>> {
  const text = await run("objdump", [
    "-d",
    `--start-address=0x${start.toString(16)}`,
    `--stop-address=0x${(start + BigInt(size)).toString(16)}`,
    path,
  ]);
  return new Set([...text.matchAll(/\bcall\s+([0-9a-f]+)\b/g)].map((m) => m[1]!));
}

const haveJq = haveJqFixtures("analysis_compare_functions_test");

Deno.test({
  name:
    "compare_functions compares callees by resolved name, not by the addresses of unnamed callees that moved",
  ignore: !haveJq || !["objdump", "ar", "xz", "tar"].every((p) => hasProgram(p)),
  fn: async () => {
    await withTempRoot("casefile-test-", async ({ client, dir }) => {
      const ids: string[] = [];
      const unnamedAddresses: string[][] = [];
      const targets: number[] = [];
      for (const [name, deb] of [["old", OLD], ["new", NEW]] as const) {
        await Deno.mkdir(join(dir, name));
        await run("sh", [
          "-c",
          `ar p "${deb}" data.tar.xz | xz -d | tar -x -C "${join(dir, name)}"`,
        ]);
        const path = join(dir, name, "usr/lib/x86_64-linux-gnu/libjq.so.1.0.4");
        await ok(client, "open_binary", { path });
        const dossier = await ok(client, "analyze_function", {
          procedure: "jq_compile_args",
          limit: 100,
        });
        ids.push(dossier.evidence_id);
        const callees = dossier.result.callees.items;
        unnamedAddresses.push(callees.filter((c: Loose) => !c.name).map((c: Loose) => c.address));
        // The dossier's callees are objdump's distinct direct call targets.
        const procedure = dossier.result.procedure;
        const peer = await callTargets(path, BigInt(procedure.address), procedure.size);
        assert.equal(callees.length, peer.size);
        targets.push(peer.size);
      }
      // Some unnamed callee moved between the builds: comparing addresses would differ.
      assert.notDeepEqual(unnamedAddresses[0], unnamedAddresses[1]);
      const compared = await ok(client, "compare_functions", {
        left_evidence_id: ids[0],
        right_evidence_id: ids[1],
      });
      const callees = compared.result.dimensions.find((d: Loose) => d.name === "callees");
      for (const entry of [...callees.only_left, ...callees.only_right]) {
        assert.doesNotMatch(entry, /^0x[0-9a-f]+$/, "an unnamed callee compared by address");
      }
      assert.equal(callees.unnamed_left, unnamedAddresses[0]!.length);
      assert.equal(callees.unnamed_right, unnamedAddresses[1]!.length);
      if (targets[0] === targets[1] && callees.only_left.length === 0) {
        assert.equal(callees.verdict, "equal");
      }
    });
  },
});
