/**
 * The meta domain: summaries cut at the first sentence within 160
 * characters, workflows narrowed to offered tools, and the edge-type
 * relation table agreeing with the relation inference it documents.
 */

import assert from "node:assert/strict";
import { inferEdgeRelations } from "../src/cloud/model/relations.ts";
import { capabilities, summarize, workflowsFor } from "../src/cloud/meta/capabilities.ts";
import { EDGE_TYPE_RELATIONS, explainAssetType } from "../src/cloud/meta/vocabulary.ts";
import { ASSET_TYPES, EDGE_TYPES, type EdgeType } from "../src/cloud/model/enums.ts";
import type { Asset, Edge } from "../src/cloud/model/records.ts";

Deno.test("summarize() keeps the first sentence and cuts long ones at 160 characters", () => {
  assert.equal(summarize("Do one thing. Then another."), "Do one thing.");
  assert.equal(summarize("Read findings.json files. More."), "Read findings.json files.");
  const long = summarize("word ".repeat(60));
  assert.equal(long.length, 160);
  assert.ok(long.endsWith("…"));
});

Deno.test("workflowsFor() keeps only offered tools and drops empty workflows", () => {
  const flows = workflowsFor(new Set(["workspace_status", "diff_datasets"]));
  assert.deepStrictEqual(flows.map((w) => [w.name, w.steps]), [
    ["orient", ["workspace_status"]],
    ["change_tracking", ["diff_datasets"]],
  ]);
});

Deno.test("capabilities() groups tools by category in declared order", () => {
  const tool = (name: string, category: string) => ({
    name,
    title: name,
    category,
    description: `${name} does things. More detail.`,
    read_only: true,
    open_world: false,
    sensitivity: "public",
    capabilities: [],
  });
  const caps = capabilities([tool("b", "two"), tool("a", "one"), tool("z", "extra")], {
    categories: [{ name: "one", description: "First." }, { name: "two", description: "" }, {
      name: "empty",
      description: "",
    }],
    resourceCount: 1,
    templateCount: 2,
    prompts: ["p"],
  });
  assert.deepStrictEqual(caps.categories.map((c) => c.category), ["one", "two", "extra"]);
  assert.equal(caps.categories[0]!.tools[0]!.summary, "a does things.");
  assert.equal(caps.tool_count, 3);
  assert.equal(caps.not_available.length, 4);
});

Deno.test("EDGE_TYPE_RELATIONS holds every relation inference yields for each edge type", () => {
  const types = ["VPC", "SUBNET", "EC2", "IAM_ROLE", "IAM_USER", "SECURITY_GROUP", "NACL"];
  const assets = new Map<string, Asset>();
  for (const [i, type] of types.entries()) {
    assets.set(type, {
      id: type,
      arn: null,
      name: type,
      asset_type: type as Asset["asset_type"],
      provider: "AWS",
      region: "r",
      account_id: String(i),
      tags: {},
      metadata: {},
      collected_at: "",
      is_internet_exposed: false,
    });
  }
  const sources = [...types, "0.0.0.0/0"];
  for (const edgeType of EDGE_TYPES) {
    for (const source of sources) {
      for (const target of types) {
        for (const cidr of [null, "0.0.0.0/0", "10.0.0.0/8"]) {
          for (const port_range of [null, "22", "0-65535", "8000"]) {
            const edge: Edge = {
              id: "e",
              source_id: source,
              target_id: target,
              edge_type: edgeType as EdgeType,
              ports: [],
              port_range,
              protocol: "tcp",
              cidr,
              direction: "ingress",
              description: null,
              relationship: null,
              properties: {},
            };
            for (const rel of inferEdgeRelations(edge, assets.get(source), assets.get(target))) {
              assert.ok(
                EDGE_TYPE_RELATIONS[edgeType].includes(rel),
                `${edgeType} yields ${rel}`,
              );
            }
          }
        }
      }
    }
  }
});

Deno.test("explainAssetType() weighs crown jewels and exposure for every type", () => {
  for (const type of ASSET_TYPES) {
    const explained = explainAssetType(type);
    assert.ok(explained.crown_jewel_weight >= 0 && explained.crown_jewel_weight <= 10);
    assert.match(explained.ontology_class, /^cm:[A-Z][A-Za-z0-9]*$/);
  }
  assert.equal(explainAssetType("GCS_BUCKET").crown_jewel_weight, 8);
  assert.equal(explainAssetType("CDN").internet_exposure_expected, true);
});
