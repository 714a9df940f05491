/**
 * The plain-data parts of REA's contracts: paths through given dossiers,
 * hypothesis evaluation, the stable Evidence parameters and what a call
 * leaves unknown.
 */

import assert from "node:assert/strict";
import { type PathDossier, pathsThroughDossiers } from "../src/apps/analysis/dossier_paths.ts";
import { evaluateHypotheses, type HypothesisMapping } from "../src/apps/capture/hypotheses.ts";
import { stableParameters } from "../src/apps/context/evidence_parameters.ts";
import { leftUnknownsOf } from "../src/apps/context/left_unknowns.ts";

function dossier(address: string, callees: string[], truncated = false): PathDossier {
  return {
    procedure: { address, name: `f${address}` },
    callees: {
      items: callees.map((c) => ({ address: c, name: `f${c}` })),
      total: truncated ? null : callees.length,
      truncated,
    },
  };
}

Deno.test("pathsThroughDossiers() finds every simple path, shortest first, and names its frontiers", () => {
  const found = pathsThroughDossiers(
    [
      dossier("0x10", ["0x20", "0x30"]),
      dossier("0x20", ["0x40"]),
      dossier("0x30", ["0x20", "0x50"], true),
    ],
    "0x10",
    "0x40",
    { maxDepth: 8, maxPaths: 10 },
  );
  assert.deepEqual(
    found.paths.map((p) => p.map((s) => s.address)),
    [["0x10", "0x20", "0x40"], ["0x10", "0x30", "0x20", "0x40"]],
  );
  // Dossier paths follow callees only: every step after the first is a call.
  assert.deepEqual(found.paths[0]!.map((s) => s.via), [undefined, "call", "call"]);
  assert.deepEqual(found.frontiers, [
    { procedure: "0x30", reason: "callees-incomplete" },
    { procedure: "0x50", reason: "no-dossier" },
  ]);
  assert.equal(found.stopped_by, null);
});

Deno.test("pathsThroughDossiers() stops at max_paths and at max_depth", () => {
  const graph = [dossier("0x1", ["0x2", "0x3"]), dossier("0x2", ["0x4"]), dossier("0x3", ["0x4"])];
  const one = pathsThroughDossiers(graph, "0x1", "0x4", { maxDepth: 8, maxPaths: 1 });
  assert.equal(one.paths.length, 1);
  assert.equal(one.stopped_by, "path-limit");
  const shallow = pathsThroughDossiers(graph, "0x1", "0x4", { maxDepth: 1, maxPaths: 10 });
  assert.deepEqual(shallow.paths, []);
  assert.equal(shallow.stopped_by, "depth-limit");
});

Deno.test("evaluateHypotheses() supports, contradicts or leaves unknown each mapping", () => {
  const functions = {
    evidence_id: "ev_static",
    operation: "compare_functions",
    normalized_result: {
      dimensions: [
        { name: "callees", verdict: "different" },
        { name: "size", verdict: "equal" },
        { name: "basic_blocks", verdict: "unknown" },
      ],
    },
  };
  const capture = {
    evidence_id: "ev_runtime",
    operation: "compare_process_captures",
    normalized_result: { exit: "changed", terminal: "unchanged", process: "truncated" },
  };
  const map = (dimension: string, runtime: string, expected: string): HypothesisMapping => ({
    static: { comparison_evidence_id: "ev_static", selector: { kind: "function", dimension } },
    runtime: { comparison_evidence_id: "ev_runtime", dimension: runtime },
    side_alignment: "left_to_left",
    hypothesis: { statement: `${dimension}/${runtime}`, expected_pattern: expected as never },
  });
  const results = evaluateHypotheses([
    map("calls", "exit", "cochanged"),
    map("identity", "exit", "both_unchanged"),
    map("cfg", "exit", "cochanged"),
    map("calls", "process", "cochanged"),
    map("pseudocode", "terminal", "both_unchanged"),
  ], { static: [functions], runtime: [capture] });
  assert.deepEqual(results.map((r) => [r.status, r.observed_pattern]), [
    ["supported", "cochanged"],
    ["contradicted", "runtime_only"],
    ["unknown", null],
    ["unknown", null],
    ["unknown", null],
  ]);
  assert.throws(
    () => evaluateHypotheses([map("calls", "exit", "cochanged")], { static: [], runtime: [] }),
    RangeError,
  );
});

Deno.test("stableParameters() leaves out later arguments at their neutral value and never records the registry opt-in", () => {
  assert.deepEqual(
    stableParameters("search_strings", {
      query: "x",
      pattern: null,
      mode: "literal",
      unknown_registry_approved: true,
    }),
    { query: "x", mode: "literal" },
  );
  assert.deepEqual(
    stableParameters("binary_overview", { document: null, detail: "detailed", limit: 32 }),
    { document: null, detail: "detailed" },
  );
  assert.deepEqual(stableParameters("xrefs", { address: "0x1" }), { address: "0x1" });
});

Deno.test("leftUnknownsOf() grades a call's limitations by the kind of tool", () => {
  const draft = (limitations: string[], result: Record<string, unknown> = {}) => ({
    subject: null,
    provider: { id: "p", name: "p", version: "1" },
    predicate_type: "t",
    operation: "o",
    parameters: {},
    normalized_result: { document: "doc", ...result },
    limitations,
  });
  assert.deepEqual(leftUnknownsOf("build_call_path", draft(["no path within bounds"])), [{
    question: "What did build_call_path on doc leave unknown? no path within bounds",
    domain: "call-path",
    severity: "high",
  }]);
  assert.deepEqual(
    leftUnknownsOf("trace_feature", draft([], { truncated: true })).map((u) => u.severity),
    ["medium"],
  );
  assert.deepEqual(
    leftUnknownsOf("xrefs", draft(["a", "a", "b"])).map((u) => [u.domain, u.severity]),
    [["analysis-capability", "low"], ["analysis-capability", "low"]],
  );
  assert.deepEqual(leftUnknownsOf("xrefs", draft([])), []);
});
