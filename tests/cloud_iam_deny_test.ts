/**
 * Explicit Deny, NotAction and NotPrincipal in resource, trust and identity
 * policies. The oracle is AWS's documented policy evaluation logic
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html):
 * an explicit Deny in any applicable policy overrides every Allow (an
 * identity policy's Deny of sts:AssumeRole included, whatever the role's
 * trust policy says); an Allow with NotPrincipal admits everyone but the
 * principals it names, anonymous callers included; a Deny with NotAction
 * refuses every action but the ones it lists. Principals named by ARN are
 * the dataset's assets with that ARN; one of an account no asset belongs to
 * is external. The inputs are small Terraform states and
 * authorization-details documents written here.
 */

import assert from "node:assert/strict";
import { fileImportInput } from "../src/cloud/importers/import_input.ts";
import { iamAuthorizationImporter } from "../src/cloud/importers/iam_authorization.ts";
import { terraformStateImporter } from "../src/cloud/importers/terraform_state.ts";
import {
  decide,
  grantsOnResource,
  isWildcardAdmin,
  parsePolicy,
  trustedPrincipals,
  withinBoundary,
} from "../src/cloud/importers/iam_policy.ts";
import type { DatasetRecords } from "../src/cloud/model/records.ts";
import { type Loose, ok, withTempRoot } from "./helpers/in_memory.ts";
import { cloudWorkbench } from "../src/cloud/workbench.ts";

const A = "111111111111";
const B = "444444444444";
const AWS_PROVIDER = 'provider["registry.terraform.io/hashicorp/aws"]';

/** One managed resource of a state, with one instance. */
function resource(
  type: string,
  name: string,
  attributes: Record<string, unknown>,
): Record<string, unknown> {
  return {
    mode: "managed",
    type,
    name,
    provider: AWS_PROVIDER,
    instances: [{ schema_version: 0, attributes }],
  };
}

/** A version-4 state holding the resources. */
function state(resources: Record<string, unknown>[]): Record<string, unknown> {
  return {
    version: 4,
    terraform_version: "1.5.7",
    serial: 1,
    lineage: "deny-test",
    outputs: {},
    resources,
  };
}

const doc = (...statements: Record<string, unknown>[]): string =>
  JSON.stringify({ Version: "2012-10-17", Statement: statements });

/** A bucket and its policy resource. */
function bucket(name: string, ...statements: Record<string, unknown>[]): Record<string, unknown>[] {
  const out = [
    resource("aws_s3_bucket", name, { id: name, bucket: name, arn: `arn:aws:s3:::${name}` }),
  ];
  if (statements.length > 0) {
    out.push(
      resource("aws_s3_bucket_policy", name, {
        id: name,
        bucket: name,
        policy: doc(...statements),
      }),
    );
  }
  return out;
}

/** A role (in account `account`), with an inline policy when statements are given. */
function role(
  name: string,
  trust: Record<string, unknown>[],
  inline: Record<string, unknown>[] = [],
  account = A,
): Record<string, unknown>[] {
  const out = [
    resource("aws_iam_role", name, {
      id: name,
      name,
      arn: `arn:aws:iam::${account}:role/${name}`,
      assume_role_policy: doc(...trust),
    }),
  ];
  if (inline.length > 0) {
    out.push(
      resource("aws_iam_role_policy", `${name}_p`, {
        id: `${name}:p`,
        name: "p",
        role: name,
        policy: doc(...inline),
      }),
    );
  }
  return out;
}

async function loadState(resources: Record<string, unknown>[]): Promise<DatasetRecords> {
  return (await terraformStateImporter.load({
    ...fileImportInput("crafted.tfstate"),
    json: state(resources),
  })).records;
}

const everyone = { Effect: "Allow", Principal: { AWS: "*" } };
const assume = { Action: "sts:AssumeRole" };

const lambdaTrust = [{
  Effect: "Allow",
  Principal: { Service: "lambda.amazonaws.com" },
  ...assume,
}];
const edgesInto = (r: DatasetRecords, target: string, type: string) =>
  r.edges.filter((e) => e.target_id === target && e.edge_type === type);
const findingIds = (r: DatasetRecords): Set<string> => new Set(r.findings.map((f) => f.id));

// 1. An explicit Deny in a resource or trust policy.

Deno.test("terraformStateImporter: an unconditional Deny covering a public grant removes it", async () => {
  const objects = (b: string) => [`arn:aws:s3:::${b}`, `arn:aws:s3:::${b}/*`];
  const r = await loadState([
    // Control: a plain public grant.
    ...bucket("open", {
      Effect: "Allow",
      Principal: "*",
      Action: "s3:GetObject",
      Resource: objects("open"),
    }),
    ...bucket(
      "denied",
      { ...everyone, Action: "s3:*", Resource: objects("denied") },
      { Effect: "Deny", Principal: "*", Action: "s3:*", Resource: objects("denied") },
    ),
    // A Deny of one action leaves the others public.
    ...bucket(
      "partly",
      { ...everyone, Action: "s3:*", Resource: objects("partly") },
      { Effect: "Deny", Principal: "*", Action: "s3:DeleteBucket", Resource: objects("partly") },
    ),
    // A Deny of the bucket but not its objects leaves the objects public.
    ...bucket(
      "objects",
      { ...everyone, Action: "s3:*", Resource: objects("objects") },
      { Effect: "Deny", Principal: "*", Action: "s3:*", Resource: "arn:aws:s3:::objects" },
    ),
    ...role("open_role", [{ ...everyone, ...assume }]),
    ...role("deny_trust_role", [{ ...everyone, ...assume }, {
      Effect: "Deny",
      Principal: { AWS: "*" },
      ...assume,
    }]),
  ]);
  const ids = findingIds(r);
  for (const name of ["open", "partly", "objects"]) {
    const id = `aws_s3_bucket.${name}`;
    assert.equal(
      edgesInto(r, id, "GRANTS_ACCESS").filter((e) => e.source_id === "*").length,
      1,
      name,
    );
    assert.equal(edgesInto(r, id, "INTERNET_EXPOSED").length, 1, name);
    assert.ok(ids.has(`f-bucket-public:${id}`), name);
  }
  const denied = "aws_s3_bucket.denied";
  assert.deepEqual(edgesInto(r, denied, "GRANTS_ACCESS"), []);
  assert.deepEqual(edgesInto(r, denied, "INTERNET_EXPOSED"), []);
  assert.equal(r.assets.find((a) => a.id === denied)!.is_internet_exposed, false);
  assert.ok(!ids.has(`f-bucket-public:${denied}`));

  assert.equal(edgesInto(r, "aws_iam_role.open_role", "IAM_TRUST").length, 1);
  assert.ok(ids.has("f-iam-trust-any:aws_iam_role.open_role"));
  assert.deepEqual(edgesInto(r, "aws_iam_role.deny_trust_role", "IAM_TRUST"), []);
  assert.ok(!ids.has("f-iam-trust-any:aws_iam_role.deny_trust_role"));
  assert.equal(
    r.assets.find((a) => a.id === "aws_iam_role.deny_trust_role")!.is_internet_exposed,
    false,
  );
});

Deno.test("trustedPrincipals(): a conditional Deny keeps the grant, conditional when it pins the caller", () => {
  const grant = { ...everyone, Action: "s3:GetObject", Resource: "arn:aws:s3:::b/*" };
  const deny = { Effect: "Deny", Principal: "*", Action: "s3:*", Resource: "arn:aws:s3:::b/*" };
  // The usual VPC-endpoint lock: everyone but callers through vpce-1 is refused.
  const vpce = trustedPrincipals(parsePolicy({
    Statement: [grant, { ...deny, Condition: { StringNotEquals: { "aws:SourceVpce": "vpce-1" } } }],
  }));
  assert.deepEqual(vpce.map((p) => [p.value, p.conditional]), [["*", true]]);
  // TLS enforcement refuses plain HTTP only: HTTPS callers from anywhere are still admitted.
  const tls = trustedPrincipals(parsePolicy({
    Statement: [grant, { ...deny, Condition: { Bool: { "aws:SecureTransport": "false" } } }],
  }));
  assert.deepEqual(tls.map((p) => [p.value, p.conditional]), [["*", false]]);
  // A Deny of another account's principals leaves anyone (and the rest) admitted.
  const other = trustedPrincipals(parsePolicy({
    Statement: [grant, { ...deny, Principal: { AWS: `arn:aws:iam::${B}:root` } }],
  }));
  assert.deepEqual(other.map((p) => p.value), ["*"]);
  // An account's root in a Deny covers that account's principals.
  const named = trustedPrincipals(parsePolicy({
    Statement: [
      {
        Effect: "Allow",
        Principal: { AWS: [`arn:aws:iam::${B}:role/x`, `arn:aws:iam::${A}:role/y`] },
        Action: "s3:GetObject",
        Resource: "arn:aws:s3:::b/*",
      },
      { ...deny, Principal: { AWS: B } },
    ],
  }));
  assert.deepEqual(named.map((p) => p.value), [`arn:aws:iam::${A}:role/y`]);
});

Deno.test("iamAuthorizationImporter: a trust policy's Deny of anyone removes the trust and the finding", async () => {
  const roleOf = (name: string, statements: Record<string, unknown>[]) => ({
    RoleName: name,
    Arn: `arn:aws:iam::${A}:role/${name}`,
    AssumeRolePolicyDocument: { Version: "2012-10-17", Statement: statements },
    RolePolicyList: [],
    AttachedManagedPolicies: [],
    InstanceProfileList: [],
  });
  const r = (await iamAuthorizationImporter.load({
    ...fileImportInput("d.json"),
    json: {
      UserDetailList: [],
      GroupDetailList: [],
      Policies: [],
      RoleDetailList: [
        roleOf("r_star", [{ Effect: "Allow", Principal: "*", ...assume }]),
        roleOf("r_denytrust", [{ ...everyone, ...assume }, {
          Effect: "Deny",
          Principal: "*",
          ...assume,
        }]),
      ],
    },
  })).records;
  const ids = findingIds(r);
  assert.ok(ids.has(`f-iam-trust-any:arn:aws:iam::${A}:role/r_star`));
  assert.ok(!ids.has(`f-iam-trust-any:arn:aws:iam::${A}:role/r_denytrust`));
  assert.deepEqual(edgesInto(r, `arn:aws:iam::${A}:role/r_denytrust`, "IAM_TRUST"), []);
});

// 2. Deny and NotAction in identity policies.

Deno.test("terraformStateImporter: identity Deny and NotAction cut grants, admin and exfiltration", async () => {
  const r = await loadState([
    ...bucket("data"),
    resource("aws_db_instance", "db", {
      id: "orders",
      identifier: "orders",
      arn: `arn:aws:rds:us-east-1:${A}:db:orders`,
    }),
    // Control: every action, no Deny.
    ...role("r_admin", lambdaTrust, [{ Effect: "Allow", Action: "*", Resource: "*" }]),
    // Everything, then a Deny of every action but s3:GetObject: only s3:GetObject is left.
    ...role("r_denyall_notact", lambdaTrust, [
      { Effect: "Allow", Action: "*", Resource: "*" },
      { Effect: "Deny", NotAction: "s3:GetObject", Resource: "*" },
    ]),
    // Reading one bucket's objects, then a Deny of all of S3 on that bucket: nothing is left.
    ...role("r_denyobj", lambdaTrust, [
      { Effect: "Allow", Action: "s3:GetObject", Resource: "arn:aws:s3:::data/*" },
      { Effect: "Deny", Action: "s3:*", Resource: ["arn:aws:s3:::data", "arn:aws:s3:::data/*"] },
    ]),
  ]);
  const grants = (role: string) =>
    r.edges.filter((e) => e.edge_type === "GRANTS_ACCESS" && e.source_id === `aws_iam_role.${role}`)
      .map((e) => `${e.target_id} ${e.description}`).sort();
  assert.deepEqual(grants("r_admin"), ["aws_db_instance.db *", "aws_s3_bucket.data *"]);
  assert.deepEqual(grants("r_denyall_notact"), ["aws_s3_bucket.data s3:GetObject"]);
  assert.deepEqual(grants("r_denyobj"), []);
  const ids = findingIds(r);
  assert.ok(ids.has("f-iam-wildcard-admin:aws_iam_role.r_admin"));
  assert.ok(!ids.has("f-iam-wildcard-admin:aws_iam_role.r_denyall_notact"));
  assert.ok(ids.has("f-iam-data-exfiltration:aws_iam_role.r_denyall_notact"));
  assert.ok(!ids.has("f-iam-data-exfiltration:aws_iam_role.r_denyobj"));
  const meta = (role: string) => r.assets.find((a) => a.id === `aws_iam_role.${role}`)!.metadata;
  assert.deepEqual(meta("r_denyall_notact").exfiltration_actions, ["s3:GetObject"]);
  assert.deepEqual(meta("r_denyall_notact").privilege_escalation, []);
  assert.deepEqual(meta("r_denyobj").exfiltration_actions, []);
});

Deno.test("terraformStateImporter: a principal's own unconditional Deny overrides a bucket policy's grant to it", async () => {
  const roleArn = (name: string) => `arn:aws:iam::${A}:role/${name}`;
  const result = await terraformStateImporter.load({
    ...fileImportInput("crafted.tfstate"),
    json: state([
      ...bucket("shared", {
        Effect: "Allow",
        Principal: { AWS: ["r_plain", "r_denied", "r_partial", "r_cond", "r_other"].map(roleArn) },
        Action: "s3:GetObject",
        Resource: "arn:aws:s3:::shared/*",
      }),
      // Control: nothing of its own.
      ...role("r_plain", lambdaTrust),
      // All of S3, everywhere: the bucket policy's s3:GetObject is refused.
      ...role("r_denied", lambdaTrust, [{ Effect: "Deny", Action: "s3:*", Resource: "*" }]),
      // Another action only: the grant stands.
      ...role("r_partial", lambdaTrust, [{
        Effect: "Deny",
        Action: "s3:PutObject",
        Resource: "*",
      }]),
      // A conditional Deny refuses nothing provably.
      ...role("r_cond", lambdaTrust, [{
        Effect: "Deny",
        Action: "s3:*",
        Resource: "*",
        Condition: { Bool: { "aws:SecureTransport": "false" } },
      }]),
      // Another bucket only: the grant stands.
      ...role("r_other", lambdaTrust, [
        { Effect: "Deny", Action: "s3:*", Resource: "arn:aws:s3:::elsewhere/*" },
      ]),
    ]),
  });
  const granted = edgesInto(result.records, "aws_s3_bucket.shared", "GRANTS_ACCESS")
    .filter((e) => (e.properties as Loose).via === "resource_policy")
    .map((e) => e.source_id).sort();
  assert.deepEqual(granted, [
    "aws_iam_role.r_cond",
    "aws_iam_role.r_other",
    "aws_iam_role.r_partial",
    "aws_iam_role.r_plain",
  ]);
  assert.ok(
    result.notes.warnings.some((w) =>
      /^1 resource-policy grant is left out: the principal's own/.test(w)
    ),
    result.notes.warnings.join("\n"),
  );
});

Deno.test("terraformStateImporter: a permissions boundary caps what a role's own policies grant", async () => {
  const boundaryArn = `arn:aws:iam::${A}:policy/reads-data`;
  const withBoundary = (name: string, boundary: string) => {
    const [r, ...rest] = role(name, lambdaTrust, [{ Effect: "Allow", Action: "*", Resource: "*" }]);
    const attributes = (r!.instances as Loose[])[0].attributes;
    attributes.permissions_boundary = boundary;
    return [r!, ...rest];
  };
  const r = await terraformStateImporter.load({
    ...fileImportInput("crafted.tfstate"),
    json: state([
      ...bucket("data"),
      ...bucket("other"),
      resource("aws_db_instance", "db", {
        id: "orders",
        identifier: "orders",
        arn: `arn:aws:rds:us-east-1:${A}:db:orders`,
      }),
      resource("aws_iam_policy", "reads_data", {
        id: boundaryArn,
        arn: boundaryArn,
        name: "reads-data",
        policy: doc(
          { Effect: "Allow", Action: "s3:GetObject", Resource: "arn:aws:s3:::data/*" },
          { Effect: "Allow", Action: "iam:PassRole", Resource: "*" },
        ),
      }),
      // Control: the same policy, no boundary.
      ...role("r_free", lambdaTrust, [{ Effect: "Allow", Action: "*", Resource: "*" }]),
      ...withBoundary("r_bounded", boundaryArn),
      // A boundary whose document the state does not hold: not applied, and said so.
      ...withBoundary("r_unknown", `arn:aws:iam::${A}:policy/elsewhere`),
    ]),
  });
  const records = r.records;
  const grants = (name: string) =>
    records.edges.filter((e) =>
      e.edge_type === "GRANTS_ACCESS" && e.source_id === `aws_iam_role.${name}`
    ).map((e) => `${e.target_id} ${e.description}`).sort();
  assert.deepEqual(grants("r_free"), [
    "aws_db_instance.db *",
    "aws_s3_bucket.data *",
    "aws_s3_bucket.other *",
  ]);
  assert.deepEqual(grants("r_bounded"), ["aws_s3_bucket.data s3:GetObject"]);
  assert.deepEqual(grants("r_unknown"), grants("r_free"));
  const meta = (name: string) =>
    records.assets.find((a) => a.id === `aws_iam_role.${name}`)!.metadata;
  assert.deepEqual(meta("r_bounded").exfiltration_actions, ["s3:GetObject"]);
  // iam:PassRole alone completes no escalation method.
  assert.deepEqual(meta("r_bounded").privilege_escalation, []);
  assert.ok((meta("r_free").privilege_escalation as string[]).length > 5);
  assert.equal(meta("r_bounded").permissions_boundary_applied, true);
  assert.equal(meta("r_unknown").permissions_boundary_applied, false);
  assert.deepEqual(meta("r_unknown").privilege_escalation, meta("r_free").privilege_escalation);
  assert.ok(
    r.notes.warnings.some((w) =>
      /^1 principal has a permissions boundary whose policy document/.test(w)
    ),
    r.notes.warnings.join("\n"),
  );
  const ids = findingIds(records);
  assert.ok(ids.has("f-iam-privilege-escalation:aws_iam_role.r_free"), [...ids].join("\n"));
  assert.ok(!ids.has("f-iam-privilege-escalation:aws_iam_role.r_bounded"));
});

Deno.test("terraformStateImporter: a queue policy's grant needs another account's principal to allow it too, and holds a role (not a user) to its boundary", async () => {
  const roleArn = (name: string, account: string) => `arn:aws:iam::${account}:role/${name}`;
  const s3Only = `arn:aws:iam::${A}:policy/s3-only`;
  const bounded = (type: "aws_iam_role" | "aws_iam_user", name: string) =>
    resource(type, name, {
      id: name,
      name,
      arn: `arn:aws:iam::${A}:${type === "aws_iam_role" ? "role" : "user"}/${name}`,
      permissions_boundary: s3Only,
      ...(type === "aws_iam_role" ? { assume_role_policy: doc(...lambdaTrust) } : {}),
    });
  const result = await terraformStateImporter.load({
    ...fileImportInput("crafted.tfstate"),
    json: state([
      // A queue's ARN names its account (a bucket's does not).
      resource("aws_sqs_queue", "shared", {
        id: `https://sqs.us-east-1.amazonaws.com/${A}/shared`,
        name: "shared",
        arn: `arn:aws:sqs:us-east-1:${A}:shared`,
        policy: doc({
          Effect: "Allow",
          Principal: {
            AWS: [
              roleArn("b_reads", B),
              roleArn("b_computes", B),
              roleArn("b_elsewhere", B),
              roleArn("a_bounded", A),
              `arn:aws:iam::${A}:user/a_user`,
            ],
          },
          Action: "sqs:ReceiveMessage",
          Resource: `arn:aws:sqs:us-east-1:${A}:shared`,
        }),
      }),
      resource("aws_iam_policy", "s3_only", {
        id: s3Only,
        arn: s3Only,
        name: "s3-only",
        policy: doc({ Effect: "Allow", Action: "s3:*", Resource: "*" }),
      }),
      // Account B's roles: one whose own policy reads queues, one that only runs instances.
      ...role(
        "b_reads",
        lambdaTrust,
        [{ Effect: "Allow", Action: "sqs:Receive*", Resource: "*" }],
        B,
      ),
      ...role("b_computes", lambdaTrust, [{ Effect: "Allow", Action: "ec2:*", Resource: "*" }], B),
      // Account A's role and user under a boundary that allows S3 only.
      bounded("aws_iam_role", "a_bounded"),
      bounded("aws_iam_user", "a_user"),
    ]),
  });
  const granted = edgesInto(result.records, "aws_sqs_queue.shared", "GRANTS_ACCESS")
    .filter((e) => (e.properties as Loose).via === "resource_policy")
    .map((e) => `${e.source_id} ${(e.properties as Loose).cross_account}`).sort();
  assert.deepEqual(granted, [
    // Not in the input: its own policies are unknown, so the grant stands.
    `${roleArn("b_elsewhere", B)} true`,
    "aws_iam_role.b_reads true",
    "aws_iam_user.a_user false",
  ]);
  const warnings = result.notes.warnings.join("\n");
  assert.match(
    warnings,
    /^1 resource-policy grant is left out: the principal is of another account/m,
  );
  assert.match(
    warnings,
    /^1 resource-policy grant is left out: the principal's permissions boundary/m,
  );
});

Deno.test("terraformStateImporter: a trust policy needs another account's principal to allow sts:AssumeRole too, and holds a role (not a user) to its boundary", async () => {
  const arnOf = (kind: string, name: string, account: string) =>
    `arn:aws:iam::${account}:${kind}/${name}`;
  const s3Only = `arn:aws:iam::${A}:policy/s3-only`;
  const bounded = (type: "aws_iam_role" | "aws_iam_user", name: string) =>
    resource(type, name, {
      id: name,
      name,
      arn: arnOf(type === "aws_iam_role" ? "role" : "user", name, A),
      permissions_boundary: s3Only,
      ...(type === "aws_iam_role" ? { assume_role_policy: doc(...lambdaTrust) } : {}),
    });
  const r = await loadState([
    ...role("target", [{
      Effect: "Allow",
      Principal: {
        AWS: [
          arnOf("role", "b_assumer", B),
          arnOf("role", "b_computes", B),
          arnOf("role", "a_bounded", A),
          arnOf("user", "a_user", A),
        ],
      },
      ...assume,
    }]),
    resource("aws_iam_policy", "s3_only", {
      id: s3Only,
      arn: s3Only,
      name: "s3-only",
      policy: doc({ Effect: "Allow", Action: "s3:*", Resource: "*" }),
    }),
    ...role("b_assumer", lambdaTrust, [{ Effect: "Allow", ...assume, Resource: "*" }], B),
    ...role("b_computes", lambdaTrust, [{ Effect: "Allow", Action: "ec2:*", Resource: "*" }], B),
    bounded("aws_iam_role", "a_bounded"),
    bounded("aws_iam_user", "a_user"),
  ]);
  const target = "aws_iam_role.target";
  assert.deepEqual(
    edgesInto(r, target, "IAM_TRUST").map((e) => e.source_id).sort(),
    ["aws_iam_role.b_assumer", "aws_iam_user.a_user"],
  );
  assert.deepEqual(
    (r.assets.find((a) => a.id === target)!.metadata.trust_not_allowed_by_principal as string[])
      .sort(),
    ["aws_iam_role.a_bounded", "aws_iam_role.b_computes"],
  );
});

Deno.test("withinBoundary() keeps the narrower of each pair of action patterns, or what both allow", () => {
  const bucket = "arn:aws:s3:::b";
  const policy = (...statements: Record<string, unknown>[]) =>
    parsePolicy({ Version: "2012-10-17", Statement: statements });
  const grant = (statements: Record<string, unknown>[], boundary: Record<string, unknown>[]) =>
    withinBoundary(grantsOnResource(policy(...statements), bucket), policy(...boundary), bucket);
  const allow = (action: unknown, resource: unknown = "*", extra = {}) => ({
    Effect: "Allow",
    Action: action,
    Resource: resource,
    ...extra,
  });
  assert.deepEqual(grant([allow("s3:*")], [allow("s3:Get*")]).actions, ["s3:Get*"]);
  assert.deepEqual(grant([allow("s3:GetObject")], [allow("*")]).actions, ["s3:GetObject"]);
  // Neither covers the other: what both allow (cloud_iam_action_patterns_test.ts has more).
  assert.deepEqual(grant([allow("s3:Get*")], [allow("s3:*Object")]).actions, ["s3:Get*Object"]);
  assert.equal(grant([allow("s3:Get*")], [allow("s3:Put*")]).granted, false);
  // The boundary grants on another bucket only.
  assert.equal(grant([allow("s3:*")], [allow("s3:*", "arn:aws:s3:::other")]).granted, false);
  // A boundary Deny takes its part away as in any policy.
  assert.deepEqual(
    grant([allow("s3:*")], [allow("s3:*"), { Effect: "Deny", Action: "s3:Put*", Resource: "*" }])
      .granted,
    true,
  );
  assert.equal(
    grant([allow("s3:PutObject")], [allow("s3:*"), {
      Effect: "Deny",
      Action: "s3:*",
      Resource: "*",
    }])
      .granted,
    false,
  );
  // Conditional when either side is.
  const conditional = grant([allow("s3:*")], [
    allow("s3:GetObject", "*", { Condition: { Bool: { "aws:SecureTransport": "true" } } }),
  ]);
  assert.deepEqual([conditional.granted, conditional.conditional], [true, true]);
  // Past 4,096 pattern pairs the identity's grant is kept, conditional (overstated, not hidden).
  const many = (prefix: string) => Array.from({ length: 70 }, (_, k) => `s3:${prefix}${k}`);
  const wide = grant([allow(many("Get"))], [allow(many("Put"))]);
  assert.deepEqual([wide.granted, wide.conditional, wide.actions.length], [true, true, 70]);
  assert.equal(grant([allow(many("Get").slice(0, 50))], [allow(many("Put"))]).granted, false);
  // An identity NotAction grant counts as the whole service.
  assert.deepEqual(
    grant([{ Effect: "Allow", NotAction: "iam:*", Resource: "*" }], [allow("s3:ListBucket")])
      .actions,
    ["s3:ListBucket"],
  );
});

Deno.test("iamAuthorizationImporter: a user's and a role's PermissionsBoundary cap their grants", async () => {
  const boundaryArn = `arn:aws:iam::${A}:policy/only-s3-read`;
  const policy = (arn: string, name: string, statements: Record<string, unknown>[]) => ({
    PolicyName: name,
    Arn: arn,
    DefaultVersionId: "v1",
    AttachmentCount: 1,
    PolicyVersionList: [{
      VersionId: "v1",
      IsDefaultVersion: true,
      Document: { Version: "2012-10-17", Statement: statements },
    }],
  });
  const adminArn = "arn:aws:iam::aws:policy/AdministratorAccess";
  const boundary = { PermissionsBoundaryType: "Policy", PermissionsBoundaryArn: boundaryArn };
  const admin = [{ PolicyName: "AdministratorAccess", PolicyArn: adminArn }];
  const details = {
    UserDetailList: [
      {
        UserName: "u",
        Arn: `arn:aws:iam::${A}:user/u`,
        AttachedManagedPolicies: admin,
        PermissionsBoundary: boundary,
      },
      { UserName: "free", Arn: `arn:aws:iam::${A}:user/free`, AttachedManagedPolicies: admin },
    ],
    GroupDetailList: [],
    RoleDetailList: [{
      RoleName: "r",
      Arn: `arn:aws:iam::${A}:role/r`,
      AssumeRolePolicyDocument: { Version: "2012-10-17", Statement: lambdaTrust },
      AttachedManagedPolicies: admin,
      PermissionsBoundary: boundary,
    }],
    Policies: [
      policy(adminArn, "AdministratorAccess", [{ Effect: "Allow", Action: "*", Resource: "*" }]),
      policy(boundaryArn, "only-s3-read", [{ Effect: "Allow", Action: "s3:Get*", Resource: "*" }]),
    ],
  };
  const r = await iamAuthorizationImporter.load({
    ...fileImportInput("details.json"),
    json: details,
  });
  const meta = (arn: string) => r.records.assets.find((a) => a.id === arn)!.metadata;
  for (const arn of [`arn:aws:iam::${A}:user/u`, `arn:aws:iam::${A}:role/r`]) {
    assert.deepEqual(meta(arn).exfiltration_actions, ["s3:GetObject"], arn);
    assert.deepEqual(meta(arn).privilege_escalation, [], arn);
    assert.equal(meta(arn).permissions_boundary, boundaryArn);
    assert.equal(meta(arn).permissions_boundary_applied, true);
  }
  assert.ok((meta(`arn:aws:iam::${A}:user/free`).privilege_escalation as string[]).length > 5);
});

Deno.test("the Terraform and authorization-details paths evaluate the same identity policy alike", async () => {
  const statements = [
    { Effect: "Allow", Action: "*", Resource: "*" },
    { Effect: "Deny", NotAction: "s3:GetObject", Resource: "*" },
  ];
  const tf = await loadState(role("u", lambdaTrust, statements));
  const iam = (await iamAuthorizationImporter.load({
    ...fileImportInput("d.json"),
    json: {
      GroupDetailList: [],
      RoleDetailList: [],
      Policies: [],
      UserDetailList: [{
        UserName: "u",
        Arn: `arn:aws:iam::${A}:user/u`,
        GroupList: [],
        AttachedManagedPolicies: [],
        UserPolicyList: [{ PolicyName: "p", PolicyDocument: { Statement: statements } }],
      }],
    },
  })).records;
  const facts = (r: DatasetRecords, id: string) => {
    const m = r.assets.find((a) => a.id === id)!.metadata;
    return {
      exfiltration: m.exfiltration_actions,
      escalation: m.privilege_escalation,
      admin: r.findings.some((f) => f.id === `f-iam-wildcard-admin:${id}`),
    };
  };
  const expected = { exfiltration: ["s3:GetObject"], escalation: [], admin: false };
  assert.deepEqual(facts(tf, "aws_iam_role.u"), expected);
  assert.deepEqual(facts(iam, `arn:aws:iam::${A}:user/u`), expected);
});

Deno.test("decide(), grantsOnResource() and isWildcardAdmin() take a Deny away only where it covers the Allow", () => {
  const s = parsePolicy({
    Statement: [
      {
        Effect: "Allow",
        Action: ["s3:GetObject", "s3:PutObject"],
        Resource: "arn:aws:s3:::logs-*/*",
      },
      { Effect: "Deny", Action: "s3:Get*", Resource: "arn:aws:s3:::logs-a" },
      { Effect: "Deny", Action: "s3:PutObject", Resource: "arn:aws:s3:::logs-*/*" },
      { Effect: "Allow", Action: "sqs:*", Resource: "*" },
      { Effect: "Deny", NotAction: "sqs:SendMessage", Resource: "arn:aws:sqs:*:*:jobs" },
    ],
  });
  // The first Deny names a bucket, not its objects: s3:GetObject on objects stays allowed.
  // (A `*` in an ARN pattern spans `/`, so arn:aws:s3:::logs-* would have named them.)
  assert.deepEqual(decide(s, "s3:GetObject"), { allowed: true, conditional: false });
  assert.deepEqual(decide(s, "s3:PutObject"), { allowed: false, conditional: false });
  assert.deepEqual(grantsOnResource(s, "arn:aws:s3:::logs-a").actions, ["s3:GetObject"]);
  assert.deepEqual(grantsOnResource(s, `arn:aws:sqs:us-east-1:${A}:jobs`).actions, [
    "sqs:SendMessage",
  ]);
  assert.deepEqual(grantsOnResource(s, `arn:aws:sqs:us-east-1:${A}:other`).actions, ["sqs:*"]);
  // A Deny whose pattern is not shown to cover the Allow's leaves the Allow standing.
  const unsure = parsePolicy({
    Statement: [
      { Effect: "Allow", Action: "s3:*", Resource: "arn:aws:s3:::a*" },
      { Effect: "Deny", Action: "s3:*", Resource: "arn:aws:s3:::*b" },
    ],
  });
  assert.equal(decide(unsure, "s3:GetObject").allowed, true);
  const admin = { Effect: "Allow", Action: "*", Resource: "*" };
  assert.equal(isWildcardAdmin(parsePolicy({ Statement: [admin] })), true);
  assert.equal(
    isWildcardAdmin(parsePolicy({
      Statement: [admin, { Effect: "Deny", NotAction: ["s3:GetObject"], Resource: "*" }],
    })),
    false,
  );
  assert.equal(
    isWildcardAdmin(parsePolicy({
      Statement: [admin, { Effect: "Deny", Action: "s3:DeleteBucket", Resource: "*" }],
    })),
    true,
  );
});

// 3. An identity Deny of sts:AssumeRole breaks the chain; 6. chains start at external accounts.

function chainDetails(denyAssume: boolean): Record<string, unknown> {
  const trust = (principal: string) => ({
    Version: "2012-10-17",
    Statement: [{ Effect: "Allow", Principal: { AWS: principal }, ...assume }],
  });
  const chain1Policies = [{
    PolicyName: "hop",
    PolicyDocument: {
      Statement: [
        { Effect: "Allow", Action: "sts:AssumeRole", Resource: `arn:aws:iam::${A}:role/r_chain2` },
        ...(denyAssume ? [{ Effect: "Deny", Action: "sts:AssumeRole", Resource: "*" }] : []),
      ],
    },
  }];
  const roleOf = (name: string, trusted: string, policies: unknown[] = []) => ({
    RoleName: name,
    Arn: `arn:aws:iam::${A}:role/${name}`,
    AssumeRolePolicyDocument: trust(trusted),
    RolePolicyList: policies,
    AttachedManagedPolicies: [],
    InstanceProfileList: [],
  });
  return {
    UserDetailList: [],
    GroupDetailList: [],
    Policies: [],
    RoleDetailList: [
      roleOf("r_chain1", "arn:aws:iam::333333333333:role/ext", chain1Policies),
      roleOf("r_chain2", `arn:aws:iam::${A}:role/r_chain1`),
    ],
  };
}

Deno.test("lateral_movement_paths and find_paths: an identity Deny of sts:AssumeRole breaks the role chain", async () => {
  await withTempRoot("cloud-iam-deny-", async ({ client, dir }) => {
    for (const deny of [false, true]) {
      const name = deny ? "denied" : "open";
      await Deno.writeTextFile(`${dir}/${name}.json`, JSON.stringify(chainDetails(deny)));
      await ok(client, "load_dataset", { path: `${dir}/${name}.json`, name });
    }
    const chains = async (dataset: string, start?: string): Promise<string[]> =>
      (await ok(client, "lateral_movement_paths", {
        dataset,
        max_depth: 6,
        ...(start ? { start } : {}),
      })).result.paths.map((p: Loose) => p.summary).sort();
    const ext = "arn:aws:iam::333333333333:role/ext";
    const full = `${ext} -> r_chain1 -> r_chain2`;
    assert.deepEqual(await chains("open", ext), [full]);
    assert.deepEqual(await chains("denied", ext), [`${ext} -> r_chain1`]);
    // 6: with no start, the chains start at the external principal too.
    assert.deepEqual(await chains("open"), [full]);
    assert.deepEqual(await chains("denied"), [`${ext} -> r_chain1`]);
    const hop = async (dataset: string) =>
      (await ok(client, "find_paths", { dataset, source: "r_chain1", target: "r_chain2" }))
        .result.total_found;
    assert.equal(await hop("open"), 1);
    assert.equal(await hop("denied"), 0);
    const chain2 = (await ok(client, "get_asset_metadata", { dataset: "denied", ref: "r_chain2" }))
      .result;
    assert.deepEqual(chain2.metadata.trust_denied_by_identity, [`arn:aws:iam::${A}:role/r_chain1`]);
  }, { workbenches: [cloudWorkbench] });
});

// 4. Allow with NotPrincipal.

Deno.test("terraformStateImporter: an Allow with NotPrincipal admits everyone else; a Deny with NotPrincipal keeps only those it names", async () => {
  const root = `arn:aws:iam::${A}:root`;
  const reader = `arn:aws:iam::${A}:role/reader`;
  const r = await loadState([
    ...bucket("notprincipal", {
      Effect: "Allow",
      NotPrincipal: { AWS: root },
      Action: "s3:GetObject",
      Resource: "arn:aws:s3:::notprincipal/*",
    }),
    ...bucket(
      "only-reader",
      {
        Effect: "Allow",
        Principal: "*",
        Action: "s3:GetObject",
        Resource: "arn:aws:s3:::only-reader/*",
      },
      {
        Effect: "Deny",
        NotPrincipal: { AWS: reader },
        Action: "s3:*",
        Resource: ["arn:aws:s3:::only-reader", "arn:aws:s3:::only-reader/*"],
      },
    ),
    ...role("reader", lambdaTrust),
    ...role("r_notprincipal", [{ Effect: "Allow", NotPrincipal: { AWS: root }, ...assume }]),
  ]);
  const ids = findingIds(r);
  const open = edgesInto(r, "aws_s3_bucket.notprincipal", "GRANTS_ACCESS");
  assert.deepEqual(open.map((e) => [e.source_id, e.properties.except_principals]), [["*", [root]]]);
  assert.equal(edgesInto(r, "aws_s3_bucket.notprincipal", "INTERNET_EXPOSED").length, 1);
  assert.ok(ids.has("f-bucket-public:aws_s3_bucket.notprincipal"));
  const trust = edgesInto(r, "aws_iam_role.r_notprincipal", "IAM_TRUST");
  assert.deepEqual(trust.map((e) => [e.source_id, e.properties.except_principals]), [["*", [
    root,
  ]]]);
  const finding = r.findings.find((f) => f.id === "f-iam-trust-any:aws_iam_role.r_notprincipal");
  assert.match(finding!.evidence, /every principal but arn:aws:iam::111111111111:root/);
  // Anyone is refused but the reader role, which the policy's Allow of `*` admits.
  const only = edgesInto(r, "aws_s3_bucket.only-reader", "GRANTS_ACCESS");
  assert.deepEqual(only.map((e) => e.source_id), ["aws_iam_role.reader"]);
  assert.ok(!ids.has("f-bucket-public:aws_s3_bucket.only-reader"));
});

// 5. Principals named by role ARN in a state; 6. accounts outside the dataset.

Deno.test("cross_account_edges, dataset_summary and lateral_movement_paths: role ARNs link to their assets and external accounts count", async () => {
  const resources = [
    ...role("xacct_role", [{
      Effect: "Allow",
      Principal: { AWS: "arn:aws:iam::999999999999:root" },
      ...assume,
    }]),
    ...role("chain_role", [{
      Effect: "Allow",
      Principal: { AWS: `arn:aws:iam::${A}:role/xacct_role` },
      ...assume,
    }]),
    ...role(
      "b_admin",
      [{ Effect: "Allow", Principal: { AWS: `arn:aws:iam::${A}:role/chain_role` }, ...assume }],
      [],
      B,
    ),
  ];
  const r = await loadState(resources);
  assert.deepEqual(
    r.edges.filter((e) => e.edge_type === "IAM_TRUST").map((e) =>
      `${e.source_id} > ${e.target_id}`
    ),
    [
      "arn:aws:iam::999999999999:root > aws_iam_role.xacct_role",
      "aws_iam_role.xacct_role > aws_iam_role.chain_role",
      "aws_iam_role.chain_role > aws_iam_role.b_admin",
    ],
  );
  await withTempRoot("cloud-iam-xacct-", async ({ client, dir }) => {
    await Deno.writeTextFile(`${dir}/two.tfstate`, JSON.stringify(state(resources)));
    await ok(client, "load_dataset", { path: `${dir}/two.tfstate`, name: "two" });
    const cross = (await ok(client, "cross_account_edges", {})).result;
    assert.deepEqual(
      cross.items.map((x: Loose) => [x.source, x.source_account, x.target_account, x.external]),
      [
        ["arn:aws:iam::999999999999:root", "999999999999", A, true],
        [`arn:aws:iam::${A}:role/chain_role`, A, B, false],
      ],
    );
    assert.deepEqual(cross.by_account_pair, { [`999999999999 -> ${A}`]: 1, [`${A} -> ${B}`]: 1 });
    assert.equal(
      (await ok(client, "cross_account_edges", { external_only: true })).result.total,
      1,
    );
    assert.equal((await ok(client, "dataset_summary", {})).result.cross_account_edges, 2);
    assert.equal((await ok(client, "get_edges", { cross_account_only: true })).result.total, 2);
    const chains = (args: Record<string, unknown>) =>
      ok(client, "lateral_movement_paths", { max_depth: 6, ...args }).then((x) =>
        x.result.paths.map((p: Loose) => p.summary)
      );
    assert.deepEqual(await chains({ start: "xacct_role" }), [
      "xacct_role -> chain_role -> b_admin",
    ]);
    // No start: from the external account (nothing here is internet-exposed).
    assert.deepEqual(await chains({}), [
      "arn:aws:iam::999999999999:root -> xacct_role -> chain_role -> b_admin",
    ]);
  }, { workbenches: [cloudWorkbench] });
});
