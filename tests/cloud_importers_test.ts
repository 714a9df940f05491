import assert from "node:assert/strict";
import { join } from "node:path";
import { sampleRecords } from "../src/cloud/demo/estate.ts";
import { d3Link } from "../src/cloud/graph/exports.ts";
import { edgeAttributes } from "../src/cloud/graph/relationship_graph.ts";
import { ImporterRegistry, loadInput } from "../src/cloud/importers/detect.ts";
import { emptyNotes, type Importer } from "../src/cloud/importers/importer.ts";
import { parseFinding } from "../src/cloud/importers/parse_records.ts";
import { MAX_INPUT_BYTES } from "../src/cloud/importers/read.ts";
import { LoadError } from "../src/cloud/model/errors.ts";
import { emptyRecords } from "../src/cloud/model/records.ts";
import { withTempDir } from "./helpers/temp_dir.ts";

const fence = (path: string): Promise<string> => Deno.realPath(path);

async function withDir(run: (dir: string) => Promise<void>): Promise<void> {
  await withTempDir(async (dir) => {
    await run(dir);
  }, { prefix: "cloud-import-" });
}

function inventoryDocument(): Record<string, unknown> {
  const r = sampleRecords();
  return {
    summary: { total_assets: r.assets.length },
    providers: r.providers,
    regions: r.regions,
    assets: r.assets.map((a) => ({ ...a, display_id: a.arn ?? a.id })),
    edges: r.edges,
    unresolved_references: r.unresolved_references,
    organization: r.organization,
  };
}

function reportDocument(): Record<string, unknown> {
  const r = sampleRecords();
  return {
    metadata: { scan_id: "scan-1", provider: "aws", started_at: "2026-01-15T12:00:00Z" },
    summary: { total_findings: r.findings.length },
    assets: r.assets,
    findings: r.findings.map((f) => ({ ...f, risk_score: 99 })),
    compliance: r.compliance,
    graph: {
      nodes: r.assets.map((a) => ({ id: a.id, name: a.name })),
      links: [
        ...r.edges.map((e) => ({
          ...d3Link(e.source_id, e.target_id, edgeAttributes(e)),
          relationship: "",
        })),
        { source: "web-1", target: "web-2", type: "TELEPATHY" },
        { source: "web-1", type: "ROUTE" },
      ],
    },
  };
}

Deno.test("loadInput() reads an inventory directory and merges findings.json beside it", async () => {
  await withDir(async (dir) => {
    const inv = join(dir, "prod-estate");
    await Deno.mkdir(inv);
    await Deno.writeTextFile(join(inv, "inventory-map.json"), JSON.stringify(inventoryDocument()));
    const report = reportDocument();
    delete report["graph"];
    await Deno.writeTextFile(join(inv, "findings.json"), JSON.stringify(report));
    const loaded = await loadInput(inv, { fence });
    assert.equal(loaded.kind, "inventory");
    assert.equal(loaded.defaultName, "prod-estate");
    assert.equal(loaded.records.assets.length, 44);
    assert.equal(loaded.records.edges.length, 56);
    // The twelve of findings.json, then the three our rule set adds on every load.
    assert.equal(loaded.records.findings.length, 15);
    assert.deepEqual(loaded.records.findings.slice(12).map((f) => f.id), [
      "f-bucket-no-public-access-block:logs-bucket",
      "f-kms-rotation-disabled:kms-main",
      "f-vpc-flow-logs-disabled:vpc-prod",
    ]);
    assert.equal(loaded.notes.rule_findings, 3);
    assert.equal(loaded.records.compliance.filter((c) => c.id.startsWith("cr-")).length, 8);
    assert.equal(
      loaded.metadata["findings_source"],
      await Deno.realPath(join(inv, "findings.json")),
    );
    assert.deepEqual(loaded.records.assets[0], sampleRecords().assets[0]);
    // The file itself: the default name is its directory's.
    const file = await loadInput(join(inv, "inventory-map.json"), { fence });
    assert.equal(file.kind, "inventory");
    assert.equal(file.defaultName, "prod-estate");
    assert.equal(file.records.findings.length, 15);
  });
});

Deno.test("loadInput() rebuilds report edges from D3 links, dropping unknown types", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "findings.json");
    await Deno.writeTextFile(path, JSON.stringify(reportDocument()));
    const loaded = await loadInput(path, { fence });
    assert.equal(loaded.kind, "report");
    assert.equal(loaded.defaultName, "findings");
    assert.equal(loaded.records.edges.length, 56);
    assert.deepEqual(loaded.notes.unknown_edge_types, { TELEPATHY: 1 });
    const ssh = loaded.records.edges.find((e) => e.target_id === "sg-admin" && e.cidr);
    assert.deepEqual([ssh?.edge_type, ssh?.port_range, ssh?.relationship], [
      "SECURITY_GROUP_RULE",
      "22",
      null,
    ]);
    assert.equal(loaded.metadata["report"] !== undefined, true);
    const dirLoad = await loadInput(dir, { fence });
    assert.equal(dirLoad.kind, "report");
    assert.equal(dirLoad.records.findings.length, 15);
  });
});

Deno.test("loadInput() reads generic JSON: an object, or a list of findings", async () => {
  await withDir(async (dir) => {
    const object = join(dir, "estate.json");
    await Deno.writeTextFile(
      object,
      JSON.stringify({
        assets: [
          { id: "a1", name: "thing", asset_type: "quantum_computer", provider: "aws" },
          { id: "a2", asset_type: "Quantum Computer", provider: "GCP" },
          { id: "a3", asset_type: "lambda-function", provider: "AZURE" },
        ],
        edges: [{ source_id: "a1", target_id: "a2", edge_type: "references" }],
      }),
    );
    const loaded = await loadInput(object, { fence });
    assert.equal(loaded.kind, "generic");
    assert.deepEqual(loaded.records.assets.map((a) => a.asset_type), [
      "OTHER",
      "OTHER",
      "LAMBDA_FUNCTION",
    ]);
    assert.deepEqual(loaded.notes.unknown_asset_types, {
      quantum_computer: 1,
      "Quantum Computer": 1,
    });
    assert.equal(loaded.records.assets[0]!.metadata["source_asset_type"], "quantum_computer");
    assert.equal(loaded.records.assets[1]!.name, "a2");
    assert.deepEqual(loaded.records.providers, ["AWS", "AZURE", "GCP"]);
    assert.equal(loaded.records.edges[0]!.edge_type, "REFERENCES");
    const list = join(dir, "list.json");
    await Deno.writeTextFile(
      list,
      JSON.stringify([{ id: "f1", resource_id: "x", severity: "high", title: "t" }]),
    );
    const findings = await loadInput(list, { fence });
    assert.equal(findings.kind, "generic");
    assert.equal(findings.records.findings[0]!.severity, "HIGH");
  });
});

Deno.test("loadInput() names the file and position of malformed or truncated JSON", async () => {
  await withDir(async (dir) => {
    const truncated = join(dir, "cut.json");
    await Deno.writeTextFile(truncated, '{\n  "assets": [\n    {"id": "a"');
    await assert.rejects(() => loadInput(truncated, { fence }), (e: unknown) => {
      assert.ok(e instanceof LoadError);
      assert.match(e.message, /cut\.json/);
      assert.match(e.message, /truncated/);
      assert.deepEqual([e.data.line, e.data.file], [3, "cut.json"]);
      return true;
    });
    const broken = join(dir, "broken.json");
    await Deno.writeTextFile(broken, '{"assets": [1,, 2]}');
    await assert.rejects(() => loadInput(broken, { fence, kind: "generic" }), (e: unknown) => {
      assert.ok(e instanceof LoadError);
      assert.match(e.message, /broken\.json: the text is not valid JSON at line 1, column 15/);
      return true;
    });
  });
});

Deno.test("loadInput() reports wrong shapes by location and type, never values", async () => {
  await withDir(async (dir) => {
    const cases: [unknown, RegExp][] = [
      [{ assets: "nope", edges: [] }, /assets must be a list/],
      [{ assets: [{ name: "no id", provider: "AWS" }] }, /assets\[0\]\.id must be a string/],
      [{ assets: [{ id: "a", provider: "ORACLE" }] }, /assets\[0\]\.provider must be one of/],
      [
        { findings: [{ id: "f", resource_id: "r", severity: "SEVERE" }] },
        /findings\[0\]\.severity/,
      ],
      [{ findings: [{ id: "f", resource_id: "r", cvss_score: 11 }] }, /cvss_score/],
      [{ findings: [{ id: "f" }] }, /findings\[0\]\.resource_id must be a string/],
      [{ edges: [{ edge_type: "ROUTE", target_id: "b" }] }, /edges\[0\]\.source_id/],
    ];
    for (const [doc, pattern] of cases) {
      const path = join(dir, "shape.json");
      await Deno.writeTextFile(path, JSON.stringify(doc));
      await assert.rejects(() => loadInput(path, { fence }), (e: unknown) => {
        assert.ok(e instanceof LoadError, String(e));
        assert.match(e.message, pattern);
        assert.ok(!/ORACLE|SEVERE|no id/.test(e.message), e.message);
        return true;
      });
    }
  });
});

Deno.test("loadInput() refuses inputs of no known kind, naming the accepted kinds", async () => {
  await withDir(async (dir) => {
    const other = join(dir, "other.json");
    await Deno.writeTextFile(other, JSON.stringify({ hello: "world" }));
    const text = join(dir, "notes.txt");
    await Deno.writeTextFile(text, "just some words\n");
    const empty = join(dir, "empty");
    await Deno.mkdir(empty);
    for (const path of [other, text, empty]) {
      await assert.rejects(() => loadInput(path, { fence }), (e: unknown) => {
        assert.ok(e instanceof LoadError);
        assert.match(e.message, /Accepted kinds: inventory, report, generic, prowler/);
        assert.deepEqual(e.data.valid, new ImporterRegistry().kinds());
        return true;
      });
    }
    await assert.rejects(() => loadInput(join(dir, "missing.json"), { fence }));
  });
});

Deno.test("loadInput() refuses files over the size limit, stating the limit", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "big.json");
    await Deno.writeTextFile(
      path,
      JSON.stringify({ findings: [], pad: "x".repeat(3 * 1024 * 1024) }),
    );
    await assert.rejects(
      () => loadInput(path, { fence, maxBytes: 2 * 1024 * 1024 }),
      (e: unknown) => {
        assert.ok(e instanceof LoadError);
        assert.match(e.message, /refuses input files larger than 2 MiB \(--max-dataset-bytes\)/);
        return true;
      },
    );
    assert.equal(MAX_INPUT_BYTES, 256 * 1024 * 1024);
  });
});

Deno.test("ImporterRegistry slots new importers into the detection table by order", async () => {
  const custom: Importer = {
    kind: "terraform-state",
    description: "test importer",
    detectors: [{
      stage: "json",
      order: 250,
      test: (v) => typeof v === "object" && v !== null && "terraform_version" in v,
    }],
    load: () => Promise.resolve({ records: emptyRecords(), notes: emptyNotes(), metadata: {} }),
  };
  const registry = new ImporterRegistry();
  registry.register(custom);
  assert.throws(() => registry.register(custom), /already registered/);
  assert.deepEqual(registry.kinds(), [...new ImporterRegistry().kinds(), "terraform-state"]);
  await withDir(async (dir) => {
    const path = join(dir, "terraform.tfstate");
    await Deno.writeTextFile(path, JSON.stringify({ version: 4, terraform_version: "1.9.0" }));
    // Order 250 comes before the built-in Terraform state rule.
    const loaded = await loadInput(path, { fence, registry });
    assert.equal(loaded.kind, "terraform-state");
    assert.equal(loaded.defaultName, "terraform");
  });
});

Deno.test("loadInput() with an explicit kind says what a directory lacks", async () => {
  await withDir(async (dir) => {
    for (const kind of ["inventory", "report", "generic"]) {
      await assert.rejects(() => loadInput(dir, { fence, kind }), (e: unknown) => {
        assert.ok(e instanceof LoadError);
        assert.match(e.message, /inventory-map\.json|findings\.json|not a directory/);
        return true;
      });
    }
  });
});

Deno.test("parseFinding() keeps a missing or null detection time null, not an empty string", () => {
  const base = { id: "f-1", resource_id: "a-1", severity: "HIGH", title: "t" };
  assert.equal(parseFinding(base, "findings[0]", 0).detected_at, null);
  assert.equal(parseFinding({ ...base, detected_at: null }, "findings[0]", 0).detected_at, null);
  const at = "2024-03-09T10:15:00.000Z";
  assert.equal(parseFinding({ ...base, detected_at: at }, "findings[0]", 0).detected_at, at);
});
