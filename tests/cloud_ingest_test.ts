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
import { fails, type Loose, ok, withClient } from "./helpers/in_memory.ts";
import { workspaceListing } from "./helpers/cloud_client.ts";
import { cloudWorkbenchWith } from "../src/cloud/workbench.ts";
import {
  ASFF_REPORT,
  CHECKOV_REPORT,
  SCOUTSUITE_SCRIPT,
  TRIVY_REPORT,
} from "./helpers/cloud_scanner_samples.ts";
import { plannedResource, planOf } from "./helpers/terraform_plans.ts";

const FIXTURES = new URL("../../shared/fixtures/", import.meta.url).pathname;
const CLOUD = `${FIXTURES}cloud/`;
const OCSF = `${CLOUD}prowler/ocsf/test_prowler_output.ocsf.json`;

/**
 * Runs `body` with a client on the demo estate whose roots are the fixtures
 * (and the `scratch` folder when given), closing it afterwards.
 */
async function withSession(
  options: { scratch?: string },
  body: (client: Client) => Promise<void>,
): Promise<void> {
  await withClient({
    roots: options.scratch ? [FIXTURES, options.scratch] : [FIXTURES],
    workbenches: [cloudWorkbenchWith({ demo: true })],
  }, async (client) => {
    await body(client);
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

async function load(client: Client, args: Record<string, unknown>): Promise<Loose> {
  return (await ok(client, "load_dataset", args)).result;
}

/** Relative path → [kind, assets, edges, findings, rule findings, unmapped findings]. */
const FIXTURE_LOADS: Record<string, [string, number, number, number, number, number]> = {
  "checkov/tfplan.json": ["terraform-plan", 41, 56, 22, 22, 0],
  // 29 findings: 27, and AdministratorAccess attached to the user obama and the group admin.
  "cloudsplaining/example-authz-details.json": ["iam-authorization-details", 41, 12, 29, 29, 0],
  "cloudmapper/account-data/demo": ["aws-api", 44, 109, 21, 21, 0],
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
  // 4 edges: the default group's ingress rule with self = true is one (jq '.resources[0]…ingress').
  "driftctl/state/aws_vpc_security_group.tfstate": ["terraform", 2, 4, 4, 4, 0],
  // 14 edges: two rules whose source is their own group (jq: source_security_group_id = security_group_id).
  "driftctl/state/aws_vpc_security_group_rule.tfstate": ["terraform", 4, 14, 6, 6, 0],
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
  await withSession({}, async (client) => {
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
    const before = await workspaceListing(client);
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
    assert.deepStrictEqual(await workspaceListing(client), before);
    covered.add("driftctl/state/invalid/invalid_version.tfstate");
    covered.add("driftctl/state/invalid/unsupported_version.tfstate");
    // Prowler's CIS control-to-check facts feed our rules' compliance mapping; they are not a
    // dataset, and load_dataset says so without changing anything.
    for (const provider of ["aws", "azure", "gcp"]) {
      const rel = `prowler/compliance/cis_3.0_${provider}.json`;
      const error = await fails(client, "load_dataset", { path: `${CLOUD}${rel}` });
      assert.match(error.message, /no input of a known kind/, rel);
      covered.add(rel);
    }
    assert.deepStrictEqual(await workspaceListing(client), before);
    // Every fixture file is covered (the dump's files by its folder).
    for (const f of fixtureFiles(CLOUD)) {
      const rel = f.slice(CLOUD.length);
      const key = rel.startsWith("cloudmapper/account-data/demo/")
        ? "cloudmapper/account-data/demo"
        : rel;
      assert.ok(covered.has(key), rel);
    }
  });
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
    await withSession({ scratch: dir }, async (client) => {
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
    });
  });
});

Deno.test("load_dataset with kind forces a reader; a file of another kind is refused", async () => {
  await withSession({}, async (client) => {
    const before = await workspaceListing(client);
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
      ["driftctl/state/aws_vpc.tfstate", "generic", /has none of assets, edges, findings/],
      ["checkov/tfplan.json", "report", /has neither findings nor assets/],
      ["driftctl/state/aws_vpc.tfstate", "inventory", /has no assets/],
    ];
    for (const [rel, kind, message] of cases) {
      const error = await fails(client, "load_dataset", { path: `${CLOUD}${rel}`, kind });
      assert.equal(error.code, "invalid_request", `${rel} as ${kind}`);
      assert.match(error.message, message, `${rel} as ${kind}`);
    }
    const unknown = await fails(client, "load_dataset", { path: OCSF, kind: "nessus" });
    assert.match(unknown.message, /kind/);
    assert.deepStrictEqual(await workspaceListing(client), before);
    // Forced as the kind it is, or as prowler (either format by content), it loads.
    const ocsf = await load(client, { path: OCSF, kind: "prowler", name: "ocsf" });
    assert.deepEqual([ocsf.summary.kind, ocsf.summary.total_findings], ["prowler", 1]);
    const plan = await load(client, {
      path: `${CLOUD}checkov/tfplan.json`,
      kind: "terraform-plan",
    });
    assert.deepEqual([plan.summary.kind, plan.summary.total_assets], ["terraform-plan", 41]);
  });
});

Deno.test("our rules fire on load and their findings map to the loaded assets", async () => {
  await withSession({}, async (client) => {
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
    assert.equal(iam.notes.rule_findings, 29);
    const listing = (await ok(client, "list_datasets", {})).result.datasets;
    assert.equal(listing.find((d: Loose) => d.name === "iam").findings, 29);
  });
});

Deno.test("ingest_reports merges the Prowler OCSF fixture into the demo sample and notifies", async () => {
  await withSession({}, async (client) => {
    const uri = "cloudg://datasets/sample/summary";
    const updated: string[] = [];
    const seen = new Promise<void>((resolve) => {
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (note) => {
        updated.push(note.params.uri);
        if (note.params.uri === uri) resolve();
      });
    });
    await client.subscribeResource({ uri });
    const result = (await ok(client, "ingest_reports", {
      reports: { prowler: [OCSF] },
      dataset: "sample",
    })).result;
    assert.deepEqual(result, {
      dataset: "sample",
      version: 1,
      created: false,
      replaced: false,
      reports: [{
        tool: "prowler",
        kind: "prowler",
        file: "test_prowler_output.ocsf.json",
        findings: 1,
      }],
      added: 1,
      duplicates: 0,
      normalised: { before: 13, after: 13 },
      total_findings: 13,
      // f-ghost (a bucket the estate does not hold) and the fixture's finding, whose account
      // is not the demo's.
      unmapped_findings: 2,
    });
    await seen;
    assert.ok(updated.includes(uri));
    const summary = (await ok(client, "dataset_summary", { dataset: "sample" })).result;
    assert.deepEqual([summary.version, summary.total_findings], [1, 13]);
    // The same report again: its finding id is already there, nothing changes.
    const again = (await ok(client, "ingest_reports", {
      reports: { prowler: [OCSF] },
      dataset: "sample",
      normalise: false,
    })).result;
    assert.deepEqual([again.version, again.added, again.duplicates, again.normalised], [
      1,
      0,
      1,
      null,
    ]);
    // A new dataset, named by default, made active.
    const fresh = (await ok(client, "ingest_reports", {
      reports: { "prowler-ocsf": [OCSF] },
      new_dataset: true,
    })).result;
    assert.deepEqual([fresh.dataset, fresh.version, fresh.created, fresh.total_findings], [
      "ingested",
      0,
      true,
      1,
    ]);
    assert.equal((await ok(client, "list_datasets", {})).result.active_dataset, "ingested");
    // The default name is made unique; an explicit name already loaded needs replace.
    const second = (await ok(client, "ingest_reports", {
      reports: { prowler: [OCSF] },
      new_dataset: true,
      activate: false,
    })).result;
    assert.deepEqual([second.dataset, second.created, second.replaced], [
      "ingested-2",
      true,
      false,
    ]);
    const replaced = (await ok(client, "ingest_reports", {
      reports: { prowler: [OCSF] },
      dataset: "ingested",
      new_dataset: true,
      replace: true,
    })).result;
    assert.deepEqual([replaced.dataset, replaced.replaced], ["ingested", true]);
  });
});

Deno.test("ingest_reports refuses bad input and leaves the workspace unchanged", async () => {
  await withScratch(
    { "cut.ocsf.json": (await Deno.readTextFile(OCSF)).slice(0, 400) },
    async (dir) => {
      await withSession({ scratch: dir }, async (client) => {
        const before = await workspaceListing(client);
        const refuse = async (args: Record<string, unknown>, message: RegExp) => {
          const error = await fails(client, "ingest_reports", args);
          assert.match(error.message, message, JSON.stringify(args));
          assert.deepStrictEqual(await workspaceListing(client), before, JSON.stringify(args));
          return error;
        };
        const unknownTool = await refuse(
          { reports: { nessus: [OCSF] }, dataset: "sample" },
          /report tool/,
        );
        assert.ok(Array.isArray(unknownTool.details?.valid ?? unknownTool.details?.close_matches));
        await refuse({ reports: {}, dataset: "sample" }, /1 to 100 report paths/);
        await refuse({ reports: { prowler: [OCSF] }, dataset: "nope" }, /No dataset of that name/);
        await refuse(
          { reports: { prowler: [OCSF] }, dataset: "sample", new_dataset: true },
          /already loaded/,
        );
        // A good report then a report of another kind: nothing is merged.
        await refuse(
          {
            reports: { prowler: [OCSF], trivy: [`${CLOUD}checkov/tfplan.json`] },
            dataset: "sample",
          },
          /is not a Trivy report/,
        );
        // A truncated report is refused with its position.
        await refuse(
          { reports: { prowler: [join(dir, "cut.ocsf.json")] }, dataset: "sample" },
          /cut\.ocsf\.json/,
        );
        // A path outside the roots.
        await refuse({ reports: { prowler: ["/etc/hostname"] }, dataset: "sample" }, /root/i);
      });
    },
  );
});

Deno.test("normalise_findings and reachability_findings change the dataset only when asked", async () => {
  await withSession({}, async (client) => {
    const first = (await ok(client, "normalise_findings", { dataset: "sample" })).result;
    // No duplicates in the demo estate; CIS tags gain the family name (CIS-AWS → CIS, CIS-AWS).
    assert.deepEqual(
      [first.version, first.changed, first.before, first.after, first.merged_ids],
      [1, true, 12, 12, []],
    );
    assert.deepEqual(first.frameworks, [
      "CIS",
      "CIS-AWS",
      "CIS-AZURE",
      "CIS-GCP",
      "NIST-800-53",
      "PCI-DSS",
    ]);
    const second = (await ok(client, "normalise_findings", { dataset: "sample" })).result;
    assert.deepEqual([second.version, second.changed], [1, false]);

    // The demo's one path from the internet to a sensitive store: the ALB's group, the web
    // tier's, the database's, then orders-db (spec §10.1).
    const look = (await ok(client, "reachability_findings", { dataset: "sample" })).result;
    assert.deepEqual([look.version, look.total, look.added], [1, 1, 0]);
    assert.deepEqual(
      look.findings.map((f: Loose) => [f.resource_id, f.severity, f.source_tool, f.evidence]),
      [[
        "orders-db",
        "HIGH",
        "cloudg-reachability",
        "0.0.0.0/0 -> sg-alb -> sg-web -> sg-db -> orders-db",
      ]],
    );
    const add = (await ok(client, "reachability_findings", {
      dataset: "sample",
      add_to_dataset: true,
    })).result;
    assert.deepEqual([add.version, add.added, add.findings[0].id], [2, 1, look.findings[0].id]);
    const finding = await client.readResource({ uri: add.findings[0].uri });
    assert.match((finding.contents[0] as { text: string }).text, /orders-db/);
    const again = (await ok(client, "reachability_findings", {
      dataset: "sample",
      add_to_dataset: true,
    })).result;
    assert.deepEqual([again.version, again.added], [2, 0]);
    const error = await fails(client, "reachability_findings", { dataset: "sample", limit: 0 });
    assert.ok(error.message.length > 0);
    assert.ok((await fails(client, "normalise_findings", { dataset: "nope" })).message);
  });
});

Deno.test("a Terraform plan diffed against the state it changes shows the planned changes", async () => {
  // A plan written from the driftctl state: the default group is deleted, test-sg's open
  // ingress narrows to 10.0.0.0/8, and a new group opens SSH to the internet.
  const state = JSON.parse(
    await Deno.readTextFile(`${CLOUD}driftctl/state/aws_vpc_security_group.tfstate`),
  );
  type StateResource = {
    type: string;
    name: string;
    mode: string;
    instances: { attributes: Record<string, unknown> }[];
  };
  const resources = state.resources as StateResource[];
  const testSg = resources.find((r) => r.name === "test-sg")!;
  const narrowed = {
    ...testSg.instances[0]!.attributes,
    ingress: [{
      cidr_blocks: ["10.0.0.0/8"],
      description: "Foo",
      from_port: 0,
      ipv6_cidr_blocks: [],
      prefix_list_ids: [],
      protocol: "-1",
      security_groups: [],
      self: false,
      to_port: 0,
    }],
  };
  const ssh = {
    name: "ssh",
    vpc_id: testSg.instances[0]!.attributes["vpc_id"],
    ingress: [{
      cidr_blocks: ["0.0.0.0/0"],
      description: "ssh",
      from_port: 22,
      ipv6_cidr_blocks: [],
      prefix_list_ids: [],
      protocol: "tcp",
      security_groups: [],
      self: false,
      to_port: 22,
    }],
    egress: [],
    tags: {},
  };
  const change = (type: string, name: string, actions: string[]) => ({
    address: `${type}.${name}`,
    mode: "managed",
    type,
    name,
    change: { actions },
  });
  const plan = planOf([
    plannedResource("aws_security_group", "test-sg", narrowed),
    plannedResource("aws_security_group", "ssh", ssh),
  ], {
    resource_changes: [
      change("aws_default_security_group", "test-default-sg", ["delete"]),
      change("aws_security_group", "test-sg", ["update"]),
      change("aws_security_group", "ssh", ["create"]),
    ],
  });
  await withScratch({ "plan.json": JSON.stringify(plan) }, async (dir) => {
    await withSession({ scratch: dir }, async (client) => {
      await load(client, {
        path: `${CLOUD}driftctl/state/aws_vpc_security_group.tfstate`,
        name: "state",
      });
      const loaded = await load(client, { path: join(dir, "plan.json"), name: "planned" });
      assert.equal(loaded.summary.kind, "terraform-plan");
      assert.equal(loaded.notes.skipped["planned for deletion"], 1);
      const diff = (await ok(client, "diff_datasets", { base: "state", target: "planned" }))
        .result;
      const ids = (section: { items: { id: string }[] }) => section.items.map((x) => x.id).sort();
      assert.deepEqual(ids(diff.assets.added), ["aws_security_group.ssh"]);
      assert.deepEqual(ids(diff.assets.removed), ["aws_default_security_group.test-default-sg"]);
      const changed = diff.assets.changed.items.find((x: Loose) =>
        x.id === "aws_security_group.test-sg"
      );
      assert.ok(changed, JSON.stringify(diff.assets.changed));
      assert.deepEqual(changed.internet_exposed, { before: true, after: false });
      // The metadata keys that differ are named: the narrowed group no longer admits the
      // internet, and a plan's asset says its source and planned actions.
      assert.deepEqual(changed.changed_fields, [
        "internet_exposed",
        "metadata_hash",
        "metadata.internet_ingress",
        "metadata.plan_actions",
        "metadata.source",
      ]);
      // The new group's SSH opening is new; the narrowed group's three and the deleted default
      // group's finding are resolved.
      assert.deepEqual(ids(diff.findings.new), ["f-ssh-open:aws_security_group.ssh"]);
      assert.deepEqual(ids(diff.findings.resolved), [
        "f-all-ports-open:aws_security_group.test-sg",
        "f-default-sg-traffic:aws_default_security_group.test-default-sg",
        "f-rdp-open:aws_security_group.test-sg",
        "f-ssh-open:aws_security_group.test-sg",
      ]);
      assert.deepEqual(ids(diff.newly_internet_exposed), ["aws_security_group.ssh"]);
    });
  });
});
