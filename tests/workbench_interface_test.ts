/**
 * The workbench interface: a workbench defined only in the tests (a
 * notebook) contributes tools, toolsets, prompts with session rendering,
 * static resources, templates, completions, CLI flags, instructions and error
 * codes, and the core serves them all, beside the apps workbench, through a
 * real MCP client. No core file knows the notebook.
 */

import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/types"
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { connect, fails, ok, withClient } from "./helpers/in_memory.ts";
import { notebookWorkbench } from "./fixtures/fake_workbench.ts";
import { appsWorkbench } from "../src/apps/workbench.ts";
import { parseCli, usage } from "../src/cli.ts";
import { ToolFailure } from "../src/core/errors.ts";
import type { PolicyRequest } from "../src/core/policy.ts";

const WORKBENCHES = [appsWorkbench, notebookWorkbench()];

Deno.test("a test-only workbench's tools are listed, callable and record Evidence with its own predicate", async () => {
  const { client, casefile, close } = await connect({ workbenches: WORKBENCHES });
  try {
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes("get_note") && names.includes("add_note"));
    assert.ok(names.includes("open_binary"), "the apps workbench is served beside it");
    const note = await ok(client, "get_note", { id: "alpha" });
    assert.deepEqual(note.result, { id: "alpha", text: "first", title: "notes" });
    const record = casefile.ledger.get(note.evidence_id)!;
    assert.equal(record.predicate_type, "casefile.test-note/v1");
    assert.equal(record.subject?.format, "note");
    const read = await client.readResource({ uri: note.evidence_uri });
    assert.equal(
      JSON.parse((read.contents[0] as { text: string }).text).evidence_id,
      note.evidence_id,
    );
    const missing = await fails(client, "get_note", { id: "nope" });
    assert.equal(missing.code, "note_missing");
    assert.equal(missing.category, "invalid_input", "the workbench's own code keeps its category");
    const instructions = client.getInstructions() ?? "";
    assert.match(instructions, /For notes, call list_notes first\./);
    assert.match(instructions, /binary_session/);
  } finally {
    await close();
  }
});

Deno.test("a workbench prompt completes a required argument and renders text, JSON context and an embedded resource", async () => {
  await withClient({ workbenches: WORKBENCHES }, async (client) => {
    const listed = (await client.listPrompts()).prompts.find((p) => p.name === "review_note");
    assert.ok(listed);
    assert.equal(listed.arguments?.[0]?.required, true);
    const completion = await client.complete({
      ref: { type: "ref/prompt", name: "review_note" },
      argument: { name: "id", value: "al" },
    });
    assert.deepEqual(completion.completion, {
      values: ["alpha", "alps"],
      total: 2,
      hasMore: false,
    });
    const prompt = await client.getPrompt({ name: "review_note", arguments: { id: "alps" } });
    assert.equal(prompt.messages.length, 3);
    const [task, context, embedded] = prompt.messages;
    assert.equal(task?.content.type, "text");
    assert.ok(!(task?.content as { text: string }).text.includes("alps"), "no value in the task");
    assert.match((context?.content as { text: string }).text, /"length": 6/);
    assert.equal(embedded?.content.type, "resource");
    const resource = (embedded?.content as { resource: { uri: string; text: string } }).resource;
    assert.equal(resource.uri, "notes://note/alps");
    const served = await client.readResource({ uri: "notes://note/alps" });
    assert.deepEqual(
      JSON.parse(resource.text),
      JSON.parse((served.contents[0] as { text: string }).text),
      "the embedded resource is what its URI serves",
    );
    await assert.rejects(
      client.getPrompt({ name: "review_note", arguments: { id: "nope" } }),
      "a render that fails is a protocol error",
    );
  });
});

Deno.test("static resources win over templates, and the longest matching template wins", async () => {
  await withClient({ workbenches: WORKBENCHES }, async (client) => {
    const listed = (await client.listResources()).resources.map((r) => r.uri);
    assert.ok(listed.includes("notes://index"));
    const index = await client.readResource({ uri: "notes://index" });
    assert.deepEqual(JSON.parse((index.contents[0] as { text: string }).text).ids, [
      "alpha",
      "alps",
    ]);
    const words = await client.readResource({ uri: "notes://note/alpha/words" });
    assert.deepEqual(JSON.parse((words.contents[0] as { text: string }).text), ["first"]);
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) =>
      t.uriTemplate
    );
    assert.ok(templates.includes("notes://note/{+id}"));
    assert.ok(
      templates.includes("rea://evidence/{evidenceId}"),
      "core serves the Evidence template",
    );
    const completion = await client.complete({
      ref: { type: "ref/resource", uri: "notes://note/{+id}" },
      argument: { name: "id", value: "alp" },
    });
    assert.deepEqual(completion.completion.values, ["alpha", "alps"]);
  });
});

Deno.test("--toolsets limits what is listed and callable, by toolset or by workbench", async () => {
  const readOnlyNotes = await connect({ workbenches: WORKBENCHES, toolsets: ["notes_read"] });
  const notebook = await connect({ workbenches: WORKBENCHES, toolsets: ["notebook"] });
  const session = await connect({ workbenches: WORKBENCHES, toolsets: ["session"] });
  try {
    assert.deepEqual((await readOnlyNotes.client.listTools()).tools.map((t) => t.name), [
      "get_note",
    ]);
    assert.equal(
      (await fails(readOnlyNotes.client, "add_note", { id: "x", text: "y" })).code,
      "invalid_request",
    );
    assert.deepEqual(
      (await notebook.client.listTools()).tools.map((t) => t.name).sort(),
      ["add_note", "get_note"],
    );
    assert.deepEqual(
      (await session.client.listTools()).tools.map((t) => t.name),
      ["binary_session", "open_binary", "close_binary", "list_documents", "set_current_document"],
    );
    assert.equal((await fails(session.client, "list_procedures")).code, "invalid_request");
  } finally {
    await readOnlyNotes.close();
    await notebook.close();
    await session.close();
  }
  await assert.rejects(
    connect({ workbenches: WORKBENCHES, toolsets: ["nope"] }),
    /Unknown toolset/,
  );
});

Deno.test("the gate sees principal, kind, category and arguments; transforms rewrite input and the domain value", async () => {
  const seen: PolicyRequest[] = [];
  const { client, close } = await connect({
    workbenches: WORKBENCHES,
    principal: { id: "token:abc", kind: "token", roles: ["analyst"] },
    policyRules: [(request) => {
      seen.push(request);
      return null;
    }],
    policyInputTransforms: [
      (request, args) =>
        request.kind === "tool" && request.name === "get_note" && args.id === "pseudo-1"
          ? { ...args, id: "alpha" }
          : args,
    ],
    policyTransforms: [<T>(request: PolicyRequest, value: T): T => {
      if (request.kind !== "tool" || request.name !== "get_note") return value;
      return { ...(value as Record<string, unknown>), text: "[redacted]" } as T;
    }],
  });
  try {
    const note = await ok(client, "get_note", { id: "pseudo-1" });
    assert.deepEqual(note.result, { id: "alpha", text: "[redacted]", title: "notes" });
    const added = await ok(client, "add_note", { id: "beta", text: "b" });
    assert.equal(added.result.principal, "token:abc");
    const request = seen.find((r) => r.name === "add_note")!;
    assert.equal(request.kind, "tool");
    assert.equal(request.principal?.id, "token:abc");
    assert.equal(request.category, "notes_write");
    assert.deepEqual(request.arguments, { id: "beta", text: "b" });
    assert.deepEqual(request.effects, { mutatesSession: true });
    await client.complete({
      ref: { type: "ref/prompt", name: "review_note" },
      argument: { name: "id", value: "a" },
    });
    assert.ok(seen.some((r) => r.kind === "completion" && r.category === "notebook"));
  } finally {
    await close();
  }
});

Deno.test("visibility rules hide primitives as unknown, and a refused completion is a protocol error", async () => {
  const { client, close } = await connect({
    workbenches: WORKBENCHES,
    policyVisibility: [
      (request) => !(request.name === "add_note" || request.name === "notes://index"),
    ],
    policyRules: [
      (request) =>
        request.kind === "completion" && request.name.startsWith("prompt:review_note")
          ? new ToolFailure("rate_limited", "Too many completions; retry in 1 s.", {
            details: { retry_after: 1 },
          })
          : request.kind === "completion" && request.name.startsWith("resource:notes://")
          ? new ToolFailure("access_denied", "Completions of notes are denied.")
          : null,
    ],
  });
  try {
    assert.ok(!(await client.listTools()).tools.some((t) => t.name === "add_note"));
    assert.equal((await fails(client, "add_note", { id: "x", text: "y" })).code, "invalid_request");
    assert.ok(!(await client.listResources()).resources.some((r) => r.uri === "notes://index"));
    await assert.rejects(client.readResource({ uri: "notes://index" }), /not found/);
    await assert.rejects(
      client.complete({
        ref: { type: "ref/prompt", name: "review_note" },
        argument: { name: "id", value: "a" },
      }),
      (error: unknown) => error instanceof McpError && error.code === -31029,
    );
    await assert.rejects(
      client.complete({
        ref: { type: "ref/resource", uri: "notes://note/{+id}" },
        argument: { name: "id", value: "a" },
      }),
      (error: unknown) => error instanceof McpError && error.code === -31001,
    );
  } finally {
    await close();
  }
});

Deno.test("parseCli takes a workbench's flags and help from the workbench", () => {
  const modules = [appsWorkbench, notebookWorkbench()];
  const config = parseCli(
    ["--notebook-title", "Field notes", "--toolsets", "notes_read,apps"],
    modules,
  );
  assert.deepEqual(config.server.toolsets, ["notes_read", "apps"]);
  assert.equal(config.workbenches.length, 2);
  assert.match(usage(modules), /--notebook-title TEXT/);
  assert.match(usage(modules), /notebook \(notes_read, notes_write\)/);
  assert.throws(() => parseCli(["--toolsets", "bogus"], modules), /unknown bogus/);
  assert.throws(() => parseCli(["--notebook-title", "x"]), /Unknown option/);
});

Deno.test("a configured workbench serves what its flags set", async () => {
  const config = parseCli(["--notebook-title", "Field notes"], [notebookWorkbench()]);
  await withClient({ workbenches: config.workbenches }, async (client) => {
    assert.equal((await ok(client, "get_note", { id: "alps" })).result.title, "Field notes");
  });
});
