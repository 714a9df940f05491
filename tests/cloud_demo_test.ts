import assert from "node:assert/strict";
import { afterRecords, DEMO_TIMESTAMP, sampleRecords } from "../src/cloud/demo/estate.ts";
import { EDGE_TYPE_INFO } from "../src/cloud/model/enums.ts";
import { riskScore, roundHalfEven } from "../src/cloud/model/records.ts";
import type { DatasetView } from "../src/cloud/model/view.ts";
import { datasetSummary } from "../src/cloud/workspace/summary.ts";
import { demoWorkspace } from "./helpers/cloud_estate.ts";

Deno.test("sampleRecords() has 44 assets, 56 edges, 12 findings, 8 compliance results", () => {
  const r = sampleRecords();
  assert.equal(r.assets.length, 44);
  assert.equal(r.edges.length, 56);
  assert.equal(r.findings.length, 12);
  assert.equal(r.compliance.length, 8);
  assert.equal(r.unresolved_references.length, 1);
  assert.equal(r.coverage.length, 1);
  assert.equal(new Set(r.assets.map((a) => a.id)).size, 44);
  assert.equal(new Set(r.edges.map((e) => e.id)).size, 56);
  assert.ok(r.assets.every((a) => a.collected_at === DEMO_TIMESTAMP));
  const ids = new Set(r.assets.map((a) => a.id));
  for (const e of r.edges) {
    assert.ok(ids.has(e.source_id) || e.source_id === "0.0.0.0/0", e.id);
    assert.ok(ids.has(e.target_id), e.id);
  }
});

Deno.test("loadDemo() sample summary holds the documented figures", () => {
  const workspace = demoWorkspace();
  assert.equal(workspace.activeName, "sample");
  const s = datasetSummary(workspace.dataset("sample"));
  assert.equal(s.open_findings, 11);
  assert.equal(s.suppressed_findings, 1);
  assert.deepEqual(s.severity_breakdown, { CRITICAL: 2, HIGH: 5, MEDIUM: 2, LOW: 1, INFO: 1 });
  assert.equal(s.internet_exposed, 6);
  assert.equal(s.cross_account_edges, 3);
  assert.deepEqual(s.assets_by_provider, { AWS: 36, AZURE: 5, GCP: 3 });
  assert.deepEqual(s.compliance_frameworks, [
    "CIS-AWS",
    "CIS-Azure",
    "CIS-GCP",
    "NIST-800-53",
    "PCI-DSS",
  ]);
  assert.equal(s.has_organization, true);
  assert.equal(s.organization?.id, "o-sample");
  assert.equal(s.unresolved_references, 1);
  assert.equal(s.coverage_records, 1);
  assert.equal(s.accounts, 5);
});

Deno.test("loadDemo() f-ghost maps to no asset, every other finding maps", () => {
  const view = demoWorkspace().dataset("sample");
  for (const finding of view.records.findings) {
    const asset = view.findingAsset(finding);
    if (finding.id === "f-ghost") assert.equal(asset, undefined);
    else assert.ok(asset, finding.id);
  }
  const cve = view.records.findings.find((f) => f.id === "f-web-cve")!;
  assert.equal(view.findingAsset(cve)?.id, "web-1");
  assert.equal(riskScore(cve), 7.8);
  assert.equal(view.records.findings.find((f) => f.id === "f-versioning")?.is_suppressed, true);
});

Deno.test("loadDemo() web-1 has five edges; after lacks the WAF and its edge", () => {
  const workspace = demoWorkspace();
  const edges = workspace.dataset("sample").records.edges;
  assert.equal(edges.filter((e) => e.source_id === "web-1" || e.target_id === "web-1").length, 5);
  const after = afterRecords();
  assert.equal(after.assets.length, 43);
  assert.equal(after.edges.length, 55);
  assert.ok(!after.assets.some((a) => a.name === "web-acl"));
});

// top_risks as §5.5 states it, written out plainly: max open finding risk ×
// exposure (1.5 when flagged exposed) × blast (1 + min(1, log10(1 + d) / 2), d =
// transitive dependents within depth 6 over the dependency graph) × volume
// (1 + min(0.5, 0.05 × (open − 1))), rounded half-even to 2 decimals.
function topRisks(view: DatasetView, allExposed = false): { id: string; score: number }[] {
  const dependentsOf = new Map<string, Set<string>>();
  const add = (dependency: string, dependent: string): void => {
    if (!dependentsOf.has(dependency)) dependentsOf.set(dependency, new Set());
    dependentsOf.get(dependency)!.add(dependent);
  };
  for (const e of view.records.edges) {
    const direction = EDGE_TYPE_INFO[e.edge_type].dependency;
    if (direction === "forward") add(e.target_id, e.source_id);
    if (direction === "reverse") add(e.source_id, e.target_id);
  }
  const transitive = (id: string): number => {
    const seen = new Set<string>([id]);
    let frontier = [id];
    for (let depth = 0; depth < 6; depth++) {
      const next: string[] = [];
      for (const node of frontier) {
        for (const d of dependentsOf.get(node) ?? []) {
          if (!seen.has(d)) {
            seen.add(d);
            next.push(d);
          }
        }
      }
      frontier = next;
    }
    return seen.size - 1;
  };
  const scores: { id: string; score: number }[] = [];
  for (const asset of view.records.assets) {
    const open = view.findingsFor(asset.id).filter((f) => !f.is_suppressed);
    if (open.length === 0) continue;
    const maxRisk = Math.max(...open.map(riskScore));
    const exposure = asset.is_internet_exposed || allExposed ? 1.5 : 1.0;
    const blast = 1 + Math.min(1, Math.log10(1 + transitive(asset.id)) / 2);
    const volume = 1 + Math.min(0.5, 0.05 * (open.length - 1));
    scores.push({ id: asset.id, score: roundHalfEven(maxRisk * exposure * blast * volume, 2) });
  }
  return scores.sort((a, b) => b.score - a.score);
}

Deno.test("sample estate: top risks are az-nsg and sg-admin tied at 16.39", () => {
  const ranked = topRisks(demoWorkspace().dataset("sample"));
  assert.deepEqual(ranked.slice(0, 2).map((r) => r.score), [16.39, 16.39]);
  assert.deepEqual(ranked.slice(0, 2).map((r) => r.id).sort(), ["az-nsg", "sg-admin"]);
  // Even if every asset counted as internet-reachable, nothing else would reach the tie.
  const worst = topRisks(demoWorkspace().dataset("sample"), true);
  assert.deepEqual(worst.filter((r) => r.score >= 16.39).map((r) => r.id).sort(), [
    "az-nsg",
    "sg-admin",
  ]);
});
