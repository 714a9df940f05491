/**
 * Opening an artifact member as a binary target, in memory: the real libjq
 * inside Debian's packages is analysed without extraction, agrees with the
 * library that ar, xz and tar extract, and bad occurrences leave the session
 * as it was.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { connect, fails, hasProgram, type Loose, ok, run } from "./helpers/in_memory.ts";
import { inventoryAll } from "./helpers/inventory.ts";
import { FIXTURES, haveJqFixtures, LIBJQ, NEW, OLD } from "./helpers/jq_fixtures.ts";

const LIB_DIR = "data.tar.xz/data.tar/usr/lib/x86_64-linux-gnu";
const haveFixtures = haveJqFixtures("occurrence_target_test");
const tools = hasProgram("ar") && hasProgram("xz") && hasProgram("tar") && hasProgram("nm");
if (!tools) {
  console.log("occurrence_target_test: skipping peer checks, ar, xz, tar or nm is absent");
}

/** Opens an artifact and retains every inventory page; returns its occurrences by path. */
async function inventory(client: Loose, path: string): Promise<Map<string, Loose>> {
  await ok(client, "open_binary", { path });
  const { occurrences } = await inventoryAll(client);
  return new Map(occurrences.map((o: Loose) => [o.logical_path, o]));
}

/** The library as the packaging tools extract it. */
async function extracted(deb: string, dir: string): Promise<string> {
  await Deno.mkdir(dir, { recursive: true });
  await run("sh", ["-c", `ar p "${deb}" data.tar.xz | xz -d | tar -x -C "${dir}"`]);
  return join(dir, "usr/lib/x86_64-linux-gnu/libjq.so.1.0.4");
}

/** nm's size of one defined dynamic symbol. */
async function nmSize(path: string, name: string): Promise<number> {
  const text = await run("nm", ["-D", "--defined-only", "-S", path]);
  const line = text.split("\n").map((l) => l.trim().split(/\s+/)).find((p) => p[3] === name);
  assert.ok(line, `nm lists ${name}`);
  return parseInt(line[1]!, 16);
}

async function dossier(client: Loose, procedure: string): Promise<Loose> {
  return await ok(client, "analyze_function", {
    procedure,
    max_instructions: 5000,
    include_callers: false,
  });
}

Deno.test({
  name:
    "open_binary(occurrence_id) analyses libjq inside both .deb files in memory, exactly as the extracted library",
  ignore: !haveFixtures || !tools,
  fn: async () => {
    const extractDir = await Deno.makeTempDir();
    const { client, close } = await connect({ roots: [FIXTURES, extractDir] });
    try {
      const oldLib = await extracted(OLD, join(extractDir, "old"));
      const newLib = await extracted(NEW, join(extractDir, "new"));
      const before = [...Deno.readDirSync(FIXTURES)].map((e) => e.name).sort();

      // The old package: open its libjq by occurrence, beside the artifact target.
      const oldOccurrences = await inventory(client, OLD);
      const oldEntry = oldOccurrences.get(LIBJQ);
      const opened = await ok(client, "open_binary", { occurrence_id: oldEntry.occurrence_id });
      assert.equal(opened.result.target.format, "elf");
      assert.equal(opened.result.target.name, "libjq.so.1.0.4");
      assert.equal(opened.result.target.sha256, oldEntry.sha256);
      assert.equal(opened.result.target.origin.logical_path, LIBJQ);
      assert.equal(opened.result.target.origin.occurrence_id, oldEntry.occurrence_id);
      assert.equal(opened.result.artifact_target.format, "deb");
      assert.equal(opened.result.analysis_provider_binding.provider.id, "native");
      const inMemory = await dossier(client, "jq_compile_args");
      assert.equal(inMemory.result.procedure.size, await nmSize(oldLib, "jq_compile_args"));
      // Evidence names the member, not a file on disk.
      const record = JSON.parse(
        ((await client.readResource({ uri: inMemory.evidence_uri })).contents[0] as Loose).text,
      );
      assert.equal(record.subject.name, "libjq.so.1.0.4");
      assert.equal(record.subject.digest.sha256, oldEntry.sha256);
      assert.equal(record.subject.local_path, `${OLD}!/${LIBJQ}`);
      // The inventory still works on the artifact beside the member.
      await ok(client, "inventory_artifact", { occurrence_limit: 1 });

      // The same library extracted by the packaging tools gives the same dossier.
      await ok(client, "open_binary", { path: oldLib });
      const onDisk = await dossier(client, "jq_compile_args");
      assert.equal(onDisk.result.procedure.address, inMemory.result.procedure.address);
      assert.deepEqual(onDisk.result.fingerprint, inMemory.result.fingerprint);
      assert.deepEqual(onDisk.result.callees, inMemory.result.callees);
      const procedures = await ok(client, "list_procedures", { limit: 500 });

      // The new package's libjq, then the function compared across the two members.
      const newOccurrences = await inventory(client, NEW);
      // Occurrence ids are path-based: the same path, another root, another id.
      assert.notEqual(newOccurrences.get(LIBJQ).occurrence_id, oldEntry.occurrence_id);
      await ok(client, "open_binary", { occurrence_id: newOccurrences.get(LIBJQ).occurrence_id });
      const newer = await dossier(client, "jq_compile_args");
      assert.equal(newer.result.procedure.size, await nmSize(newLib, "jq_compile_args"));
      const sameListing = await ok(client, "list_procedures", { limit: 500 });
      assert.equal(sameListing.result.total, procedures.result.total);
      const compared = await ok(client, "compare_functions", {
        left_evidence_id: inMemory.evidence_id,
        right_evidence_id: newer.evidence_id,
      });
      const size = compared.result.dimensions.find((d: Loose) => d.name === "size");
      assert.equal(size.verdict, "different");
      // An occurrence retained from the first package still opens after switching artifacts.
      const back = await ok(client, "open_binary", { occurrence_id: oldEntry.occurrence_id });
      assert.equal(back.result.target.sha256, oldEntry.sha256);
      assert.equal(back.result.action, "switched");
      const again = await ok(client, "open_binary", { occurrence_id: oldEntry.occurrence_id });
      assert.equal(again.result.action, "reopened");

      // Nothing was written beside the packages.
      assert.deepEqual([...Deno.readDirSync(FIXTURES)].map((e) => e.name).sort(), before);
    } finally {
      await close();
      await Deno.remove(extractDir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "open_binary(occurrence_id) refuses links, directories, text, unknown ids and changed artifacts, keeping the open target",
  ignore: !haveFixtures,
  fn: async () => {
    const root = await Deno.makeTempDir();
    const { client, close } = await connect({ roots: [root] });
    try {
      const copy = join(root, "libjq1.deb");
      await Deno.copyFile(NEW, copy);
      const occurrences = await inventory(client, copy);
      const lib = occurrences.get(LIBJQ);
      await ok(client, "open_binary", { occurrence_id: lib.occurrence_id });
      const stillOpen = async () => {
        const status = await ok(client, "binary_session");
        assert.equal(status.result.target.sha256, lib.sha256);
        assert.equal(status.result.target.origin.occurrence_id, lib.occurrence_id);
      };
      // objdump reads by path: it cannot take a member held in memory.
      const session = await ok(client, "binary_session");
      const objdump = session.result.analysis_provider_candidates.find((c: Loose) =>
        c.provider.id === "objdump"
      );
      assert.equal(objdump.target_support.code, "target_kind_unsupported");

      const link = await fails(client, "open_binary", {
        occurrence_id: occurrences.get(`${LIB_DIR}/libjq.so.1`).occurrence_id,
      });
      assert.equal(link.code, "invalid_request");
      assert.match(link.message, /symlink to "libjq\.so\.1\.0\.4"/);
      await stillOpen();
      const directory = await fails(client, "open_binary", {
        occurrence_id: occurrences.get(LIB_DIR).occurrence_id,
      });
      assert.match(directory.message, /is a directory, not a file/);
      await stillOpen();
      const text = await fails(client, "open_binary", {
        occurrence_id: occurrences.get("debian-binary").occurrence_id,
      });
      assert.equal(text.code, "invalid_request");
      assert.match(text.message, /not a supported binary \(/);
      // A member is opened as a binary only: no archive is offered.
      assert.doesNotMatch(text.message, /archive/);
      await stillOpen();
      const unknown = await fails(client, "open_binary", {
        occurrence_id: `occ_${"0".repeat(64)}`,
      });
      assert.match(unknown.message, /not listed by any inventory page retained/);
      const malformed = await fails(client, "open_binary", { occurrence_id: "occ_../../etc" });
      assert.match(malformed.message, /is not an occurrence id/);
      const both = await fails(client, "open_binary", {
        occurrence_id: lib.occurrence_id,
        path: copy,
      });
      assert.match(both.message, /exactly one of path/);
      const neither = await fails(client, "open_binary", {});
      assert.match(neither.message, /exactly one of path/);
      await stillOpen();

      // The artifact changes after its inventory: the member is not read from other bytes.
      await Deno.copyFile(OLD, copy);
      const changed = await fails(client, "open_binary", { occurrence_id: lib.occurrence_id });
      assert.equal(changed.code, "artifact_integrity_mismatch");
      assert.match(changed.message, /changed since it was inventoried/);
      await stillOpen();
      // Gone entirely.
      await Deno.remove(copy);
      const gone = await fails(client, "open_binary", { occurrence_id: lib.occurrence_id });
      assert.equal(gone.code, "target_unavailable");
      await stillOpen();
      assert.deepEqual([...Deno.readDirSync(root)], []);
    } finally {
      await close();
      await Deno.remove(root, { recursive: true });
    }
  },
});
