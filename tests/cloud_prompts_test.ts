/**
 * The eleven cloud prompts through a real MCP client on the demo estate: a
 * task message that names registered tools and never carries a workspace
 * value, a JSON context message computed from the dataset, and embedded
 * resources that equal what resources/read serves at their URI.
 */

import assert from "node:assert/strict";
import { connect } from "./helpers/in_memory.ts";
import { cloudWorkbenchWith } from "../src/cloud/workbench.ts";
import { sampleRecords } from "../src/cloud/demo/estate.ts";
import { withDemoClient } from "./helpers/cloud_client.ts";

const CASES: [string, Record<string, string>][] = [
  ["security_posture_review", {}],
  ["executive_summary", {}],
  ["attack_surface_report", {}],
  ["investigate_asset", { ref: "orders-db" }],
  ["blast_radius_assessment", { ref: "kms-main" }],
  ["change_impact_analysis", { ref: "app-role", change: "narrow the trust policy" }],
  ["cross_account_trust_review", {}],
  ["compliance_gap_analysis", { framework: "CIS-AWS" }],
  ["remediation_plan", { severity: "critical" }],
  ["incident_triage", { finding_id: "f-ssh-open" }],
  ["drift_review", { base: "sample", target: "after" }],
];

/** Every identifier of the demo estate that must never appear in a task message. */
function workspaceValues(): string[] {
  const records = sampleRecords();
  const values = new Set<string>();
  for (const a of records.assets) {
    values.add(a.id);
    if (a.arn) values.add(a.arn);
    if (a.name.length > 3) values.add(a.name);
    if (a.account_id) values.add(a.account_id);
  }
  for (const f of records.findings) values.add(f.id);
  return [...values];
}

Deno.test("every cloud prompt renders a value-free task, a JSON context and faithful embedded resources", async () => {
  await withDemoClient(async (client) => {
    const tools = new Set((await client.listTools()).tools.map((t) => t.name));
    const forbidden = workspaceValues();
    for (const [name, args] of CASES) {
      const prompt = await client.getPrompt({ name, arguments: args });
      const [task, context, ...rest] = prompt.messages;
      assert.equal(task?.role, "user", name);
      assert.equal(task?.content.type, "text", name);
      const text = (task!.content as { text: string }).text;
      const steps = text.match(/Tools: .*/g) ?? [];
      assert.ok(steps.length > 0, name);
      for (const line of steps) {
        for (const named of line.matchAll(/`([a-z_]+)`/g)) {
          assert.ok(tools.has(named[1]!), `${name} names ${named[1]}, which is not served`);
        }
      }
      for (const value of forbidden) {
        assert.ok(!text.includes(value), `${name}: the task names ${value}`);
      }
      for (const value of Object.values(args)) {
        if (value.length > 4 && !["critical"].includes(value)) {
          assert.ok(!text.includes(value), `${name}: the task repeats the argument ${value}`);
        }
      }
      const contextText = (context!.content as { text: string }).text;
      assert.match(contextText, /^Context for this task \(JSON\):\n```json\n/, name);
      const data = JSON.parse(contextText.replace(/^[^\n]*\n```json\n/, "").replace(/\n```$/, ""));
      assert.equal(typeof data, "object", name);
      for (const message of rest) {
        assert.equal(message.content.type, "resource", name);
        const embedded = (message.content as { resource: { uri: string; text: string } }).resource;
        const served = await client.readResource({ uri: embedded.uri });
        assert.equal(embedded.text, (served.contents[0] as { text: string }).text, embedded.uri);
      }
    }
  });
});

Deno.test("cloud prompts put the demo's figures in their context", async () => {
  await withDemoClient(async (client) => {
    const posture = await client.getPrompt({ name: "security_posture_review", arguments: {} });
    const context = JSON.parse(
      (posture.messages[1]!.content as { text: string }).text.split("```json\n")[1]!.split(
        "\n```",
      )[0]!,
    );
    assert.equal(context.dataset, "sample");
    assert.deepEqual(
      context.top_risks.slice(0, 2).map((r: { asset: string; score: number }) => [r.asset, r.score])
        .sort(),
      [["az-nsg", 16.39], ["sg-admin", 16.39]],
    );
    const triage = await client.getPrompt({
      name: "incident_triage",
      arguments: { finding_id: "f-ssh-open" },
    });
    assert.match((triage.messages[0]!.content as { text: string }).text, /severity is CRITICAL/);
    const plan = await client.getPrompt({ name: "remediation_plan", arguments: {} });
    assert.match((plan.messages[0]!.content as { text: string }).text, /HIGH and above/);
    const drift = await client.getPrompt({
      name: "drift_review",
      arguments: { base: "sample", target: "after" },
    });
    const diff = JSON.parse(
      (drift.messages[1]!.content as { text: string }).text.split("```json\n")[1]!.split(
        "\n```",
      )[0]!,
    );
    assert.equal(diff.assets.removed.count, 1);
    assert.equal(drift.messages.length, 2, "drift_review never embeds");
  });
});

Deno.test("cloud prompts refuse unknown names as invalid params, and say how to load data when nothing is loaded", async () => {
  await withDemoClient(async (client) => {
    await assert.rejects(
      client.getPrompt({ name: "investigate_asset", arguments: { ref: "no-such-asset" } }),
      /-32602/,
    );
    await assert.rejects(
      client.getPrompt({ name: "executive_summary", arguments: { dataset: "nope" } }),
      /-32602/,
    );
    await assert.rejects(
      client.getPrompt({ name: "remediation_plan", arguments: { severity: "huge" } }),
      /-32602/,
    );
  });
  const empty = await connect({ workbenches: [cloudWorkbenchWith()] });
  try {
    const prompt = await empty.client.getPrompt({ name: "executive_summary", arguments: {} });
    assert.equal(prompt.messages.length, 1);
    assert.match((prompt.messages[0]!.content as { text: string }).text, /load_dataset/);
    await assert.rejects(
      empty.client.getPrompt({ name: "drift_review", arguments: { base: "x" } }),
      /-32602/,
    );
  } finally {
    await empty.close();
  }
});
