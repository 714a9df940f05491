/**
 * Loading and ingesting cloud exports through a real MCP client: every shared
 * cloud fixture through `load_dataset` (auto-detected, or refused with the
 * version named), the scanner samples by detection, forced kinds, our rule
 * set on every load, `ingest_reports` merging the Prowler OCSF fixture into the
 * demo estate with a notification, `normalise_findings`,
 * `reachability_findings`, and a Terraform plan diffed against its state.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { connect, fails, type Loose, ok } from "./helpers/in_memory.ts";
import { cloudWorkbenchWith } from "../src/cloud/workbench.ts";
import {
  ASFF_REPORT,
  CHECKOV_REPORT,
  SCOUTSUITE_SCRIPT,
  TRIVY_REPORT,
} from "./helpers/cloud_scanner_samples.ts";

const FIXTURES = new URL("../../shared/fixtures/", import.meta.url).pathname;
const CLOUD = `${FIXTURES}cloud/`;
const OCSF = `${CLOUD}prowler/ocsf/test_prowler_output.ocsf.json`;

/** A client on the demo estate with the fixtures (and optionally a scratch folder) as roots. */
async function session(
  scratch?: string,
): Promise<{ client: Client; close: () => Promise<void> }> {
  return await connect({
    roots: scratch ? [FIXTURES, scratch] : [FIXTURES],
    workbenches: [cloudWorkbenchWith({ demo: true })],
  });
}

async function withScratch(
  files: Record<string, string>,
  run: (dir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "cloud-ingest-" }));
  try {
    for (const [name, text] of Object.entries(files)) {
      const path = join(dir, name);
      await Deno.mkdir(join(path, ".."), { recursive: true });
      await Deno.writeTextFile(path, text);
    }
    await run(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The workspace as list_datasets shows it (names, versions, counts, active). */
async function workspaceState(client: Client): Promise<string> {
  const listing = (await ok(client, "list_datasets", {})).result;
  return JSON.stringify({
    active: listing.active_dataset,
    datasets: listing.datasets.map((d: Loose) => [d.name, d.version, d.findings, d.assets]),
  });
}

async function load(client: Client, args: Record<string, unknown>): Promise<Loose> {
  return (await ok(client, "load_dataset", args)).result;
}

/** Relative path → [kind, assets, edges, findings, rule findings, unmapped findings]. */
const FIXTURE_LOADS: Record<string, [string, number, number, number, number, number]> = {
  "checkov/tfplan.json": ["terraform-plan", 41, 54, 22, 22, 0],
  "cloudsplaining/example-authz-details.json": ["iam-authorization-details", 41, 12, 27, 27, 0],
  "cloudmapper/account-data/demo": ["aws-api", 43, 104, 21, 21, 0],
  "cloudmapper/account-data/demo/us-east-1/iam-get-account-authorization-details.json": [
    "iam-authorization-details",
    9,
    8,
    12,
    12,
    0,
  ],
  "prowler/ocsf/test_prowler_output.ocsf.json": ["prowler-ocsf", 0, 0, 1, 0, 1],
  "driftctl/state/aws_db_instance.tfstate": ["terraform", 1, 0, 1, 1, 0],
  "driftctl/state/aws_default_network_acl.tfstate": ["terraform", 1, 2, 1, 1, 0],
  "driftctl/state/aws_ec2_instance.tfstate": ["terraform", 1, 0, 1, 1, 0],
  "driftctl/state/aws_iam_policy_multiple.tfstate": ["terraform", 3, 0, 0, 0, 0],
  "driftctl/state/aws_iam_role_multiple.tfstate": ["terraform", 3, 3, 0, 0, 0],
  "driftctl/state/aws_iam_role_policy_attachment.tfstate": ["terraform", 0, 0, 0, 0, 0],
  "driftctl/state/aws_iam_role_policy_multiple.tfstate": ["terraform", 0, 0, 0, 0, 0],
  "driftctl/state/aws_iam_user_multiple.tfstate": ["terraform", 3, 0, 0, 0, 0],
  "driftctl/state/aws_iam_user_policy_attachment.tfstate": ["terraform", 0, 0, 0, 0, 0],
  "driftctl/state/aws_iam_user_policy_multiple.tfstate": ["terraform", 0, 0, 0, 0, 0],
  "driftctl/state/aws_kms_key.tfstate": ["terraform", 3, 4, 0, 0, 0],
  "driftctl/state/aws_lambda_function.tfstate": ["terraform", 2, 0, 0, 0, 0],
  "driftctl/state/aws_lb_listener.tfstate": ["terraform", 6, 9, 0, 0, 0],
  "driftctl/state/aws_s3_account_public_access_block.tfstate": ["terraform", 0, 0, 0, 0, 0],
  "driftctl/state/aws_s3_bucket_public_access_block.tfstate": ["terraform", 0, 0, 0, 0, 0],
  "driftctl/state/aws_s3_full.tfstate": ["terraform", 3, 6, 9, 9, 0],
  "driftctl/state/aws_subnet.tfstate": ["terraform", 6, 0, 0, 0, 0],
  "driftctl/state/aws_vpc.tfstate": ["terraform", 2, 0, 2, 2, 0],
  "driftctl/state/aws_vpc_security_group.tfstate": ["terraform", 2, 3, 4, 4, 0],
  "driftctl/state/aws_vpc_security_group_rule.tfstate": ["terraform", 4, 12, 6, 6, 0],
  "driftctl/state/azurerm_network_security_group.tfstate": ["terraform", 3, 3, 3, 3, 0],
  "driftctl/state/google_bucket_iam_binding.tfstate": ["terraform", 2, 0, 0, 0, 0],
  "driftctl/state/google_compute_firewall.tfstate": ["terraform", 1, 0, 0, 0, 0],
  "driftctl/state/google_compute_instance.tfstate": ["terraform", 1, 0, 0, 0, 0],
};

/** Every data file under the cloud fixtures (licences, provenance and readmes aside). */
function fixtureFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of Deno.readDirSync(dir)) {
    const path = join(dir, e.name);
    if (e.isDirectory) out.push(...fixtureFiles(path));
    else if (!/^(LICENSE|PROVENANCE\.md|README\.md)$/.test(e.name)) out.push(path);
  }
  return out;
}

Deno.test("load_dataset reads every cloud fixture by detection, with counts per kind", async () => {
  const { client, close } = await session();
  try {
    const covered = new Set<string>();
    for (
      const [rel, [kind, assets, edges, findings, rules, unmapped]] of Object.entries(
        FIXTURE_LOADS,
      )
    ) {
      const r = await load(client, { path: `${CLOUD}${rel}`, activate: false });
      assert.deepEqual(
        [r.summary.kind, r.summary.total_assets, r.summary.total_findings],
        [kind, assets, findings],
        rel,
      );
      const listing = (await ok(client, "list_datasets", {})).result.datasets.find(
        (d: Loose) => d.name === r.loaded,
      );
      assert.deepEqual(
        [
          listing.kind,
          listing.assets,
          listing.edges,
          listing.findings,
          r.notes.rule_findings,
          r.notes.unmapped_findings,
        ],
        [kind, assets, edges, findings, rules, unmapped],
        rel,
      );
      covered.add(rel.startsWith("cloudmapper/") ? "cloudmapper/account-data/demo" : rel);
      // Keep within the 16-dataset limit.
      await ok(client, "unload_dataset", { name: r.loaded });
    }
    // The two invalid-version states are refused with the version named; nothing is added.
    const before = await workspaceState(client);
    const invalid = await fails(client, "load_dataset", {
      path: `${CLOUD}driftctl/state/invalid/invalid_version.tfstate`,
    });
    assert.match(invalid.message, /terraform_version "invalid", which is not a valid/);
    assert.deepEqual(invalid.details, {
      importer: "terraform",
      file: "invalid_version.tfstate",
    });
    const unsupported = await fails(client, "load_dataset", {
      path: `${CLOUD}driftctl/state/invalid/unsupported_version.tfstate`,
    });
    assert.match(unsupported.message, /"0\.10\.26", which is not supported/);
    assert.equal(await workspaceState(client), before);
    covered.add("driftctl/state/invalid/invalid_version.tfstate");
    covered.add("driftctl/state/invalid/unsupported_version.tfstate");
    // Every fixture file is covered (the dump's files by its folder; the CIS facts feed the rules).
    for (const f of fixtureFiles(CLOUD)) {
      const rel = f.slice(CLOUD.length);
      if (rel.startsWith("prowler/compliance/")) continue;
      const key = rel.startsWith("cloudmapper/account-data/demo/")
        ? "cloudmapper/account-data/demo"
        : rel;
      assert.ok(covered.has(key), rel);
    }
  } finally {
    await close();
  }
});

Deno.test("load_dataset detects the scanner samples: ASFF, Checkov, Trivy, ScoutSuite, OCSF lines", async () => {
  const ocsfLines = (JSON.parse(await Deno.readTextFile(OCSF)) as unknown[])
    .map((x) => JSON.stringify(x)).join("\n") + "\n";
  await withScratch({
    "asff.json": JSON.stringify(ASFF_REPORT),
    "checkov.json": JSON.stringify(CHECKOV_REPORT),
    "checkov-out/results_json.json": JSON.stringify(CHECKOV_REPORT),
    "trivy.json": JSON.stringify(TRIVY_REPORT),
    "scoutsuite_results_aws-demo.js": SCOUTSUITE_SCRIPT,
    "scout-report/scoutsuite-results/scoutsuite_results_aws-demo.js": SCOUTSUITE_SCRIPT,
    "prowler.ocsf.jsonl": ocsfLines,
  }, async (dir) => {
    const { client, close } = await session(dir);
    try {
      const expected: [string, string][] = [
        ["asff.json", "prowler-asff"],
        ["checkov.json", "checkov"],
        ["checkov-out", "checkov"],
        ["trivy.json", "trivy"],
        ["scoutsuite_results_aws-demo.js", "scoutsuite"],
        ["scout-report", "scoutsuite"],
        ["prowler.ocsf.jsonl", "prowler-ocsf"],
      ];
      const seen: Record<string, number> = {};
      for (const [file, kind] of expected) {
        const r = await load(client, { path: join(dir, file), activate: false });
        const entry = (await ok(client, "list_datasets", {})).result.datasets.find(
          (d: Loose) => d.name === r.loaded,
        );
        assert.equal(entry.kind, kind, file);
        seen[file] = entry.findings;
      }
      // Failed items only: one ASFF finding, two failed Checkov checks (file or folder), a CVE, a
      // Dockerfile misconfiguration and a secret from Trivy, two flagged ScoutSuite items, and
      // the one failed finding of the OCSF fixture read as JSON Lines.
      assert.deepEqual(seen, {
        "asff.json": 1,
        "checkov.json": 2,
        "checkov-out": 2,
        "trivy.json": 3,
        "scoutsuite_results_aws-demo.js": 2,
        "scout-report": 2,
        "prowler.ocsf.jsonl": 1,
      });
    } finally {
      await close();
    }
  });
});

Deno.test("load_dataset with kind forces a reader; a file of another kind is refused", async () => {
  const { client, close } = await session();
  try {
    const before = await workspaceState(client);
    const cases: [string, string, RegExp][] = [
      ["checkov/tfplan.json", "terraform", /tfplan\.json is not a Terraform state/],
      ["driftctl/state/aws_vpc.tfstate", "terraform-plan", /is not a Terraform plan/],
      [
        "prowler/ocsf/test_prowler_output.ocsf.json",
        "checkov",
        /is not Checkov output/,
      ],
      ["checkov/tfplan.json", "trivy", /is not a Trivy report/],
      ["checkov/tfplan.json", "prowler", /is not Prowler output/],
      ["driftctl/state/aws_vpc.tfstate", "iam-authorization-details", /not IAM authorization/],
      ["driftctl/state/aws_vpc.tfstate", "aws-api", /not a directory/],
      ["cloudmapper/account-data/demo", "terraform", /Cannot read demo as terraform input/],
    ];
    for (const [rel, kind, message] of cases) {
      const error = await fails(client, "load_dataset", { path: `${CLOUD}${rel}`, kind });
      assert.equal(error.code, "invalid_request", `${rel} as ${kind}`);
      assert.match(error.message, message, `${rel} as ${kind}`);
    }
    const unknown = await fails(client, "load_dataset", { path: OCSF, kind: "nessus" });
    assert.match(unknown.message, /kind/);
    assert.equal(await workspaceState(client), before);
    // Forced as the kind it is, or as prowler (either format by content), it loads.
    const ocsf = await load(client, { path: OCSF, kind: "prowler", name: "ocsf" });
    assert.deepEqual([ocsf.summary.kind, ocsf.summary.total_findings], ["prowler", 1]);
    const plan = await load(client, {
      path: `${CLOUD}checkov/tfplan.json`,
      kind: "terraform-plan",
    });
    assert.deepEqual([plan.summary.kind, plan.summary.total_assets], ["terraform-plan", 41]);
  } finally {
    await close();
  }
});

Deno.test("our rules fire on load and their findings map to the loaded assets", async () => {
  const { client, close } = await session();
  try {
    const r = await load(client, {
      path: `${CLOUD}driftctl/state/aws_vpc_security_group.tfstate`,
      name: "sg",
    });
    assert.equal(r.notes.rule_findings, 4);
    assert.equal(r.notes.unmapped_findings, 0);
    // The state's test-sg admits all traffic from 0.0.0.0/0 (ingress protocol -1, cidr
    // 0.0.0.0/0): all ports, SSH and RDP open, read through the asset's real group id.
    const read = await client.readResource({
      uri: "cloudg://assets/sg-0254c038e32f25530/findings",
    });
    const body = JSON.parse((read.contents[0] as { text: string }).text);
    assert.equal(body.asset.id, "aws_security_group.test-sg");
    assert.deepEqual(body.findings.map((f: Loose) => [f.id, f.severity, f.source_tool]), [
      ["f-all-ports-open:aws_security_group.test-sg", "CRITICAL", "casefile-rules"],
      ["f-ssh-open:aws_security_group.test-sg", "HIGH", "casefile-rules"],
      ["f-rdp-open:aws_security_group.test-sg", "HIGH", "casefile-rules"],
    ]);
    const iam = await load(client, {
      path: `${CLOUD}cloudsplaining/example-authz-details.json`,
      name: "iam",
    });
    // The IAM importer runs the rules itself: loading runs them again without doubling.
    assert.equal(iam.notes.rule_findings, 27);
    const listing = (await ok(client, "list_datasets", {})).result.datasets;
    assert.equal(listing.find((d: Loose) => d.name === "iam").findings, 27);
  } finally {
    await close();
  }
});
