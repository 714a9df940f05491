/**
 * The meta toolset through a real MCP client: the capability overview
 * agrees with what the server lists (and with the policy's visibility), the
 * live collectors are reported as not available, and the vocabulary tools
 * answer from the model's enumerations.
 */

import assert from "node:assert/strict";
import { call, fails, type Loose, withClient } from "./helpers/in_memory.ts";
import { cloudWorkbenchWith } from "../src/cloud/workbench.ts";
import { result, withUnchangedDemo } from "./helpers/cloud_client.ts";
import type { PolicyVisibilityRule } from "../src/core/policy.ts";

Deno.test("list_capabilities lists exactly the tools, resources, templates and prompts served", async () => {
  await withUnchangedDemo(async (client) => {
    const caps = await result(client, "list_capabilities");
    const listed = (await client.listTools()).tools;
    const offered = caps.categories.flatMap((c: Loose) => c.tools.map((t: Loose) => t.name));
    assert.deepStrictEqual([...offered].sort(), listed.map((t) => t.name).sort());
    assert.equal(caps.tool_count, listed.length);
    const categories = caps.categories.map((c: Loose) => c.category);
    assert.deepStrictEqual(categories.slice(0, 2), ["workspace", "inventory"]);
    assert.equal(categories.at(-1), "meta");
    const inventory = caps.categories.find((c: Loose) => c.category === "inventory");
    assert.deepStrictEqual(inventory.tools.map((t: Loose) => t.name), [
      "find_assets",
      "get_asset",
      "get_asset_metadata",
      "count_assets",
      "list_asset_types",
      "list_accounts",
      "list_regions",
      "list_tags",
      "coverage_report",
      "unresolved_references",
      "organization_topology",
    ]);
    for (const tool of listed) {
      const line = caps.categories.flatMap((c: Loose) => c.tools).find((t: Loose) =>
        t.name === tool.name
      );
      assert.equal(line.title, tool.title);
      assert.equal(line.read_only, tool.annotations?.readOnlyHint);
      assert.equal(line.open_world, tool.annotations?.openWorldHint);
      assert.ok(line.summary.length > 0 && line.summary.length <= 160, tool.name);
      assert.ok(
        tool.description!.startsWith(line.summary.replace(/…$/, "")),
        `${tool.name}: the summary starts the description`,
      );
    }
    const unload = caps.categories[0].tools.find((t: Loose) => t.name === "unload_dataset");
    assert.deepStrictEqual(unload.capabilities, ["changes_workspace", "discards_data"]);
    const metadata = inventory.tools.find((t: Loose) => t.name === "get_asset_metadata");
    assert.equal(metadata.sensitivity, "restricted");
    assert.deepStrictEqual(metadata.capabilities, []);
    const { resources } = await client.listResources();
    const statics = [
      "cloudg://workspace",
      "cloudg://datasets",
      "cloudg://findings/summary",
      "cloudg://compliance",
      "cloudg://schema/asset-types",
      "cloudg://schema/edge-types",
      "cloudg://schema/relation-types",
      "cloudg://docs",
      "cloudg://graph/d3",
      "cloudg://ontology/turtle",
    ];
    for (const uri of statics) assert.ok(resources.some((r) => r.uri === uri), uri);
    assert.equal(caps.resource_count, statics.length);
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.equal(
      caps.template_count,
      resourceTemplates.filter((t) => t.uriTemplate.startsWith("cloudg://")).length,
    );
    const { prompts } = await client.listPrompts();
    assert.deepStrictEqual(caps.prompts, prompts.map((p) => p.name));
    assert.equal(caps.prompts.length, 11);
  });
});

Deno.test("list_capabilities reports the live collectors as not available, and why", async () => {
  await withUnchangedDemo(async (client) => {
    const caps = await result(client, "list_capabilities");
    assert.deepStrictEqual(caps.not_available.map((t: Loose) => t.name), [
      "map_inventory",
      "collect_assets",
      "run_scanners",
      "run_pipeline",
    ]);
    for (const tool of caps.not_available) {
      assert.equal(tool.category, "live");
      assert.match(tool.reason, /reads exported .*files instead of calling cloud APIs/);
    }
    const { tools } = await client.listTools();
    assert.equal(tools.some((t) => t.name === "map_inventory"), false);
    assert.ok(caps.conventions.some((c: string) => /next_cursor/.test(c)));
    const steps = caps.workflows.flatMap((w: Loose) => w.steps);
    for (const step of steps) {
      assert.ok(tools.some((t) => t.name === step), `workflow step ${step} is a served tool`);
    }
    assert.deepStrictEqual(caps.workflows[0].steps.slice(0, 2), [
      "workspace_status",
      "dataset_summary",
    ]);
  });
});

Deno.test("list_capabilities leaves out what the policy hides", async () => {
  const hideRestricted: PolicyVisibilityRule = (request) =>
    !(request.sensitivity === "restricted" || request.name === "drift_review");
  await withUnchangedDemo(async (client) => {
    const caps = await result(client, "list_capabilities");
    const names = caps.categories.flatMap((c: Loose) => c.tools.map((t: Loose) => t.name));
    assert.equal(names.includes("get_asset_metadata"), false);
    assert.equal(names.includes("get_asset"), true);
    assert.equal(caps.tool_count, (await client.listTools()).tools.length);
    assert.equal(caps.prompts.includes("drift_review"), false);
    assert.equal(caps.prompts.length, 10);
  }, { policyVisibility: [hideRestricted] });
});

Deno.test("describe_schema returns every section or one", async () => {
  await withUnchangedDemo(async (client) => {
    const all = await result(client, "describe_schema");
    assert.equal(all.section, "all");
    assert.equal(all.asset_types.count, 156);
    assert.equal(all.asset_types.families.length, 21);
    assert.deepStrictEqual(all.asset_types.families[0].types.slice(0, 3), [
      "EC2",
      "VIRTUAL_MACHINE",
      "GCE_INSTANCE",
    ]);
    assert.equal(all.edge_types.length, 20);
    assert.deepStrictEqual(all.edge_types.find((e: Loose) => e.edge_type === "INVOKES"), {
      edge_type: "INVOKES",
      reads_as: "triggers / calls",
      typical: "bucket→function, queue→function",
      dependency_direction: "reverse",
    });
    assert.equal(all.relation_types.count, 64);
    assert.deepStrictEqual(all.relation_groups.map((g: Loose) => [g.group, g.count]), [
      ["NETWORK", 16],
      ["CONTAINMENT", 8],
      ["IAM", 10],
      ["DATA_FLOW", 9],
      ["SECURITY", 9],
      ["COMPUTE", 8],
      ["GOVERNANCE", 4],
    ]);
    assert.deepStrictEqual(all.compliance_statuses, ["PASS", "FAIL", "NOT_APPLICABLE", "MANUAL"]);
    assert.deepStrictEqual(all.providers, ["AWS", "AZURE", "GCP"]);
    const one = await result(client, "describe_schema", { section: "Severities" });
    assert.deepStrictEqual(Object.keys(one), ["section", "severities"]);
    assert.deepStrictEqual(one.severities[1], { severity: "HIGH", rank: 3, base_risk: 7.5 });
    const bad = await fails(client, "describe_schema", { section: "edge_type" });
    assert.deepStrictEqual(bad.details.close_matches[0], "edge_types");
  });
});

Deno.test("explain_asset_type explains a type and counts it in the active dataset", async () => {
  await withUnchangedDemo(async (client) => {
    const rds = await result(client, "explain_asset_type", { asset_type: "rds instance" });
    assert.deepStrictEqual(rds, {
      asset_type: "RDS_INSTANCE",
      family: "Database",
      note: null,
      ontology_class: "cm:RdsInstance",
      terraform_type: "aws_db_instance",
      sensitive_data_store: true,
      crown_jewel_weight: 10,
      internet_exposure_expected: false,
      in_active_dataset: 1,
    });
    const lb = await result(client, "explain_asset_type", { asset_type: "LOAD_BALANCER" });
    assert.equal(lb.internet_exposure_expected, true);
    assert.equal(lb.crown_jewel_weight, 0);
    const registry = await result(client, "explain_asset_type", {
      asset_type: "container-registry",
    });
    assert.match(registry.note, /ECR/);
    assert.equal(registry.in_active_dataset, 0);
    const bad = await fails(client, "explain_asset_type", { asset_type: "S3_BUKET" });
    assert.deepStrictEqual(bad.details.close_matches[0], "S3_BUCKET");
    assert.equal((await call(client, "explain_asset_type", {})).isError, true);
  });
});

Deno.test("explain_asset_type gives null in_active_dataset with nothing loaded", async () => {
  await withClient({ workbenches: [cloudWorkbenchWith()] }, async (client) => {
    const secret = await result(client, "explain_asset_type", { asset_type: "secret" });
    assert.equal(secret.in_active_dataset, null);
    assert.equal(secret.crown_jewel_weight, 9);
  });
});

Deno.test("explain_edge_type explains reading, dependency and relations", async () => {
  await withUnchangedDemo(async (client) => {
    const assumes = await result(client, "explain_edge_type", { edge_type: "assumes-role" });
    assert.deepStrictEqual(assumes, {
      edge_type: "ASSUMES_ROLE",
      reads_as: "runs as",
      typical: "compute→role / service account",
      note: null,
      dependency_direction: "forward",
      dependency_meaning: "The source depends on the target.",
      ontology_relations: ["RUNS_ON"],
    });
    const rule = await result(client, "explain_edge_type", { edge_type: "SECURITY_GROUP_RULE" });
    assert.equal(rule.dependency_direction, "none");
    assert.ok(rule.ontology_relations.includes("INGRESS_ALLOWED"));
    assert.match(rule.note, /0\.0\.0\.0\/0/);
    const bad = await fails(client, "explain_edge_type", { edge_type: "contain" });
    assert.deepStrictEqual(bad.details.close_matches, ["CONTAINS"]);
    assert.equal(bad.details.valid.length, 20);
  });
});
