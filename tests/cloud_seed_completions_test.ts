/**
 * The seven completion examples of the cloudg seed, reproduced value for
 * value (with total and hasMore) on the demo estate through a real MCP
 * client, and the completion rules around them.
 */

import assert from "node:assert/strict";
import { connect, type Connected } from "./helpers/in_memory.ts";
import { cloudWorkbenchWith } from "../src/cloud/workbench.ts";
import { appsWorkbench } from "../src/apps/workbench.ts";

type Ref = { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string };

async function demo(): Promise<Connected> {
  return await connect({ workbenches: [appsWorkbench, cloudWorkbenchWith({ demo: true })] });
}

const SEED: [Ref, string, string, Record<string, string> | undefined, string[], number][] = [
  [
    { type: "ref/resource", uri: "cloudg://assets/{+ref}" },
    "ref",
    "web",
    undefined,
    ["web-1", "web-2", "web-acl", "web-alb", "web-tg", "sg-web"],
    6,
  ],
  [
    { type: "ref/resource", uri: "cloudg://assets/{+ref}/neighbors" },
    "ref",
    "arn:aws:iam",
    undefined,
    [
      "api-lambda-role",
      "app-role",
      "bastion-admin",
    ],
    7,
  ],
  [
    { type: "ref/resource", uri: "cloudg://compliance/{framework}" },
    "framework",
    "cis",
    undefined,
    ["CIS-AWS", "CIS-Azure", "CIS-GCP"],
    3,
  ],
  [
    { type: "ref/prompt", name: "investigate_asset" },
    "ref",
    "orders",
    undefined,
    ["orders-db", "orders-db-credentials"],
    2,
  ],
  [
    { type: "ref/prompt", name: "investigate_asset" },
    "ref",
    "web",
    { dataset: "after" },
    ["web-1", "web-2", "web-alb"],
    5,
  ],
  [
    { type: "ref/prompt", name: "incident_triage" },
    "finding_id",
    "f-r",
    undefined,
    ["f-rdp-open"],
    1,
  ],
  [
    { type: "ref/resource", uri: "cloudg://docs/{topic}" },
    "topic",
    "d",
    undefined,
    ["data-models", "dependencies"],
    2,
  ],
];

Deno.test("completion/complete reproduces the seven seed examples on the demo estate", async () => {
  const { client, close } = await demo();
  try {
    for (const [ref, name, value, context, first, total] of SEED) {
      const answer = await client.complete({
        ref,
        argument: { name, value },
        ...(context ? { context: { arguments: context } } : {}),
      });
      const label = `${JSON.stringify(ref)} ${name}=${value}`;
      assert.deepEqual(answer.completion.values.slice(0, first.length), first, label);
      assert.equal(answer.completion.total, total, label);
      assert.equal(answer.completion.values.length, total, label);
      assert.equal(answer.completion.hasMore, false, label);
    }
  } finally {
    await close();
  }
});

Deno.test("the after dataset has no web-acl, and arguments without a completer complete to nothing", async () => {
  const { client, close } = await demo();
  try {
    const after = await client.complete({
      ref: { type: "ref/prompt", name: "investigate_asset" },
      argument: { name: "ref", value: "web-a" },
      context: { arguments: { dataset: "after" } },
    });
    assert.deepEqual(after.completion.values, ["web-alb"]);
    const change = await client.complete({
      ref: { type: "ref/prompt", name: "change_impact_analysis" },
      argument: { name: "change", value: "r" },
    });
    assert.deepEqual(change.completion, { values: [], total: 0, hasMore: false });
    const severity = await client.complete({
      ref: { type: "ref/resource", uri: "cloudg://findings/severity/{severity}" },
      argument: { name: "severity", value: "h" },
    });
    assert.deepEqual(severity.completion.values, ["HIGH"]);
    const datasets = await client.complete({
      ref: { type: "ref/prompt", name: "drift_review" },
      argument: { name: "base", value: "" },
    });
    assert.deepEqual(datasets.completion.values, ["sample", "after"]);
  } finally {
    await close();
  }
});
