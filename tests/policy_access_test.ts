import assert from "node:assert/strict";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { call, type Loose } from "./helpers/in_memory.ts";
import { policySession } from "./helpers/policy_session.ts";

async function protocolFailure(promise: Promise<unknown>): Promise<McpError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof McpError, `expected an McpError, got ${error}`);
    return error;
  }
  throw new assert.AssertionError({ message: "expected a protocol error" });
}

const DENY_ALL_KINDS = {
  name: "deny-some",
  hide_denied: false,
  deny_tools: ["dataset_summary"],
  deny_resources: [
    "cloudg://workspace",
    "cloudg://assets/*",
    "cloudg://datasets/{dataset}/summary",
  ],
  deny_prompts: ["investigate_asset"],
};

Deno.test("with hide_denied false, a denied tool is an isError result, resources, templates, prompts and completions are -31001 protocol errors naming the policy", async () => {
  const session = await policySession(DENY_ALL_KINDS);
  const { client } = session;
  try {
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes("dataset_summary"), "listed while denied");
    const tool = await call(client, "dataset_summary", { dataset: "sample" });
    assert.equal(tool.isError, true);
    assert.equal(tool.structured.error.code, "access_denied");
    assert.equal(tool.structured.error.details.policy, "deny-some");
    assert.match(tool.structured.error.details.reason, /deny_tools/);
    const stat = await protocolFailure(client.readResource({ uri: "cloudg://workspace" }));
    assert.equal(stat.code, -31001);
    assert.equal((stat.data as Loose).policy, "deny-some");
    const templ = await protocolFailure(client.readResource({ uri: "cloudg://assets/bastion" }));
    assert.equal(templ.code, -31001);
    const prompt = await protocolFailure(
      client.getPrompt({ name: "investigate_asset", arguments: { ref: "bastion" } }),
    );
    assert.equal(prompt.code, -31001);
    const promptCompletion = await protocolFailure(client.complete({
      ref: { type: "ref/prompt", name: "investigate_asset" },
      argument: { name: "ref", value: "" },
    }));
    assert.equal(promptCompletion.code, -31001);
    const templateCompletion = await protocolFailure(client.complete({
      ref: { type: "ref/resource", uri: "cloudg://datasets/{dataset}/summary" },
      argument: { name: "dataset", value: "" },
    }));
    assert.equal(templateCompletion.code, -31001);
    // What is not denied still works.
    assert.equal((await call(client, "workspace_status")).isError, false);
    assert.ok((await client.getPrompt({ name: "executive_summary", arguments: {} })).messages);
  } finally {
    await session.close();
  }
});

Deno.test("with hide_denied (the default), denied primitives are unlisted and behave as unknown", async () => {
  const session = await policySession({ ...DENY_ALL_KINDS, hide_denied: true });
  const { client } = session;
  try {
    assert.ok(!(await client.listTools()).tools.some((t) => t.name === "dataset_summary"));
    assert.ok(!(await client.listPrompts()).prompts.some((p) => p.name === "investigate_asset"));
    assert.ok(
      !(await client.listResources()).resources.some((r) => r.uri === "cloudg://workspace"),
    );
    assert.ok(
      !(await client.listResourceTemplates()).resourceTemplates.some((t) =>
        t.uriTemplate === "cloudg://datasets/{dataset}/summary"
      ),
    );
    const tool = await call(client, "dataset_summary", { dataset: "sample" });
    assert.match(tool.structured.error.message, /not found/);
    assert.equal(
      (await protocolFailure(
        client.getPrompt({ name: "investigate_asset", arguments: { ref: "x" } }),
      ))
        .code,
      -32602,
    );
    assert.equal(
      (await protocolFailure(client.readResource({ uri: "cloudg://workspace" }))).code,
      -32002,
    );
    assert.equal(
      (await protocolFailure(client.complete({
        ref: { type: "ref/prompt", name: "investigate_asset" },
        argument: { name: "ref", value: "" },
      }))).code,
      -32602,
    );
  } finally {
    await session.close();
  }
});

Deno.test("role rules: explicit denials win over grants; capabilities need a matching rule's allow_capabilities", async () => {
  const policy = {
    name: "roles",
    hide_denied: false,
    deny_capabilities: ["write_state"],
    roles: {
      writer: { allow_capabilities: ["write_state"] },
      blocked: { deny_tools: ["load_dataset"], allow_tools: ["load_dataset"] },
    },
  };
  const writer = await policySession(policy, {
    principal: { id: "w", kind: "token", roles: ["writer"] },
  });
  const reader = await policySession(policy, {
    principal: { id: "r", kind: "token", roles: [] },
  });
  const both = await policySession(policy, {
    principal: { id: "b", kind: "token", roles: ["writer", "blocked"] },
  });
  try {
    const args = { dataset: "sample" };
    assert.notEqual(
      (await call(writer.client, "select_dataset", args)).structured.error?.code,
      "access_denied",
    );
    const refused = await call(reader.client, "select_dataset", args);
    assert.equal(refused.structured.error.code, "access_denied");
    assert.match(refused.structured.error.details.reason, /capability write_state/);
    const blocked = await call(both.client, "load_dataset", { path: "/nonexistent" });
    assert.equal(blocked.structured.error.code, "access_denied");
    assert.equal(blocked.structured.error.details.rule, "role:blocked");
    // Reads need no capability grant.
    assert.equal((await call(reader.client, "workspace_status")).isError, false);
  } finally {
    await writer.close();
    await reader.close();
    await both.close();
  }
});

Deno.test("rate limits trip with retry_after, limit and scope, cost nothing when refused, and recover as the bucket refills", async () => {
  let clock = 0;
  const session = await policySession({
    name: "limited",
    rate_limits: [
      { rate: 2, per: "minute", burst: 2, scope: "principal_tool", tools: ["workspace_status"] },
      { rate: 100, per: "minute", burst: 5, scope: "global" },
      { rate: 1, per: "second", burst: 1, scope: "principal", kinds: ["completion"] },
    ],
  }, { now: () => clock });
  const { client } = session;
  try {
    assert.equal((await call(client, "workspace_status")).isError, false);
    assert.equal((await call(client, "workspace_status")).isError, false);
    const tripped = await call(client, "workspace_status");
    assert.equal(tripped.isError, true);
    assert.equal(tripped.structured.error.code, "rate_limited");
    assert.deepEqual(tripped.structured.error.details, {
      retry_after: 30,
      limit: "2/minute",
      scope: "principal_tool",
    });
    assert.match(tripped.structured.error.message, /2\/minute.*30\.0 s/);
    // The refused call took nothing from the global bucket: 5 − 2 = 3 tokens left.
    const global = session.policy.limiter.states(session.policy.limits)
      .find((b) => b.scope === "global")!;
    assert.equal(global.tokens, 3);
    clock += 30_000;
    assert.equal((await call(client, "workspace_status")).isError, false, "recovered");
    // Completions are limited like any read, as protocol errors.
    const ask = () =>
      client.complete({
        ref: { type: "ref/prompt", name: "executive_summary" },
        argument: { name: "dataset", value: "" },
      });
    assert.ok((await ask()).completion.values.includes("sample"));
    const limited = await protocolFailure(ask());
    assert.equal(limited.code, -31029);
    assert.deepEqual(limited.data, { retry_after: 1, limit: "1/second", scope: "principal" });
    clock += 1000;
    assert.ok((await ask()).completion.values.includes("sample"));
  } finally {
    await session.close();
  }
});

Deno.test("the audit log hashes arguments and never stores their values", async () => {
  const secretish = "zz-distinctive-dataset-name-4711";
  const session = await policySession({
    name: "audited",
    audit: true,
    hide_denied: false,
    deny_tools: ["snapshot_dataset"],
  });
  const { client } = session;
  try {
    await call(client, "dataset_summary", { dataset: secretish });
    await call(client, "snapshot_dataset", { dataset: secretish, name: secretish });
    await client.complete({
      ref: { type: "ref/prompt", name: "executive_summary" },
      argument: { name: "dataset", value: secretish },
    });
    const log = await call(client, "privacy_audit_log", { limit: 50 });
    const text = JSON.stringify(log.raw);
    assert.ok(!text.includes(secretish), "the value never appears in the log");
    const entries = log.structured.result.entries as Loose[];
    const allowed = entries.find((e) => e.name === "dataset_summary" && e.decision === "allowed");
    assert.ok(allowed, "an allowed entry under audit: true");
    assert.match(allowed.arguments.dataset, /^[0-9a-f]{12}$/);
    const denied = entries.find((e) => e.name === "snapshot_dataset");
    assert.equal(denied.decision, "denied");
    assert.equal(denied.arguments.dataset, allowed.arguments.dataset, "same value, same hash");
    assert.ok(entries.some((e) => e.kind === "completion"));
    assert.equal(log.structured.result.scope, "own");
  } finally {
    await session.close();
  }
});

Deno.test("standard refuses secrets in arguments (rejected in the log) and keeps reveal_token from non-admins", async () => {
  const session = await policySession("standard");
  const admin = await policySession("standard", {
    principal: { id: "adm", kind: "token", roles: ["admin"] },
  });
  try {
    const refused = await call(session.client, "dataset_summary", {
      dataset: "password=hunter22hunter22",
    });
    assert.equal(refused.structured.error.code, "invalid_request");
    assert.match(refused.structured.error.message, /secret_value/);
    assert.ok(!JSON.stringify(refused.raw).includes("hunter22"));
    assert.equal(session.policy.audit.counters.rejected, 1);
    assert.match(
      (await call(session.client, "reveal_token", { token: "x" })).structured.error.message,
      /not found/,
    );
    const revealed = await call(admin.client, "reveal_token", { token: "nothing-here" });
    assert.equal(revealed.structured.result.found, false);
    assert.equal(admin.policy.audit.counters.reveal, 1, "every reveal is recorded");
  } finally {
    await session.close();
    await admin.close();
  }
});
