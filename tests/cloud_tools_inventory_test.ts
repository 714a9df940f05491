/**
 * The inventory toolset through a real MCP client on the demo estate
 * (44 assets, spec §10.1): exact answers read off the estate, bad input as
 * clear tool errors, and the workspace unchanged by every call.
 */

import assert from "node:assert/strict";
import { call, fails, type Loose, withClient } from "./helpers/in_memory.ts";
import { cloudWorkbenchWith } from "../src/cloud/workbench.ts";
import { cursorPages, result, withUnchangedDemo } from "./helpers/cloud_client.ts";

const ids = (items: Loose[]): string[] => items.map((item) => item.id);

Deno.test("find_assets matches a query on name, ARN, id or tag value, in name order", async () => {
  await withUnchangedDemo(async (client) => {
    const page = await result(client, "find_assets", { query: "WEB" });
    assert.equal(page.dataset, "sample");
    assert.deepStrictEqual(ids(page.items), [
      "sg-web",
      "web-1",
      "web-2",
      "waf-web",
      "alb-web",
      "tg-web",
    ]);
    assert.equal(page.total, 6);
    assert.equal(page.next_cursor, null);
    // A tag value: "confidential" is only a tag value of two assets.
    const tagged = await result(client, "find_assets", { query: "confidential" });
    assert.deepStrictEqual(ids(tagged.items), ["orders-db", "data-bucket"]);
    // Full briefs by default, no tags.
    const first = page.items[0];
    assert.equal(first.type, "SECURITY_GROUP");
    assert.equal(first.account_id, "111111111111");
    assert.equal(first.uri.startsWith("cloudg://assets/"), true);
    assert.equal("tags" in first, false);
  });
});

Deno.test("find_assets combines filters with AND", async () => {
  await withUnchangedDemo(async (client) => {
    const exposed = await result(client, "find_assets", { internet_exposed: true });
    assert.deepStrictEqual(
      ids(exposed.items),
      ["gcp-gcs", "az-nsg", "bastion", "logs-bucket", "sg-admin", "alb-web"],
    );
    const azure = await result(client, "find_assets", { provider: "azure" });
    assert.equal(azure.total, 5);
    const gcp = await result(client, "find_assets", { provider: "GCP" });
    assert.equal(gcp.total, 3);
    const ec2 = await result(client, "find_assets", { asset_types: ["ec2"] });
    assert.deepStrictEqual(ids(ec2.items), ["bastion", "web-1", "web-2"]);
    const region = await result(client, "find_assets", { region: "US-EAST-1", limit: 500 });
    assert.equal(region.total, 26);
    const tier = await result(client, "find_assets", { tag: "tier=web" });
    assert.deepStrictEqual(ids(tier.items), ["web-1", "web-2", "alb-web"]);
    const hasTier = await result(client, "find_assets", { tag: "tier" });
    assert.equal(hasTier.total, 4);
    const critical = await result(client, "find_assets", { min_severity: "critical" });
    assert.deepStrictEqual(ids(critical.items), ["az-nsg", "sg-admin"]);
    const withFindings = await result(client, "find_assets", { has_findings: true });
    assert.equal(withFindings.total, 10);
    const without = await result(client, "find_assets", { has_findings: false, limit: 500 });
    assert.equal(without.total, 34);
    const both = await result(client, "find_assets", {
      provider: "AWS",
      internet_exposed: true,
      asset_types: ["EC2", "S3_BUCKET"],
    });
    assert.deepStrictEqual(ids(both.items), ["bastion", "logs-bucket"]);
    const shared = await result(client, "find_assets", { account_id: "222222222222" });
    assert.deepStrictEqual(ids(shared.items), ["deploy-role", "acct-shared"]);
  });
});

Deno.test("find_assets sorts by risk, findings, type and account, and reverses", async () => {
  await withUnchangedDemo(async (client) => {
    const risk = await result(client, "find_assets", { sort_by: "risk", limit: 4 });
    // CRITICAL 9.5 + 2 (exposed) ties az-nsg and sg-admin; HIGH 7.5 + 2 next.
    assert.deepStrictEqual(ids(risk.items), ["az-nsg", "sg-admin", "gcp-gcs", "logs-bucket"]);
    const findings = await result(client, "find_assets", { sort_by: "Findings", limit: 11 });
    // Ten assets hold one open finding each: they come first, in name order.
    assert.deepStrictEqual(ids(findings.items), [
      "gcp-gcs",
      "api-handler",
      "az-nsg",
      "deploy-role",
      "full-access-policy",
      "orders-db",
      "logs-bucket",
      "api-gw",
      "sg-admin",
      "web-1",
      "gcp-sql",
    ]);
    const byType = await result(client, "find_assets", { sort_by: "type", limit: 2 });
    assert.deepStrictEqual(ids(byType.items), ["api-gw", "cloudtrail"]);
    const reversed = await result(client, "find_assets", {
      sort_by: "name",
      descending: true,
      limit: 1,
    });
    assert.deepStrictEqual(ids(reversed.items), ["tg-web"]);
    const account = await result(client, "find_assets", { sort_by: "account", limit: 1 });
    assert.equal(account.items[0].account_id, "00000000-aaaa-bbbb-cccc-000000000001");
  });
});

Deno.test("find_assets projects fields with id first, and hints when nothing matches", async () => {
  await withUnchangedDemo(async (client) => {
    const page = await result(client, "find_assets", {
      query: "orders-db",
      fields: ["max_severity", "TAGS", "name"],
    });
    assert.deepStrictEqual(Object.keys(page.items[0]), ["id", "name", "max_severity", "tags"]);
    assert.deepStrictEqual(page.items[0], {
      id: "orders-db",
      name: "orders-db",
      max_severity: "MEDIUM",
      tags: { env: "prod", owner: "platform", data: "confidential" },
    });
    const none = await result(client, "find_assets", { query: "no-such-thing-anywhere" });
    assert.equal(none.total, 0);
    assert.match(none.hint, /filter/);
  });
});

Deno.test("find_assets pages with a cursor tied to its filters", async () => {
  await withUnchangedDemo(async (client) => {
    const pages = await cursorPages(client, "find_assets", { limit: 20 });
    pages.forEach((page, i) => assert.equal(page.offset, i * 20));
    assert.equal(pages.length, 3);
    assert.equal(new Set(pages.flatMap((page) => ids(page.items))).size, 44);
    const first = pages[0];
    const stale = await fails(client, "find_assets", {
      limit: 20,
      query: "a",
      cursor: first.next_cursor,
    });
    assert.match(stale.message, /Stale cursor/);
    const forged = await fails(client, "find_assets", { cursor: "c20.zzzz" });
    assert.match(forged.message, /Invalid cursor/);
    // The same filters spelled differently keep the cursor valid.
    const typed = await result(client, "find_assets", { provider: "aws", limit: 30 });
    const next = await result(client, "find_assets", {
      provider: "AWS",
      limit: 30,
      cursor: typed.next_cursor,
    });
    assert.equal(next.offset, 30);
    assert.equal(next.returned, 6);
    const spelled = await result(client, "find_assets", {
      min_severity: "info",
      fields: ["NAME"],
      limit: 5,
    });
    const resumed = await result(client, "find_assets", {
      min_severity: "INFO",
      fields: ["name"],
      limit: 5,
      cursor: spelled.next_cursor,
    });
    assert.equal(resumed.offset, 5);
    assert.equal(resumed.returned, 5);
  });
});

Deno.test("find_assets refuses bad input clearly", async () => {
  await withUnchangedDemo(async (client) => {
    const provider = await fails(client, "find_assets", { provider: "AWZ" });
    assert.deepStrictEqual(provider.details.close_matches, ["AWS"]);
    const type = await fails(client, "find_assets", { asset_types: ["S3_BUCKETS"] });
    assert.deepStrictEqual(type.details.close_matches[0], "S3_BUCKET");
    const sort = await fails(client, "find_assets", { sort_by: "size" });
    assert.match(sort.message, /sort order/);
    const field = await fails(client, "find_assets", { fields: ["owner"] });
    assert.match(field.message, /field/);
    const tag = await fails(client, "find_assets", { tag: "=prod" });
    assert.match(tag.message, /tag filter needs a key/);
    assert.equal((await call(client, "find_assets", { limit: 501 })).isError, true);
    assert.equal((await call(client, "find_assets", { limit: 0 })).isError, true);
    const missing = await fails(client, "find_assets", { dataset: "nope" });
    assert.equal(missing.code, "not_found");
  });
});

Deno.test("get_asset reports relations, dependencies, degree, findings, and links resources", async () => {
  await withUnchangedDemo(async (client) => {
    const raw = await client.callTool({ name: "get_asset", arguments: { ref: "bastion" } });
    const asset = (raw.structuredContent as Loose).result;
    assert.equal(asset.id, "bastion");
    assert.equal(asset.service, "ec2");
    assert.deepStrictEqual(asset.relations.outgoing, { ATTACHED_TO: 1, ASSUMES_ROLE: 1 });
    assert.deepStrictEqual(asset.relations.incoming, { CONTAINS: 1, INTERNET_EXPOSED: 1 });
    assert.equal(asset.relations.total, 4);
    assert.equal(asset.relations.sample.length, 4);
    assert.equal(asset.relations.truncated, false);
    assert.deepStrictEqual(asset.degree, { in: 2, out: 2 });
    assert.deepStrictEqual(asset.metadata_keys, ["private_ip", "public_ip"]);
    assert.deepStrictEqual(asset.tags, { env: "prod", owner: "platform", tier: "admin" });
    assert.equal(asset.collected_at, "2026-01-15T12:00:00Z");
    assert.deepStrictEqual(asset.findings, []);
    const links = (raw.content as Loose[]).filter((c) => c.type === "resource_link");
    assert.equal(links.length, 2);
    const detail = await client.readResource({ uri: links[0].uri });
    assert.equal(JSON.parse((detail.contents[0] as Loose).text).id, "bastion");
    assert.match(links[1].uri, /\/neighbors$/);
    const neighbours = await client.readResource({ uri: links[1].uri });
    assert.equal(JSON.parse((neighbours.contents[0] as Loose).text).asset, "bastion");
    // The asset resources read the active dataset, so another dataset's answer links nothing.
    const other = await client.callTool({
      name: "get_asset",
      arguments: { ref: "bastion", dataset: "after" },
    });
    assert.equal((other.content as Loose[]).some((c) => c.type === "resource_link"), false);
  });
});

Deno.test("get_asset resolves ARNs and names, caps the edge sample, and lists open findings", async () => {
  await withUnchangedDemo(async (client) => {
    const byArn = await result(client, "get_asset", {
      ref: "arn:aws:ec2:us-east-1:111111111111:security-group/sg-0a1000000000000b3",
      max_relations: 1,
    });
    assert.equal(byArn.id, "sg-admin");
    assert.equal(byArn.relations.sample.length, 1);
    assert.equal(byArn.relations.truncated, true);
    assert.deepStrictEqual(byArn.findings.map((f: Loose) => f.id), ["f-ssh-open"]);
    const quiet = await result(client, "get_asset", { ref: "sg-admin", include_findings: false });
    assert.equal("findings" in quiet, false);
    const byName = await result(client, "get_asset", { ref: "prod-data" });
    assert.equal(byName.id, "data-bucket");
    assert.equal(byName.open_findings, 0, "the only finding on the bucket is suppressed");
    const gcp = await result(client, "get_asset", { ref: "gcp-gcs", dataset: "after" });
    assert.equal(gcp.service, "storage");
    assert.equal(gcp.dataset, "after");
  });
});

Deno.test("get_asset refuses unknown refs with suggestions and out-of-range bounds", async () => {
  await withUnchangedDemo(async (client) => {
    const unknown = await fails(client, "get_asset", { ref: "web" });
    assert.equal(unknown.code, "not_found");
    assert.equal(unknown.details.dataset, "sample");
    assert.ok(unknown.details.suggestions.some((s: Loose) => s.id === "sg-web"));
    assert.equal(
      (await call(client, "get_asset", { ref: "bastion", max_relations: 201 })).isError,
      true,
    );
    assert.equal((await call(client, "get_asset", { ref: "" })).isError, true);
    assert.equal(
      (await fails(client, "get_asset", { ref: "bastion", dataset: "x" })).code,
      "not_found",
    );
  });
});

Deno.test("get_asset_metadata returns whole keys, sizes and missing keys", async () => {
  await withUnchangedDemo(async (client) => {
    const all = await result(client, "get_asset_metadata", { ref: "orders-db" });
    assert.deepStrictEqual(all.metadata, {
      backup_retention_period: 0,
      engine: "postgres",
      storage_encrypted: true,
    });
    assert.deepStrictEqual(all.key_sizes, {
      backup_retention_period: 1,
      engine: 10,
      storage_encrypted: 4,
    });
    assert.equal(all.chars, JSON.stringify(all.metadata).length);
    assert.equal(all.truncated, false);
    const some = await result(client, "get_asset_metadata", {
      ref: "full-access-policy",
      keys: ["statements", "nope"],
    });
    assert.deepStrictEqual(some.metadata, {
      statements: [{ effect: "Allow", action: "*", resource: "*" }],
    });
    assert.deepStrictEqual(some.missing_keys, ["nope"]);
    assert.match(some.hint, /not in this asset/);
    assert.equal(
      (await call(client, "get_asset_metadata", { ref: "orders-db", max_chars: 999 })).isError,
      true,
    );
    assert.equal(
      (await call(client, "get_asset_metadata", { ref: "orders-db", max_chars: 200_001 })).isError,
      true,
    );
    const unknown = await fails(client, "get_asset_metadata", { ref: "orders" });
    assert.ok(unknown.details.suggestions.some((s: Loose) => s.id === "orders-db"));
  });
});

Deno.test("count_assets groups by each dimension, largest first", async () => {
  await withUnchangedDemo(async (client) => {
    const provider = await result(client, "count_assets", { group_by: "provider" });
    assert.deepStrictEqual(provider.groups, [
      { key: "AWS", count: 36 },
      { key: "AZURE", count: 5 },
      { key: "GCP", count: 3 },
    ]);
    const severity = await result(client, "count_assets", { group_by: "severity" });
    assert.deepStrictEqual(severity.groups, [
      { key: "NONE", count: 34 },
      { key: "HIGH", count: 5 },
      { key: "CRITICAL", count: 2 },
      { key: "MEDIUM", count: 2 },
      { key: "INFO", count: 1 },
    ]);
    const exposure = await result(client, "count_assets", { group_by: "exposure" });
    assert.deepStrictEqual(exposure.groups, [
      { key: "not_exposed", count: 38 },
      { key: "exposed", count: 6 },
    ]);
    const type = await result(client, "count_assets", { top: 2 });
    assert.equal(type.group_by, "type");
    assert.deepStrictEqual(type.groups, [
      { key: "IAM_ROLE", count: 4 },
      { key: "SECURITY_GROUP", count: 4 },
    ]);
    assert.equal(type.group_count, 31);
    assert.equal(type.truncated, true);
    const account = await result(client, "count_assets", { group_by: "account", provider: "aws" });
    assert.equal(account.total, 36);
    assert.deepStrictEqual(account.groups[0], { key: "111111111111", count: 33 });
    const service = await result(client, "count_assets", {
      group_by: "service",
      asset_types: ["iam_role", "IAM_USER"],
    });
    assert.deepStrictEqual(service.groups, [{ key: "iam", count: 5 }]);
    const region = await result(client, "count_assets", {
      group_by: "region",
      internet_exposed: true,
    });
    assert.equal(region.total, 6);
    assert.equal(
      (await fails(client, "count_assets", { group_by: "colour" })).code,
      "invalid_request",
    );
    assert.equal((await call(client, "count_assets", { top: 0 })).isError, true);
    assert.equal((await fails(client, "count_assets", { dataset: "gone" })).code, "not_found");
  });
});

Deno.test("list_asset_types lists the types present with counts", async () => {
  await withUnchangedDemo(async (client) => {
    const types = await result(client, "list_asset_types");
    assert.equal(types.total_assets, 44);
    assert.equal(types.type_count, 31);
    assert.deepStrictEqual(types.types[0], {
      asset_type: "IAM_ROLE",
      family: "IAM",
      count: 4,
      internet_exposed: 0,
      open_findings: 1,
    });
    const buckets = types.types.find((t: Loose) => t.asset_type === "S3_BUCKET");
    assert.deepStrictEqual(buckets, {
      asset_type: "S3_BUCKET",
      family: "Storage",
      count: 2,
      internet_exposed: 1,
      open_findings: 1,
    });
    const after = await result(client, "list_asset_types", { dataset: "after" });
    assert.equal(after.total_assets, 43);
    assert.equal(after.types.some((t: Loose) => t.asset_type === "WAF_WEB_ACL"), false);
    assert.equal((await fails(client, "list_asset_types", { dataset: "nope" })).code, "not_found");
  });
});

Deno.test("list_accounts lists accounts with names, external flag and counts, paginated", async () => {
  await withUnchangedDemo(async (client) => {
    const page = await result(client, "list_accounts");
    assert.equal(page.total, 5);
    assert.deepStrictEqual(page.items.map((a: Loose) => a.account_id), [
      "00000000-aaaa-bbbb-cccc-000000000001",
      "111111111111",
      "222222222222",
      "999999999999",
      "proj-analytics",
    ]);
    assert.deepStrictEqual(page.items[1], {
      account_id: "111111111111",
      provider: "AWS",
      name: "prod",
      external: false,
      assets: 33,
      regions: ["global", "us-east-1"],
      internet_exposed: 4,
      open_findings: 7,
    });
    assert.equal(page.items[3].external, true);
    assert.equal(page.items[3].name, "vendor");
    const first = await result(client, "list_accounts", { limit: 2 });
    const second = await result(client, "list_accounts", { limit: 2, cursor: first.next_cursor });
    assert.deepStrictEqual(second.items.map((a: Loose) => a.account_id), [
      "222222222222",
      "999999999999",
    ]);
    assert.equal(
      (await fails(client, "list_accounts", { cursor: "nonsense" })).code,
      "invalid_request",
    );
    const stale = await fails(client, "list_accounts", {
      cursor: first.next_cursor,
      dataset: "after",
    });
    assert.match(stale.message, /Stale cursor/);
    assert.equal((await call(client, "list_accounts", { limit: 501 })).isError, true);
  });
});

Deno.test("list_regions lists regions with providers, assets and accounts", async () => {
  await withUnchangedDemo(async (client) => {
    const regions = await result(client, "list_regions");
    assert.deepStrictEqual(regions.regions, [
      { region: "us-east-1", providers: ["AWS"], assets: 26, accounts: 1 },
      { region: "global", providers: ["AWS"], assets: 10, accounts: 3 },
      { region: "westeurope", providers: ["AZURE"], assets: 5, accounts: 1 },
      { region: "europe-west1", providers: ["GCP"], assets: 3, accounts: 1 },
    ]);
    assert.deepStrictEqual(regions.scanned_regions, ["us-east-1", "westeurope", "europe-west1"]);
    assert.equal((await fails(client, "list_regions", { dataset: "nope" })).code, "not_found");
  });
});

Deno.test("list_tags lists keys with top values, or one key's values", async () => {
  await withUnchangedDemo(async (client) => {
    const tags = await result(client, "list_tags");
    assert.equal(tags.total_keys, 4);
    assert.deepStrictEqual(tags.keys.map((k: Loose) => [k.key, k.assets]), [
      ["env", 8],
      ["owner", 8],
      ["tier", 4],
      ["data", 2],
    ]);
    const tier = await result(client, "list_tags", { key: "tier" });
    assert.deepStrictEqual(tier.keys, [{
      key: "tier",
      assets: 4,
      distinct_values: 2,
      top_values: [{ value: "web", count: 3 }, { value: "admin", count: 1 }],
    }]);
    const one = await result(client, "list_tags", { key: "tier", top: 1 });
    assert.deepStrictEqual(one.keys[0].top_values, [{ value: "web", count: 3 }]);
    assert.equal(one.truncated, true);
    const top = await result(client, "list_tags", { top: 1 });
    assert.deepStrictEqual(top.keys.map((k: Loose) => k.key), ["env"]);
    assert.equal(top.truncated, true);
    const none = await result(client, "list_tags", { key: "colour" });
    assert.deepStrictEqual(none.keys, []);
    assert.match(none.hint, /No asset carries/);
    assert.equal((await call(client, "list_tags", { top: 201 })).isError, true);
  });
});

Deno.test("coverage_report counts the collector records", async () => {
  await withUnchangedDemo(async (client) => {
    const report = await result(client, "coverage_report");
    assert.equal(report.kind, "demo");
    assert.equal(report.records.length, 1);
    assert.equal(report.records[0].service, "ec2");
    assert.deepStrictEqual(report.totals, { records: 1, success: 1, failure: 0, other: 0 });
    assert.equal(report.coverage_pct, 100);
    assert.equal((await fails(client, "coverage_report", { dataset: "nope" })).code, "not_found");
  });
});

Deno.test("unresolved_references pages the stored linker misses", async () => {
  await withUnchangedDemo(async (client) => {
    const page = await result(client, "unresolved_references");
    assert.equal(page.total, 1);
    assert.deepStrictEqual(page.items[0], {
      source_id: "api-handler",
      field: "dead_letter_config.target_arn",
      reference: "arn:aws:sqs:us-east-1:111111111111:dead-letter-queue",
      reason: "no collected asset has this ARN",
    });
    assert.equal(page.next_cursor, null);
    const forged = await fails(client, "unresolved_references", { cursor: "c1.0123456789ab" });
    assert.match(forged.message, /Stale cursor/);
    assert.equal((await call(client, "unresolved_references", { limit: 0 })).isError, true);
  });
});

Deno.test("organization_topology reads the discovery data, capped, policies on request", async () => {
  await withUnchangedDemo(async (client) => {
    const topology = await result(client, "organization_topology");
    assert.equal(topology.source, "organization_discovery");
    assert.deepStrictEqual(topology.organization, {
      id: "o-sample",
      arn: "arn:aws:organizations::111111111111:organization/o-sample",
      management_account_id: "111111111111",
      root_id: "r-sam1",
      control_tower: true,
      home_region: "us-east-1",
      governed_regions: ["us-east-1", "eu-west-1"],
    });
    assert.deepStrictEqual(topology.ous.map((u: Loose) => [u.id, u.accounts]), [
      ["ou-sam1-infra", 1],
      ["ou-sam1-workloads", 1],
    ]);
    assert.deepStrictEqual(topology.accounts.map((a: Loose) => [a.id, a.assets]), [
      ["111111111111", 33],
      ["222222222222", 2],
    ]);
    assert.equal("policies" in topology, false);
    const capped = await result(client, "organization_topology", {
      max_accounts: 1,
      include_policies: true,
    });
    assert.equal(capped.accounts.length, 1);
    assert.equal(capped.accounts_total, 2);
    assert.equal(capped.truncated, true);
    assert.deepStrictEqual(capped.policies.map((p: Loose) => p.id), ["p-regions01"]);
    assert.equal(
      (await call(client, "organization_topology", { max_accounts: 1001 })).isError,
      true,
    );
    assert.equal(
      (await fails(client, "organization_topology", { dataset: "nope" })).code,
      "not_found",
    );
  });
});

Deno.test("inventory tools need a dataset: with none loaded they fail clearly", async () => {
  await withClient({ workbenches: [cloudWorkbenchWith()] }, async (client) => {
    for (const name of ["find_assets", "count_assets", "list_asset_types", "list_accounts"]) {
      const error = await fails(client, name);
      assert.equal(error.code, "not_found", name);
    }
  });
});

Deno.test("get_asset's direct dependency counts equal depends_on and dependents one hop out", async () => {
  await withUnchangedDemo(async (client) => {
    const assets = (await cursorPages(client, "find_assets", { limit: 500 }))
      .flatMap((page) => page.items as Loose[]);
    assert.ok(assets.length > 40);
    let withDependencies = 0;
    for (const { id } of assets) {
      const detail = await result(client, "get_asset", { ref: id });
      const hop = async (tool: string): Promise<number> =>
        (await result(client, tool, { ref: id, max_depth: 1, limit: 500 })).total;
      assert.deepStrictEqual(detail.dependencies, {
        direct_depends_on: await hop("depends_on"),
        direct_dependents: await hop("dependents"),
      }, id);
      if (detail.dependencies.direct_depends_on > 0) withDependencies++;
    }
    assert.ok(withDependencies > 10);
  });
});
