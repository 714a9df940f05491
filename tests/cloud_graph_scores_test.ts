import { deepStrictEqual, ok, strictEqual } from "node:assert/strict";
import {
  assetRiskScore,
  assetRiskSortKey,
  blastFactor,
  topRisks,
  volumeFactor,
} from "../src/cloud/graph/risk.ts";
import { asset, edge, finding, makeView, miniEstate } from "./helpers/cloud_estate.ts";

Deno.test("topRisks() multiplies worst finding, exposure, blast and volume", () => {
  const out = topRisks(miniEstate());
  deepStrictEqual(out.items.map((r) => [r.asset.id, r.score]), [
    ["web-1", 15.22],
    ["bastion", 14.25],
    ["db", 11.25],
  ]);
  strictEqual(out.total_candidates, 3);
  ok(out.formula.includes("log10"));
  deepStrictEqual(out.items[0]!.components, {
    max_finding_risk: 7.8,
    exposure_factor: 1.5,
    internet_reachable: true,
    transitive_dependents: 2,
    blast_factor: 1.239,
    open_findings: 2,
    volume_factor: 1.05,
  });
  // db is not flagged exposed but the flow graph reaches it from the internet.
  deepStrictEqual(out.items[2]!.components.internet_reachable, true);
  deepStrictEqual(out.items[0]!.top_findings.map((f) => [f.id, f.risk_score]), [
    ["f2", 7.8],
    ["f3", 5],
  ]);
  deepStrictEqual(out.items[0]!.top_findings[0]!.asset_id, "web-1");
  deepStrictEqual(out.items[0]!.top_findings[0]!.uri, "cloudg://findings/f2");
});

Deno.test("topRisks() filters by minimum severity and cuts at top", () => {
  const out = topRisks(miniEstate(), { minSeverity: "CRITICAL", top: 5 });
  deepStrictEqual(out.items.map((r) => r.asset.id), ["bastion"]);
  strictEqual(out.total_candidates, 1);
  const one = topRisks(miniEstate(), { top: 1 });
  deepStrictEqual([one.items.length, one.total_candidates], [1, 3]);
});

Deno.test("topRisks() reproduces the spec's 16.39 for a critical exposed group with one dependent", () => {
  const view = makeView({
    assets: [asset("sg", "SECURITY_GROUP", { is_internet_exposed: true }), asset("vm", "EC2")],
    edges: [edge("a", ["vm", "ATTACHED_TO", "sg"])],
    findings: [finding("f", "sg", "CRITICAL")],
  });
  strictEqual(topRisks(view).items[0]!.score, 16.39);
});

Deno.test("topRisks() saturates the blast factor and still counts every dependent", () => {
  const n = 250;
  const view = makeView({
    assets: [
      asset("key", "KMS_KEY"),
      ...Array.from({ length: n }, (_, i) => asset(`b${i}`, "S3_BUCKET")),
    ],
    edges: Array.from({ length: n }, (_, i) => edge(`e${i}`, [`b${i}`, "REFERENCES", "key"])),
    findings: [finding("f", "key", "HIGH")],
  });
  const row = topRisks(view).items[0]!;
  strictEqual(row.components.transitive_dependents, n);
  strictEqual(row.components.blast_factor, 2);
  strictEqual(row.score, 15);
});

Deno.test("blastFactor(), volumeFactor() and assetRiskScore() follow the formula", () => {
  strictEqual(blastFactor(0), 1);
  strictEqual(blastFactor(99), 2);
  strictEqual(blastFactor(10_000), 2);
  strictEqual(volumeFactor(1), 1);
  strictEqual(volumeFactor(11), 1.5);
  strictEqual(volumeFactor(40), 1.5);
  strictEqual(assetRiskScore(5, { exposed: false, dependents: 0, open: 3 }), 5.5);
});

Deno.test("assetRiskSortKey() is worst open risk plus 2 when exposed, then open count", () => {
  const view = miniEstate();
  deepStrictEqual(assetRiskSortKey(view, view.asset("bastion")!), [11.5, 1]);
  deepStrictEqual(assetRiskSortKey(view, view.asset("web-1")!), [9.8, 2]);
  deepStrictEqual(assetRiskSortKey(view, view.asset("bucket")!), [0, 0]);
  deepStrictEqual(assetRiskSortKey(view, view.asset("alb")!), [2, 0]);
});

Deno.test("topRisks() scores candidates once per dataset version and severity floor", () => {
  const view = miniEstate();
  topRisks(view);
  topRisks(view, { top: 1 });
  topRisks(view, { minSeverity: "HIGH" });
  strictEqual(view.builds.get("graph:risk_candidates:*"), 1);
  strictEqual(view.builds.get("graph:risk_candidates:HIGH"), 1);
});
