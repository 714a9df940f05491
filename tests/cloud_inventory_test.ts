/**
 * The inventory domain functions on small hand-made estates: the metadata
 * budget, the organisation fallbacks, coverage outcomes, the asset search's
 * sort ties and tag parsing, and tag and account edge cases.
 */

import assert from "node:assert/strict";
import { assetMetadata, serviceOf } from "../src/cloud/inventory/asset_report.ts";
import { coverageReport } from "../src/cloud/inventory/coverage.ts";
import { findAssets } from "../src/cloud/inventory/find_assets.ts";
import { listAccounts } from "../src/cloud/inventory/accounts.ts";
import { organizationTopology } from "../src/cloud/inventory/organization.ts";
import { listTags } from "../src/cloud/inventory/tags.ts";
import { InvalidArgumentError } from "../src/cloud/model/errors.ts";
import type { Asset, DatasetRecords } from "../src/cloud/model/records.ts";
import { emptyRecords } from "../src/cloud/model/records.ts";
import type { DatasetView } from "../src/cloud/model/view.ts";
import { Workspace } from "../src/cloud/workspace/workspace.ts";
import { asset as sharedAsset } from "./helpers/cloud_estate.ts";

function asset(id: string, extra: Partial<Asset> = {}): Asset {
  return sharedAsset(id, "OTHER", { arn: null, ...extra });
}

function view(records: Partial<DatasetRecords>): DatasetView {
  const workspace = new Workspace();
  return workspace.add("t", { ...emptyRecords(), ...records }).dataset;
}

Deno.test("assetMetadata() keeps whole keys within the budget and lists the rest", () => {
  const big = "x".repeat(900);
  const v = view({
    assets: [asset("a", { metadata: { alpha: big, beta: big, gamma: 1 } })],
  });
  const out = assetMetadata(v, "a", { maxChars: 1000 });
  assert.deepStrictEqual(Object.keys(out.metadata), ["alpha", "gamma"]);
  assert.deepStrictEqual(out.omitted_keys, ["beta"]);
  assert.equal(out.truncated, true);
  assert.equal(out.key_sizes["beta"], 902);
  assert.equal(out.chars, JSON.stringify(out.metadata).length);
  assert.ok(out.chars <= 1000);
  assert.match(out.hint ?? "", /max_chars/);
  const asked = assetMetadata(v, "a", { keys: ["beta"], maxChars: 1000 });
  assert.deepStrictEqual(Object.keys(asked.metadata), ["beta"]);
  assert.equal(asked.truncated, false);
});

Deno.test("serviceOf() reads AWS, Azure and GCP identifiers", () => {
  assert.equal(serviceOf({ arn: "arn:aws:s3:::bucket" }), "s3");
  assert.equal(
    serviceOf({ arn: "/subscriptions/x/resourceGroups/rg/providers/Microsoft.Sql/servers/s" }),
    "Microsoft.Sql",
  );
  assert.equal(serviceOf({ arn: "//pubsub.googleapis.com/projects/p/topics/t" }), "pubsub");
  assert.equal(serviceOf({ arn: null }), null);
  assert.equal(serviceOf({ arn: "something-else" }), null);
});

Deno.test("organizationTopology() falls back to organisation assets, else reports none", () => {
  const fromAssets = view({
    assets: [
      asset("org", {
        asset_type: "ORGANIZATION",
        metadata: { organization_id: "o-1", management_account_id: "1" },
      }),
      asset("ou-a", { asset_type: "ORG_UNIT", name: "Apps" }),
      asset("acct-1", {
        asset_type: "CLOUD_ACCOUNT",
        account_id: "1",
        metadata: { parent: "ou-a" },
      }),
      asset("acct-2", {
        asset_type: "CLOUD_ACCOUNT",
        account_id: "2",
        metadata: { external: true },
      }),
      asset("scp", { asset_type: "ORG_POLICY", name: "deny-all" }),
    ],
  });
  const topo = organizationTopology(fromAssets, { includePolicies: true });
  assert.equal(topo.source, "map_assets");
  assert.equal(topo.organization?.id, "o-1");
  assert.equal(topo.organization?.management_account_id, "1");
  assert.deepStrictEqual(topo.ous, [{ id: "ou-a", name: "Apps", parent: null, accounts: 1 }]);
  assert.deepStrictEqual(topo.accounts.map((a) => [a.id, a.parent, a.external]), [
    ["1", "ou-a", false],
    ["2", null, true],
  ]);
  assert.deepStrictEqual(topo.policies, [{ id: "scp", name: "deny-all", arn: null }]);
  const nothing = organizationTopology(view({ assets: [asset("x")] }));
  assert.equal(nothing.source, null);
  assert.equal(nothing.organization, null);
  assert.match(nothing.hint ?? "", /no organisation/);
});

Deno.test("coverageReport() counts successes and failures and handles no records", () => {
  const v = view({
    coverage: [
      { service: "ec2", status: "success" },
      { service: "rds", status: "FAILED", error: "AccessDenied" },
      { service: "s3", success: true },
      { service: "iam" },
    ],
  });
  const report = coverageReport(v);
  assert.deepStrictEqual(report.totals, { records: 4, success: 2, failure: 1, other: 1 });
  assert.equal(report.coverage_pct, 50);
  const none = coverageReport(view({}));
  assert.equal(none.coverage_pct, null);
  assert.match(none.hint ?? "", /no collector records/);
});

Deno.test("findAssets() breaks ties by name then id, puts unknown accounts last, parses tags", () => {
  const v = view({
    assets: [
      asset("b", { name: "same", account_id: null }),
      asset("a", { name: "same", account_id: "2" }),
      asset("c", { name: "other", tags: { "k": "v=w" } }),
    ],
  });
  assert.deepStrictEqual(findAssets(v, {}).map((a) => a.id), ["c", "a", "b"]);
  assert.deepStrictEqual(
    findAssets(v, {}, { sortBy: "account" }).map((a) => a.id),
    ["c", "a", "b"],
  );
  assert.deepStrictEqual(findAssets(v, { tag: "k=v=w" }).map((a) => a.id), ["c"]);
  assert.throws(() => findAssets(v, { tag: " =v" }), InvalidArgumentError);
});

Deno.test("listAccounts() puts assets without an account under unknown, last", () => {
  const v = view({
    assets: [asset("x", { account_id: null, provider: "GCP" }), asset("y", { account_id: "9" })],
  });
  assert.deepStrictEqual(listAccounts(v).map((a) => [a.account_id, a.provider]), [
    ["9", "AWS"],
    ["unknown", "GCP"],
  ]);
});

Deno.test("listTags() ranks values by count then value and caps keys", () => {
  const v = view({
    assets: [
      asset("1", { tags: { env: "prod", team: "a" } }),
      asset("2", { tags: { env: "dev" } }),
      asset("3", { tags: { env: "prod" } }),
    ],
  });
  const all = listTags(v);
  assert.deepStrictEqual(all.keys[0], {
    key: "env",
    assets: 3,
    distinct_values: 2,
    top_values: [{ value: "prod", count: 2 }, { value: "dev", count: 1 }],
  });
  assert.equal(listTags(v, { top: 1 }).truncated, true);
});
