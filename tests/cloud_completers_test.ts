import assert from "node:assert/strict";
import { cloudCompleters, type CompleterSpec, type RefCandidate } from "../src/cloud/completers.ts";
import { sampleRecords } from "../src/cloud/demo/estate.ts";
import { Workspace } from "../src/cloud/workspace/workspace.ts";
import { demoWorkspace } from "./helpers/cloud_estate.ts";

// The matching the core engine performs, written out plainly: NFKC + lower-case,
// prefix (or prefix then substring, or substring) over the candidate's keys,
// code-point order or source order, at most 100 values.
function codePointOrder(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0)!);
  const y = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

function plainComplete<C extends string | RefCandidate>(
  spec: CompleterSpec<C>,
  value: string,
  context: Record<string, string> = {},
): { values: string[]; total: number; hasMore: boolean } {
  const norm = (s: string): string => spec.normalize ? s.normalize("NFKC").toLowerCase() : s;
  const input = norm(spec.upperCaseInput ? value.toUpperCase() : value);
  const starts: string[] = [];
  const contains: string[] = [];
  for (const candidate of spec.source({ arguments: context })) {
    const label = typeof candidate === "string" ? candidate : candidate.value;
    const keys = typeof candidate === "string" ? [candidate] : candidate.keys;
    if (keys.some((k) => norm(k).startsWith(input))) {
      (spec.match === "substring" ? contains : starts).push(label);
    } else if (spec.match !== "prefix" && keys.some((k) => norm(k).includes(input))) {
      contains.push(label);
    }
  }
  const order = (list: string[]): string[] =>
    spec.order === "code-point" ? [...list].sort(codePointOrder) : list;
  const all = [...new Set([...order(starts), ...order(contains)])];
  return { values: all.slice(0, 100), total: all.length, hasMore: all.length > 100 };
}

Deno.test("cloudCompleters() asset: 'web' on sample gives six values, prefix matches first", () => {
  const c = cloudCompleters(demoWorkspace());
  assert.deepEqual(plainComplete(c.asset, "web"), {
    values: ["web-1", "web-2", "web-acl", "web-alb", "web-tg", "sg-web"],
    total: 6,
    hasMore: false,
  });
});

Deno.test("cloudCompleters() asset: 'arn:aws:iam' gives the seven IAM assets by name", () => {
  const answer = plainComplete(cloudCompleters(demoWorkspace()).asset, "arn:aws:iam");
  assert.deepEqual(answer.values.slice(0, 3), ["api-lambda-role", "app-role", "bastion-admin"]);
  assert.equal(answer.total, 7);
  assert.equal(answer.values.length, 7);
  assert.equal(answer.hasMore, false);
});

Deno.test("cloudCompleters() asset: 'arn:aws:rds' gives orders-db only", () => {
  const answer = plainComplete(cloudCompleters(demoWorkspace()).asset, "arn:aws:rds");
  assert.deepEqual(answer.values, ["orders-db"]);
});

Deno.test("cloudCompleters() framework: 'cis' gives the three CIS frameworks of sample", () => {
  assert.deepEqual(plainComplete(cloudCompleters(demoWorkspace()).framework, "cis"), {
    values: ["CIS-AWS", "CIS-Azure", "CIS-GCP"],
    total: 3,
    hasMore: false,
  });
});

Deno.test("cloudCompleters() asset: 'orders' gives the database and its secret", () => {
  assert.deepEqual(plainComplete(cloudCompleters(demoWorkspace()).asset, "orders"), {
    values: ["orders-db", "orders-db-credentials"],
    total: 2,
    hasMore: false,
  });
});

Deno.test("cloudCompleters() asset: context dataset 'after' has no web-acl", () => {
  const answer = plainComplete(cloudCompleters(demoWorkspace()).asset, "web", {
    dataset: "after",
  });
  assert.deepEqual(answer, {
    values: ["web-1", "web-2", "web-alb", "web-tg", "sg-web"],
    total: 5,
    hasMore: false,
  });
});

Deno.test("cloudCompleters() finding: 'f-r' gives f-rdp-open; ids case-sensitive, risk order", () => {
  const c = cloudCompleters(demoWorkspace());
  assert.deepEqual(plainComplete(c.finding, "f-r"), {
    values: ["f-rdp-open"],
    total: 1,
    hasMore: false,
  });
  assert.equal(plainComplete(c.finding, "F-R").total, 0);
  const all = plainComplete(c.finding, "").values;
  assert.equal(all.length, 12);
  assert.deepEqual(all.slice(0, 3), ["f-ssh-open", "f-rdp-open", "f-web-cve"]);
});

Deno.test("cloudCompleters() topic: 'd' gives data-models and dependencies; 'edge' two", () => {
  const c = cloudCompleters(demoWorkspace());
  assert.deepEqual(plainComplete(c.topic, "d"), {
    values: ["data-models", "dependencies"],
    total: 2,
    hasMore: false,
  });
  assert.deepEqual(plainComplete(c.topic, "edge").values, ["edges", "edge-types"]);
});

Deno.test("cloudCompleters() severity, dataset, formats and asset types", () => {
  const c = cloudCompleters(demoWorkspace());
  assert.deepEqual(plainComplete(c.severity, "h").values, ["HIGH"]);
  assert.deepEqual(plainComplete(c.severity, "c").values, ["CRITICAL"]);
  assert.deepEqual(plainComplete(c.dataset, "s").values, ["sample"]);
  assert.deepEqual(plainComplete(c.dataset, "").values, ["sample", "after"]);
  assert.deepEqual(plainComplete(c.graph_format, "g").values, ["graphml"]);
  assert.deepEqual(plainComplete(c.ontology_format, "").values, ["turtle", "json-ld", "xml", "nt"]);
  assert.deepEqual(plainComplete(c.asset_type, "ec").values, ["EC2", "ECS_CLUSTER"]);
  assert.ok(plainComplete(c.framework, "aws").values.includes("CIS-AWS"));
});

Deno.test("cloudCompleters() with no dataset: assets empty, frameworks from the rulesets", () => {
  const c = cloudCompleters(new Workspace());
  assert.equal(plainComplete(c.asset, "").total, 0);
  assert.equal(plainComplete(c.finding, "").total, 0);
  const cis = plainComplete(c.framework, "cis").values;
  assert.deepEqual(cis, ["CIS-AWS", "CIS-AZURE", "CIS-GCP"]);
  assert.equal(plainComplete(c.framework, "").total, 28);
});

Deno.test("cloudCompleters() asset: a shared name completes to ARN or id, not the name", () => {
  const workspace = new Workspace();
  const records = sampleRecords();
  const twin = { ...records.assets.find((a) => a.id === "web-1")!, id: "web-1-copy", arn: null };
  records.assets.push(twin);
  workspace.add("twins", records);
  const answer = plainComplete(cloudCompleters(workspace).asset, "web-1");
  assert.deepEqual(answer.values, [
    "arn:aws:ec2:us-east-1:111111111111:instance/i-0a00000000000b001",
    "web-1-copy",
  ]);
});
