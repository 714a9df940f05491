import assert from "node:assert/strict";
import { join } from "node:path";
import { sampleRecords } from "../src/cloud/demo/estate.ts";
import {
  DatasetExistsError,
  DatasetNameError,
  InvalidArgumentError,
  NoDatasetError,
  UnknownDatasetError,
} from "../src/cloud/model/errors.ts";
import { emptyRecords } from "../src/cloud/model/records.ts";
import { DERIVED_VIEW_KEYS } from "../src/cloud/workspace/dataset.ts";
import { diffDatasets } from "../src/cloud/workspace/diff.ts";
import { parseDatasetSpec, sanitizeName, uniqueName } from "../src/cloud/workspace/naming.ts";
import { datasetSummary, describeDataset } from "../src/cloud/workspace/summary.ts";
import { Workspace, type WorkspaceEvent } from "../src/cloud/workspace/workspace.ts";
import { demoWorkspace } from "./helpers/cloud_estate.ts";
import { withTempDir } from "./helpers/temp_dir.ts";

function recording(workspace: Workspace): WorkspaceEvent[] {
  const events: WorkspaceEvent[] = [];
  workspace.onChange((e) => events.push(e));
  return events;
}

function snapshotOf(workspace: Workspace): string {
  return JSON.stringify({ names: workspace.names(), active: workspace.activeName });
}

Deno.test("Workspace.add() refuses names that break the rule, with data.value", () => {
  const workspace = new Workspace();
  for (const bad of ["", "has space", "x".repeat(65), "a/b", "é", "../up"]) {
    assert.throws(() => workspace.add(bad, emptyRecords()), (e: unknown) => {
      assert.ok(e instanceof DatasetNameError);
      assert.equal(e.data.value, bad);
      assert.ok(!e.message.includes(bad) || bad === "");
      return true;
    });
  }
  assert.equal(workspace.size, 0);
  workspace.add("A-z_0.9", emptyRecords());
  assert.deepEqual(workspace.names(), ["A-z_0.9"]);
});

Deno.test("Workspace.add() refuses a clash without replace, suggesting a free name", () => {
  const workspace = new Workspace();
  workspace.add("prod", emptyRecords());
  workspace.add("prod-2", emptyRecords());
  const first = workspace.dataset("prod");
  assert.throws(() => workspace.add("prod", sampleRecords()), (e: unknown) => {
    assert.ok(e instanceof DatasetExistsError);
    assert.deepEqual([e.data.existing, e.data.suggested], ["prod", "prod-3"]);
    return true;
  });
  assert.equal(workspace.dataset("prod"), first);
  const replaced = workspace.add("prod", sampleRecords(), { replace: true });
  assert.equal(replaced.replaced, true);
  assert.deepEqual(workspace.names(), ["prod", "prod-2"]);
  assert.equal(workspace.dataset("prod").records.assets.length, 44);
});

Deno.test("Workspace evicts the oldest non-active dataset beyond 16", () => {
  const workspace = new Workspace();
  for (let i = 1; i <= 16; i++) workspace.add(`d${i}`, emptyRecords(), { activate: i === 1 });
  assert.equal(workspace.activeName, "d1");
  const outcome = workspace.add("d17", emptyRecords(), { activate: false });
  assert.deepEqual(outcome.evicted, ["d2"]);
  assert.equal(workspace.size, 16);
  assert.ok(workspace.has("d1") && !workspace.has("d2"));
  const next = workspace.add("d18", emptyRecords());
  assert.deepEqual(next.evicted, ["d3"]);
  assert.equal(workspace.activeName, "d18");
});

Deno.test("Workspace active rules: add, select, and removal falls back to the newest", () => {
  const workspace = new Workspace();
  workspace.add("a", emptyRecords());
  workspace.add("b", emptyRecords(), { activate: false });
  assert.equal(workspace.activeName, "a");
  workspace.add("c", emptyRecords(), { activate: false });
  workspace.select("b");
  assert.equal(workspace.dataset().name, "b");
  assert.equal(workspace.remove("b").active_dataset, "c");
  assert.equal(workspace.remove("c").active_dataset, "a");
  assert.equal(workspace.remove("a").active_dataset, null);
  assert.throws(() => workspace.dataset(), NoDatasetError);
});

Deno.test("Workspace.dataset() unknown name lists the datasets in data, not the message", () => {
  const workspace = demoWorkspace();
  assert.throws(() => workspace.dataset("nope-secret"), (e: unknown) => {
    assert.ok(e instanceof UnknownDatasetError);
    assert.equal(e.data.value, "nope-secret");
    assert.deepEqual(e.data.datasets, [{ dataset: "sample" }, { dataset: "after" }]);
    assert.ok(!e.message.includes("nope-secret"));
    return true;
  });
  assert.throws(() => workspace.select(""), InvalidArgumentError);
});

Deno.test("Workspace events follow the add/select/mutate/remove rules", () => {
  const workspace = new Workspace();
  const events = recording(workspace);
  const updates = (name: string): WorkspaceEvent[] => [
    { type: "updated", uri: "cloudg://workspace" },
    { type: "updated", uri: "cloudg://datasets" },
    { type: "updated", uri: `cloudg://datasets/${name}/summary` },
  ];
  workspace.add("sample", sampleRecords());
  assert.deepEqual(events.splice(0), [{ type: "list_changed" }, ...updates("sample")]);
  workspace.add("sample", sampleRecords(), { replace: true });
  assert.deepEqual(events.splice(0), updates("sample"));
  workspace.select("sample");
  assert.deepEqual(events.splice(0), updates("sample"));
  workspace.suppress(["f-ssh-open"], "compensating control in place");
  assert.deepEqual(events.splice(0), updates("sample"));
  workspace.suppress(["f-ssh-open"], "again, nothing changes");
  assert.deepEqual(events.splice(0), []);
  workspace.remove("sample");
  assert.deepEqual(events.splice(0), [
    { type: "list_changed" },
    { type: "updated", uri: "cloudg://workspace" },
    { type: "updated", uri: "cloudg://datasets" },
  ]);
});

Deno.test("Dataset caches derived views per version and drops them on mutation", () => {
  const workspace = demoWorkspace();
  const dataset = workspace.dataset("sample");
  let builds = 0;
  const build = (): number => ++builds;
  assert.equal(dataset.derived(DERIVED_VIEW_KEYS.graph, build), 1);
  assert.equal(dataset.derived(DERIVED_VIEW_KEYS.graph, build), 1);
  assert.equal(describeDataset(dataset).cached.graph, true);
  const version = dataset.version;
  const outcome = workspace.suppress(["f-ssh-open", "f-versioning", "missing"], "accepted risk");
  assert.deepEqual(outcome, {
    suppressed: ["f-ssh-open"],
    already_suppressed: ["f-versioning"],
    not_found: ["missing"],
  });
  assert.equal(dataset.version, version + 1);
  assert.equal(describeDataset(dataset).cached.graph, false);
  assert.equal(dataset.derived(DERIVED_VIEW_KEYS.graph, build), 2);
  assert.equal(dataset.records.suppression_reasons["f-ssh-open"], "accepted risk");
  assert.equal(datasetSummary(dataset).open_findings, 10);
  assert.deepEqual(workspace.unsuppress(["f-ssh-open", "web-1"]), {
    unsuppressed: ["f-ssh-open"],
    not_suppressed: [],
    not_found: ["web-1"],
  });
  assert.equal(datasetSummary(dataset).open_findings, 11);
  assert.equal(dataset.records.suppression_reasons["f-ssh-open"], undefined);
  assert.throws(() => workspace.suppress(["f-ghost"], "no"), InvalidArgumentError);
  assert.throws(() => workspace.suppress([], "a reason"), InvalidArgumentError);
});

Deno.test("Workspace datasets get distinct random instance ids per load", () => {
  const workspace = new Workspace();
  workspace.add("x", emptyRecords());
  const first = workspace.dataset("x").instanceId;
  workspace.add("x", emptyRecords(), { replace: true });
  assert.notEqual(workspace.dataset("x").instanceId, first);
  assert.match(first, /^[0-9a-f]{16}$/);
});

Deno.test("Workspace.snapshot() deep-copies, is not activated, and diff sees no change", () => {
  const workspace = demoWorkspace();
  const snap = workspace.snapshot("before");
  assert.equal(workspace.activeName, "sample");
  assert.equal(snap.kind, "snapshot");
  assert.equal(snap.source, "snapshot of sample");
  assert.equal(snap.metadata["snapshot_of"], "sample");
  assert.equal(snap.version, 0);
  workspace.suppress(["f-ssh-open"], "accepted for the test");
  assert.equal(snap.records.findings.find((f) => f.id === "f-ssh-open")?.is_suppressed, false);
  assert.deepEqual(snap.records.suppression_reasons, {
    "f-versioning": "Accepted risk: the bucket is replicated nightly to a versioned copy.",
  });
  assert.throws(() => workspace.snapshot("after"), DatasetExistsError);
  const diff = diffDatasets(snap, workspace.dataset("sample"));
  assert.equal(diff.assets.unchanged, 44);
  assert.equal(diff.edges.added.count + diff.edges.removed.count, 0);
});

Deno.test("diffDatasets() sample → after: the WAF and its PROTECTS edge are removed", () => {
  const workspace = demoWorkspace();
  const diff = diffDatasets(workspace.dataset("sample"), workspace.dataset("after"));
  assert.equal(diff.base, "sample");
  assert.equal(diff.target, "after");
  assert.equal(diff.assets.removed.count, 1);
  assert.equal(diff.assets.removed.items[0]?.name, "web-acl");
  assert.match(diff.assets.removed.items[0]!.key, /^arn:aws:wafv2:/);
  assert.equal(diff.assets.added.count, 0);
  assert.equal(diff.assets.changed.count, 0);
  assert.equal(diff.assets.unchanged, 43);
  assert.deepEqual(diff.edges.removed.items, [{
    source: diff.assets.removed.items[0]!.key,
    target: "arn:aws:elasticloadbalancing:us-east-1:111111111111:loadbalancer/app/web-alb/" +
      "5f1c0d3e2b4a6978",
    edge_type: "PROTECTS",
    relationship: "",
  }]);
  assert.equal(diff.edges.added.count, 0);
  assert.equal(diff.findings.new.count + diff.findings.resolved.count, 0);
  assert.equal(diff.newly_internet_exposed.count, 0);
});

Deno.test("diffDatasets() reports changed fields, exposure, new and resolved findings", () => {
  const workspace = new Workspace();
  const base = sampleRecords();
  const target = sampleRecords();
  const db = target.assets.find((a) => a.id === "orders-db")!;
  db.is_internet_exposed = true;
  db.tags["env"] = "staging";
  target.findings = target.findings.filter((f) => f.id !== "f-db-backup");
  target.findings.find((f) => f.id === "f-ghost")!.severity = "HIGH";
  workspace.add("base", base);
  workspace.add("target", target);
  const diff = diffDatasets(workspace.dataset("base"), workspace.dataset("target"), { limit: 1 });
  assert.deepEqual(diff.assets.changed.items[0]?.changed_fields, ["internet_exposed", "tags"]);
  assert.deepEqual(diff.assets.changed.items[0]?.internet_exposed, { before: false, after: true });
  assert.equal(diff.newly_internet_exposed.items[0]?.id, "orders-db");
  assert.equal(diff.findings.resolved.items[0]?.id, "f-db-backup");
  assert.equal(diff.findings.severity_changed.items[0]?.severity_before, "LOW");
  assert.equal(diff.findings.severity_changed.items[0]?.resource, "arn:aws:s3:::ghost-bucket");
  assert.throws(
    () => diffDatasets(workspace.dataset("base"), workspace.dataset("target"), { limit: 501 }),
    InvalidArgumentError,
  );
});

Deno.test("naming helpers: sanitise and unique-ify default names", () => {
  assert.equal(sanitizeName("my estate (prod)!"), "my-estate-prod");
  assert.equal(sanitizeName("////"), "dataset");
  assert.equal(sanitizeName("x".repeat(80)).length, 48);
  const taken = new Set(["inv", "inv-2"]);
  assert.equal(uniqueName("inv", (n) => taken.has(n)), "inv-3");
  assert.deepEqual(parseDatasetSpec("prod=/data/inv"), { name: "prod", path: "/data/inv" });
  assert.deepEqual(parseDatasetSpec("/data/a=b.json"), { path: "/data/a=b.json" });
  assert.deepEqual(parseDatasetSpec("prod="), { path: "prod=" });
  // A kind prefix: a lower-case word (hyphens between parts) and a colon.
  assert.deepEqual(parseDatasetSpec("terraform-plan:p=/x/plan.json"), {
    kind: "terraform-plan",
    name: "p",
    path: "/x/plan.json",
  });
  assert.deepEqual(parseDatasetSpec("trivy:./t.json"), { kind: "trivy", path: "./t.json" });
  // Not kinds: a drive letter, a URL-like scheme, an upper-case word, nothing after the colon.
  for (const spec of ["C:/data/x.json", "file:///data/x.json", "Prod:x.json", "trivy:"]) {
    assert.equal(parseDatasetSpec(spec).kind, undefined, spec);
  }
});

Deno.test("Workspace.load() through the fence; a failed load leaves it unchanged", async () => {
  await withTempDir(async (dir) => {
    const root = join(dir, "root");
    await Deno.mkdir(root);
    const outside = join(dir, "outside.json");
    await Deno.writeTextFile(outside, JSON.stringify({ assets: [], edges: [], findings: [] }));
    await Deno.writeTextFile(join(root, "bad.json"), '{"assets": [');
    await Deno.writeTextFile(
      join(root, "estate one.json"),
      JSON.stringify({ assets: [{ id: "a", name: "a", asset_type: "EC2", provider: "AWS" }] }),
    );
    const fence = async (path: string): Promise<string> => {
      const real = await Deno.realPath(path);
      if (!real.startsWith(await Deno.realPath(root) + "/")) {
        throw new InvalidArgumentError("The path is outside the allowed roots.");
      }
      return real;
    };
    const workspace = new Workspace({ fence });
    workspace.add("keep", emptyRecords());
    const events = recording(workspace);
    const before = snapshotOf(workspace);
    await assert.rejects(() => workspace.load(outside), /outside the allowed roots/);
    await Deno.symlink(outside, join(root, "link.json"));
    await assert.rejects(() => workspace.load(join(root, "link.json")), /outside/);
    await assert.rejects(() => workspace.load(join(root, "bad.json")), /bad\.json/);
    await assert.rejects(
      () => workspace.load(join(root, "estate one.json"), { name: "keep" }),
      DatasetExistsError,
    );
    await assert.rejects(
      () => workspace.load(join(root, "estate one.json"), { name: "bad name" }),
      DatasetNameError,
    );
    await assert.rejects(
      () => workspace.load(join(root, "estate one.json"), { kind: "nessus" }),
      (e: unknown) => {
        assert.ok(e instanceof InvalidArgumentError);
        assert.deepEqual(e.data.close_matches, []);
        return true;
      },
    );
    assert.equal(snapshotOf(workspace), before);
    assert.deepEqual(events, []);
    const loaded = await workspace.load(join(root, "estate one.json"));
    assert.equal(loaded.dataset.name, "estate-one");
    assert.equal(loaded.dataset.kind, "generic");
    assert.equal(workspace.activeName, "estate-one");
    const again = await workspace.load(join(root, "estate one.json"), { activate: false });
    assert.equal(again.dataset.name, "estate-one-2");
    assert.equal(workspace.activeName, "estate-one");
  });
});
