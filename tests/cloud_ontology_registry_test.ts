import assert from "node:assert/strict";
import { sampleRecords } from "../src/cloud/demo/estate.ts";
import { OntologyWorkerError } from "../src/cloud/ontology/errors.ts";
import {
  closeOntologies,
  OntologyRegistry,
  ontologyRegistryOf,
} from "../src/cloud/ontology/registry.ts";
import { demoWorkspace } from "./helpers/cloud_estate.ts";

const COUNT = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }";

Deno.test("OntologyRegistry.engineFor() keeps one engine per dataset load and replaces it on reload", () => {
  const registry = new OntologyRegistry({ isolation: "inline" });
  try {
    const a = { name: "a", version: 0, instanceId: "i1" };
    const first = registry.engineFor(a);
    assert.equal(registry.engineFor(a), first, "same load: same engine");
    assert.equal(registry.engineFor({ ...a, version: 3 }), first, "a new version: same engine");
    const other = registry.engineFor({ name: "b", version: 0, instanceId: "i2" });
    assert.notEqual(other, first);
    assert.equal(registry.size, 2);
    const reloaded = registry.engineFor({ ...a, instanceId: "i3" });
    assert.notEqual(reloaded, first, "a reload under the same name gets a fresh engine");
    assert.equal(registry.size, 2);
  } finally {
    registry.close();
  }
  assert.equal(registry.size, 0);
  assert.throws(
    () => registry.engineFor({ name: "a", version: 0, instanceId: "i1" }),
    /closed/,
  );
});

Deno.test("OntologyRegistry.prune() closes engines of datasets gone, reloaded or changed", async () => {
  const registry = new OntologyRegistry({ isolation: "inline" });
  try {
    const kept = { name: "kept", version: 1, instanceId: "k" };
    const keptEngine = registry.engineFor(kept);
    const goneEngine = registry.engineFor({ name: "gone", version: 0, instanceId: "g" });
    registry.engineFor({ name: "reloaded", version: 0, instanceId: "r1" });
    registry.engineFor({ name: "changed", version: 0, instanceId: "c" });
    const now: Record<string, typeof kept> = {
      kept,
      reloaded: { name: "reloaded", version: 0, instanceId: "r2" },
      changed: { name: "changed", version: 1, instanceId: "c" },
    };
    const dropped = registry.prune((name) => now[name] ?? null);
    assert.deepEqual(dropped.sort(), ["changed", "gone", "reloaded"]);
    assert.equal(registry.size, 1);
    assert.equal(registry.engineFor(kept), keptEngine);
    await assert.rejects(goneEngine.stats(), OntologyWorkerError);
  } finally {
    registry.close();
  }
});

Deno.test("ontologyRegistryOf() follows the workspace: unload, reload and changes close the engine", async () => {
  const workspace = demoWorkspace();
  const registry = ontologyRegistryOf(workspace);
  try {
    assert.equal(ontologyRegistryOf(workspace), registry, "one registry per workspace");
    const sample = registry.engineFor(workspace.dataset("sample"));
    await sample.ensureView(workspace.dataset("sample"));
    const after = registry.engineFor(workspace.dataset("after"));
    await after.ensureView(workspace.dataset("after"));
    assert.equal(registry.size, 2);

    workspace.remove("after");
    assert.equal(registry.size, 1, "unloading a dataset closes its engine");
    await assert.rejects(after.query(COUNT), OntologyWorkerError);

    // A change in place (a new version) closes the engine; the next one builds afresh.
    workspace.mutate("sample", (records) => {
      records.findings.pop();
      return { changed: true, result: null };
    });
    assert.equal(registry.size, 0);
    await assert.rejects(sample.stats(), OntologyWorkerError);
    const rebuilt = registry.engineFor(workspace.dataset("sample"));
    const report = await rebuilt.ensureView(workspace.dataset("sample"));
    assert.equal(report.built_now, true);

    // Reloading under the same name (a new load instance) closes it too.
    workspace.add("sample", sampleRecords(), { replace: true });
    assert.equal(registry.size, 0);
    await assert.rejects(rebuilt.stats(), OntologyWorkerError);
  } finally {
    closeOntologies(workspace);
  }
  assert.equal(registry.closed, true);
  assert.equal(registry.size, 0);
  assert.notEqual(ontologyRegistryOf(workspace), registry, "a closed registry is not reused");
  closeOntologies(workspace);
});

Deno.test("closeOntologies() stops the engines still running", async () => {
  const workspace = demoWorkspace();
  const engine = ontologyRegistryOf(workspace).engineFor(workspace.dataset("sample"));
  await engine.ensureView(workspace.dataset("sample"));
  assert.equal(engine.isolated, true);
  const answered = await engine.query(COUNT);
  assert.equal(answered.kind, "select");
  closeOntologies(workspace);
  await assert.rejects(engine.query(COUNT), /closed/);
});
