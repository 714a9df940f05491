/**
 * The IAM authorization-details importer and the policy evaluation under it.
 * The cloudsplaining fixture's provenance states no expected results, so the
 * records here were checked by hand with jq on example-authz-details.json.
 */

import assert from "node:assert/strict";
import { fileImportInput, ImportError } from "../src/cloud/importers/import_input.ts";
import { iamAuthorizationImporter } from "../src/cloud/importers/iam_authorization.ts";
import {
  decide,
  grantsOnResource,
  isWildcardAdmin,
  parsePolicy,
  privilegeEscalations,
} from "../src/cloud/importers/iam_policy.ts";
import { withTempDir } from "./helpers/temp_dir.ts";
import { hasProgram, type Loose, ok, run, withTempRoot } from "./helpers/in_memory.ts";
import { cloudWorkbench } from "../src/cloud/workbench.ts";
import { sharedFixture } from "./helpers/shared_fixtures.ts";

const FILE = sharedFixture("cloud/cloudsplaining/example-authz-details.json");
const ACCT = "012345678901";
const HAS_JQ = hasProgram("jq");
if (!HAS_JQ) console.log("jq is not on PATH: the AWS-managed policy account test is skipped");

Deno.test("iamAuthorizationImporter: principals, policies and their edges", async () => {
  const r = (await iamAuthorizationImporter.load(fileImportInput(FILE))).records;
  const count = (t: string): number => r.assets.filter((a) => a.asset_type === t).length;
  // jq '{u: (.UserDetailList|length), g: (.GroupDetailList|length), r: (.RoleDetailList|length), p: (.Policies|length)}'
  assert.equal(count("IAM_USER"), 3);
  assert.equal(count("IAM_GROUP"), 2);
  assert.equal(count("IAM_ROLE"), 3);
  assert.equal(count("IAM_POLICY"), 32);
  assert.equal(r.assets.length, 41); // plus one instance profile
  const has = (type: string, s: string, t: string): boolean =>
    r.edges.some((e) => e.edge_type === type && e.source_id === s && e.target_id === t);
  // jq '.UserDetailList[] | select(.UserName=="obama") | {GroupList, AttachedManagedPolicies}'
  assert.ok(has("CONTAINS", `arn:aws:iam::${ACCT}:group/admin`, `arn:aws:iam::${ACCT}:user/obama`));
  assert.ok(
    has(
      "IAM_POLICY_ATTACHMENT",
      `arn:aws:iam::${ACCT}:user/obama`,
      "arn:aws:iam::aws:policy/AdministratorAccess",
    ),
  );
  // jq '.RoleDetailList[] | {RoleName, p: .AssumeRolePolicyDocument.Statement[].Principal}'
  const trust = r.edges.filter((e) => e.edge_type === "IAM_TRUST");
  assert.deepEqual(trust.map((e) => `${e.source_id}>${e.target_id.split("/").pop()}`).sort(), [
    "ec2.amazonaws.com>OverprivilegedEC2",
    "ssm.amazonaws.com>MyOtherRole",
    "ssm.amazonaws.com>MyRole",
  ]);
  assert.equal(trust[0]!.properties.cross_account, false);
});

Deno.test("iamAuthorizationImporter: a group's one managed policy written as an object is attached", async () => {
  // The AWS CLI documentation's example output writes each group's AttachedManagedPolicies
  // as one object; the users in the group hold that policy all the same.
  const admins = `arn:aws:iam::${ACCT}:group/Admins`;
  const details = {
    GroupDetailList: [{
      GroupName: "Admins",
      Arn: admins,
      GroupPolicyList: [],
      AttachedManagedPolicies: {
        PolicyName: "AdministratorAccess",
        PolicyArn: "arn:aws:iam::aws:policy/AdministratorAccess",
      },
    }],
    UserDetailList: [],
    RoleDetailList: [],
    Policies: [],
  };
  const r = await iamAuthorizationImporter.load({ ...fileImportInput("d.json"), json: details });
  assert.deepEqual(
    r.records.edges.map((e) => `${e.edge_type} ${e.source_id} > ${e.target_id}`),
    [`IAM_POLICY_ATTACHMENT ${admins} > arn:aws:iam::aws:policy/AdministratorAccess`],
  );
});

Deno.test("iamAuthorizationImporter: one page of a truncated listing loads with a warning", async () => {
  const page = { UserDetailList: [], GroupDetailList: [], RoleDetailList: [], Policies: [] };
  const load = (doc: Record<string, unknown>) =>
    iamAuthorizationImporter.load({ ...fileImportInput("d.json"), json: doc });
  assert.deepEqual((await load(page)).notes.warnings, []);
  const truncated = await load({ ...page, IsTruncated: true, Marker: "next" });
  assert.equal(truncated.notes.warnings.length, 1);
  assert.match(truncated.notes.warnings[0]!, /IsTruncated is true/);
});

Deno.test("iamAuthorizationImporter: wildcard admin, escalation and exfiltration findings", async () => {
  const r = (await iamAuthorizationImporter.load(fileImportInput(FILE))).records;
  const ids = new Set(r.findings.map((f) => f.id));
  assert.ok(ids.has("f-iam-wildcard-admin:arn:aws:iam::aws:policy/AdministratorAccess"));
  assert.ok(!ids.has("f-iam-wildcard-admin:arn:aws:iam::aws:policy/PowerUserAccess"));
  // Who holds AWS's AdministratorAccess (jq '[.UserDetailList[], .GroupDetailList[], .RoleDetailList[]
  // | select(any(.AttachedManagedPolicies[]; .PolicyArn | endswith("/AdministratorAccess")))
  // | .Arn]'): the user obama and the group admin, as Prowler's iam_*_administrator_access_policy
  // checks report them.
  assert.deepEqual(
    r.findings.filter((f) => f.id.startsWith("f-iam-administrator-access-attached:")).map((f) =>
      f.resource_id
    ).sort(),
    [`arn:aws:iam::${ACCT}:group/admin`, `arn:aws:iam::${ACCT}:user/obama`],
  );
  // MyRole's inline policy (jq '.RoleDetailList[0].RolePolicyList'): iam:PassRole + instance-profile actions, no ec2:RunInstances.
  assert.ok(!ids.has(`f-iam-privilege-escalation:arn:aws:iam::${ACCT}:role/MyRole`));
  // OverprivilegedEC2 holds iam:CreateAccessKey (jq '.RoleDetailList[] | select(.RoleName=="OverprivilegedEC2")')
  const ec2 = r.findings.find((f) =>
    f.id === `f-iam-privilege-escalation:arn:aws:iam::${ACCT}:role/OverprivilegedEC2`
  )!;
  assert.match(ec2.evidence, /CreateAccessKey/);
  assert.ok(ids.has(`f-iam-data-exfiltration:arn:aws:iam::${ACCT}:user/obama`));
  assert.ok(r.compliance.some((c) => c.id === "CIS-AWS:1.16" && c.status === "FAIL"));
});

Deno.test("iamAuthorizationImporter refuses other JSON and truncated files", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/x.json`, '{"Findings": []}');
    await assert.rejects(
      () => iamAuthorizationImporter.load(fileImportInput(`${dir}/x.json`)),
      (e: unknown) => e instanceof ImportError && /not IAM authorization details/.test(e.message),
    );
    const text = await Deno.readTextFile(FILE);
    await Deno.writeTextFile(`${dir}/cut.json`, text.slice(0, 1000));
    await assert.rejects(
      () => iamAuthorizationImporter.load(fileImportInput(`${dir}/cut.json`)),
      (e: unknown) => e instanceof ImportError && /cut\.json is not valid JSON/.test(e.message),
    );
  });
});

Deno.test("decide() honours NotAction, conditions and Deny", () => {
  const s = parsePolicy({
    Statement: [
      { Effect: "Allow", NotAction: ["iam:*"], Resource: "*" },
      { Effect: "Deny", Action: "s3:DeleteBucket", Resource: "*" },
      {
        Effect: "Deny",
        Action: "ec2:*",
        Resource: "*",
        Condition: { Bool: { "aws:MultiFactorAuthPresent": "false" } },
      },
      {
        Effect: "Allow",
        Action: "iam:PassRole",
        Resource: "*",
        Condition: { StringEquals: { "iam:PassedToService": "ec2.amazonaws.com" } },
      },
    ],
  });
  assert.deepEqual(decide(s, "s3:GetObject"), { allowed: true, conditional: false });
  assert.deepEqual(decide(s, "s3:DeleteBucket"), { allowed: false, conditional: false });
  assert.deepEqual(decide(s, "iam:CreateUser"), { allowed: false, conditional: false });
  assert.deepEqual(decide(s, "iam:PassRole"), { allowed: true, conditional: true });
  assert.deepEqual(decide(s, "ec2:RunInstances"), { allowed: true, conditional: false });
  assert.equal(isWildcardAdmin(s), false);
  assert.ok(privilegeEscalations(s).includes("CreateEC2WithExistingInstanceProfile"));
  assert.equal(
    isWildcardAdmin(parsePolicy('{"Statement":{"Effect":"Allow","Action":"*","Resource":"*"}}')),
    true,
  );
});

Deno.test("grantsOnResource() matches resource patterns, objects under buckets and whole-service denies", () => {
  const s = parsePolicy({
    Statement: [
      { Effect: "Allow", Action: ["s3:GetObject"], Resource: "arn:aws:s3:::data-*/*" },
      { Effect: "Allow", Action: "sqs:*", Resource: "*" },
      { Effect: "Deny", Action: "sqs:*", Resource: "arn:aws:sqs:*:*:secret" },
    ],
  });
  assert.equal(grantsOnResource(s, "arn:aws:s3:::data-lake").granted, true);
  assert.equal(grantsOnResource(s, "arn:aws:s3:::logs").granted, false);
  assert.equal(grantsOnResource(s, "arn:aws:sqs:us-east-1:1:jobs").granted, true);
  assert.equal(grantsOnResource(s, "arn:aws:sqs:us-east-1:1:secret").granted, false);
  assert.equal(grantsOnResource(s, "arn:aws:sns:us-east-1:1:t").granted, false);
});

Deno.test(
  "AWS-managed policies belong to no account in list_accounts, dataset_summary, find_assets and cross_account_edges",
  { ignore: !HAS_JQ },
  async () => {
    const doc = { Version: "2012-10-17", Statement: [{ Effect: "Allow", Action: "*" }] };
    const details = {
      UserDetailList: [],
      RoleDetailList: [],
      GroupDetailList: [{
        GroupName: "ops",
        Arn: `arn:aws:iam::${ACCT}:group/ops`,
        GroupPolicyList: [],
        AttachedManagedPolicies: [
          {
            PolicyName: "AdministratorAccess",
            PolicyArn: "arn:aws:iam::aws:policy/AdministratorAccess",
          },
          { PolicyName: "ops-extra", PolicyArn: `arn:aws:iam::${ACCT}:policy/ops-extra` },
        ],
      }],
      Policies: [
        {
          PolicyName: "ReadOnlyAccess",
          Arn: "arn:aws:iam::aws:policy/ReadOnlyAccess",
          DefaultVersionId: "v1",
          PolicyVersionList: [{ VersionId: "v1", IsDefaultVersion: true, Document: doc }],
        },
        {
          PolicyName: "ops-extra",
          Arn: `arn:aws:iam::${ACCT}:policy/ops-extra`,
          DefaultVersionId: "v1",
          PolicyVersionList: [{ VersionId: "v1", IsDefaultVersion: true, Document: doc }],
        },
      ],
    };
    await withTempRoot("cloud-iam-accounts-", async ({ client, dir }) => {
      const file = `${dir}/authz.json`;
      await Deno.writeTextFile(file, JSON.stringify(details));
      // The peer: the 12-digit account fields of the ARNs (AWS-managed ones read `aws`).
      const accounts: string[] = JSON.parse(
        await run("jq", [
          "-c",
          `[.. | strings | select(startswith("arn:aws:iam::")) | split(":")[4]
            | select(test("^[0-9]{12}$"))] | unique`,
          file,
        ]),
      );
      const managed = Number(
        await run("jq", [
          `[.. | strings | select(startswith("arn:aws:iam::aws:policy/"))] | unique | length`,
          file,
        ]),
      );
      assert.ok(managed > 0);
      await ok(client, "load_dataset", { path: file, name: "authz" });
      const listed = (await ok(client, "list_accounts", { dataset: "authz" })).result.items;
      assert.deepEqual(listed.map((a: Loose) => a.account_id), [...accounts, "unknown"]);
      assert.equal(listed.at(-1).assets, managed);
      const summary = (await ok(client, "dataset_summary", { dataset: "authz" })).result;
      assert.equal(summary.accounts, accounts.length);
      assert.equal(summary.cross_account_edges, 0);
      // Every list_accounts row, `unknown` included, is what the account filters find.
      for (const id of [...accounts, "unknown", "aws"]) {
        const row = listed.find((a: Loose) => a.account_id === id);
        const found = (await ok(client, "find_assets", { dataset: "authz", account_id: id }))
          .result;
        assert.equal(found.total, row?.assets ?? 0, id);
        const counted = (await ok(client, "count_assets", { dataset: "authz", account_id: id }))
          .result;
        assert.equal(counted.total, row?.assets ?? 0, id);
      }
      const cross = (await ok(client, "cross_account_edges", { dataset: "authz" })).result;
      assert.equal(cross.total, 0);
    }, { workbenches: [cloudWorkbench] });
  },
);
