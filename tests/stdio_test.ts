/**
 * The stdio transport, end to end: `mod.ts` as a real subprocess, driven by
 * the SDK's StdioClientTransport and by raw newline-delimited JSON-RPC.
 */

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  childEnv,
  collectStderr,
  denoArgs,
  initializeRequest,
  type Permissions,
  ServerProcess,
} from "./helpers/spawn.ts";
import { assembleServer } from "../src/server.ts";
import { appsWorkbench } from "../src/apps/workbench.ts";
import { withTempDir } from "./helpers/temp_dir.ts";

// The apps workbench's tools (these tests serve it alone with --toolsets apps), each of
// which must have its golden schema file.
const EXPECTED_TOOLS: string[] = (() => {
  const catalog = assembleServer({}, [appsWorkbench]).catalog.list().map((tool) => tool.name);
  const golden = new Set(
    [...Deno.readDirSync(new URL("./golden/tools/", import.meta.url))]
      .map((entry) => entry.name.replace(/\.json$/, "")),
  );
  for (const name of catalog) {
    if (!golden.has(name)) throw new Error(`${name} has no golden schema file`);
  }
  return catalog.sort();
})();

const EXPECTED_PROMPTS = [
  "investigate_feature",
  "compare_application_versions",
  "verify_reconstruction",
  "trace_crash",
  "audit_residual_unknowns",
  "prepare_bounded_process_capture",
];

const ADDRESS = /^0x[0-9a-f]+$/;

interface ProcedurePage {
  document: string;
  items: { address: string; value: string }[];
  offset: number;
  limit: number;
  total: number;
  has_more: boolean;
  next_offset: number | null;
}

interface ToolError {
  code: string;
  category: string;
  message: string;
  remediation: { action: string; restart_required: boolean };
  details?: Record<string, unknown>;
}

type ToolResult = {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content?: unknown;
};

/** An SDK client connected over stdio to `mod.ts <args>`; dispose to close it. */
interface StdioSession extends AsyncDisposable {
  client: Client;
  transport: StdioClientTransport;
  /** The server's stderr so far. */
  stderr(): string;
  /** Closes the client (ending the server's stdin) and returns how long that took. */
  close(): Promise<number>;
}

async function connectStdio(args: string[], permissions: Permissions): Promise<StdioSession> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: denoArgs(args, permissions),
    env: childEnv(),
    stderr: "pipe",
  });
  const stderr = collectStderr(transport);
  const client = new Client({ name: "casefile-stdio-tests", version: "0.0.0" });
  let closed = false;
  const close = async (): Promise<number> => {
    if (closed) return 0;
    closed = true;
    const start = performance.now();
    await client.close();
    return performance.now() - start;
  };
  try {
    await client.connect(transport);
  } catch (error) {
    await close();
    throw new Error(`connect failed: ${String(error)}; stderr:\n${stderr()}`);
  }
  return {
    client,
    transport,
    stderr,
    close,
    [Symbol.asyncDispose]: async () => {
      await close();
    },
  };
}

function structured<T>(result: ToolResult): T {
  assert.notEqual(result.isError, true, `tool failed: ${JSON.stringify(result.structuredContent)}`);
  return result.structuredContent as T;
}

function toolError(result: ToolResult): ToolError {
  assert.equal(result.isError, true, `expected a tool error: ${JSON.stringify(result)}`);
  const error = (result.structuredContent as { error?: ToolError } | undefined)?.error;
  assert.ok(error, `structuredContent.error missing: ${JSON.stringify(result)}`);
  return error;
}

async function sha256Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The ELF entry point, read directly from the file header (ELF64 little-endian only). */
function elfEntry(bytes: Uint8Array): string | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const isElf64Le = bytes[0] === 0x7f && bytes[1] === 0x45 && bytes[2] === 0x4c &&
    bytes[3] === 0x46 &&
    bytes[4] === 2 && bytes[5] === 1;
  return isElf64Le ? `0x${view.getBigUint64(0x18, true).toString(16)}` : null;
}

Deno.test("mod.ts over stdio serves tools, open_binary, list_procedures, completion and prompts to the SDK client", async (t) => {
  await using session = await connectStdio(["--root", "/usr/bin", "--toolsets", "apps"], {
    allowRead: ["/usr/bin"],
  });
  const { client } = session;
  const lsBytes = await Deno.readFile("/usr/bin/ls");

  await t.step("initialize reports casefile with completions, prompts, tools and resources", () => {
    assert.equal(client.getServerVersion()?.name, "casefile");
    const caps = client.getServerCapabilities();
    assert.ok(caps?.completions, "completions capability");
    assert.ok(caps?.prompts, "prompts capability");
    assert.ok(caps?.tools, "tools capability");
    assert.ok(caps?.resources, "resources capability");
  });

  await t.step("tools/list contains the six binary tools", async () => {
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    for (const name of EXPECTED_TOOLS) assert.ok(names.includes(name), `${name} in ${names}`);
  });

  let entry = "";
  await t.step("open_binary /usr/bin/ls describes the real file", async () => {
    const opened = structured<{
      result: {
        action: string;
        target: {
          path: string;
          real_path: string;
          name: string;
          size: number;
          sha256: string;
          entry: string;
        };
        documents: string[];
        current_document: string | null;
      };
    }>(
      await client.callTool({
        name: "open_binary",
        arguments: { path: "/usr/bin/ls" },
      }) as ToolResult,
    );
    const { target } = opened.result;
    assert.equal(opened.result.action, "opened");
    assert.equal(target.path, "/usr/bin/ls");
    assert.equal(target.real_path, await Deno.realPath("/usr/bin/ls"));
    assert.equal(target.size, lsBytes.length);
    assert.equal(target.sha256, await sha256Hex(lsBytes));
    const headerEntry = elfEntry(lsBytes);
    if (headerEntry !== null) assert.equal(target.entry, headerEntry);
    assert.match(target.entry, ADDRESS);
    entry = target.entry;
    assert.deepEqual(opened.result.documents, [target.name]);
    assert.equal(opened.result.current_document, target.name);
  });

  const allAddresses: string[] = [];
  await t.step(
    "list_procedures returns a first page of sorted real addresses with Evidence",
    async () => {
      const first = structured<
        { result: ProcedurePage; evidence_id: string; evidence_uri: string }
      >(
        await client.callTool({ name: "list_procedures", arguments: {} }) as ToolResult,
      );
      const page = first.result;
      assert.match(first.evidence_id, /^ev_[0-9a-f]{64}$/);
      assert.equal(first.evidence_uri, `rea://evidence/${first.evidence_id}`);
      assert.equal(page.offset, 0);
      assert.equal(page.limit, 100);
      assert.ok(page.total > 0, "ls has procedures");
      assert.equal(page.items.length, Math.min(100, page.total));
      assert.equal(page.has_more, page.total > 100);
      assert.equal(page.next_offset, page.has_more ? page.items.length : null);
      for (const item of page.items) assert.match(item.address, ADDRESS);
      const numeric = page.items.map((item) => BigInt(item.address));
      for (let i = 1; i < numeric.length; i++) {
        assert.ok(numeric[i - 1]! <= numeric[i]!, `sorted by address at ${i}`);
      }
      // Page through the rest to know every address.
      allAddresses.push(...page.items.map((item) => item.address));
      let next = page.next_offset;
      while (next !== null) {
        const more = structured<{ result: ProcedurePage }>(
          await client.callTool({
            name: "list_procedures",
            arguments: { offset: next, limit: 500 },
          }) as ToolResult,
        ).result;
        assert.equal(more.offset, next);
        allAddresses.push(...more.items.map((item) => item.address));
        next = more.next_offset;
      }
      assert.equal(allAddresses.length, page.total);
      assert.ok(allAddresses.includes(entry), `the entry point ${entry} is listed`);
    },
  );

  await t.step(
    "completion/complete for investigate_feature procedure '0x' returns the binary's addresses",
    async () => {
      const { completion } = await client.complete({
        ref: { type: "ref/prompt", name: "investigate_feature" },
        argument: { name: "procedure", value: "0x" },
      });
      const known = new Set(allAddresses);
      assert.ok(completion.values.length > 0, "some addresses");
      assert.equal(completion.values.length, Math.min(100, known.size));
      for (const value of completion.values) {
        assert.ok(known.has(value), `${value} is an address list_procedures returned`);
      }
      assert.equal(completion.total, known.size);
      assert.equal(completion.hasMore, known.size > 100);

      const exact = await client.complete({
        ref: { type: "ref/prompt", name: "investigate_feature" },
        argument: { name: "procedure", value: entry },
      });
      assert.ok(exact.completion.values.includes(entry), `completing ${entry} offers it`);
    },
  );

  await t.step("prompts/list has the six prompts in order", async () => {
    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts.map((prompt) => prompt.name), EXPECTED_PROMPTS);
  });

  await t.step("close ends the server promptly (no SIGTERM fallback after 2 s)", async () => {
    const took = await session.close();
    assert.ok(took < 1_900, `client.close() took ${Math.round(took)} ms`);
  });
});

Deno.test("mod.ts over stdio opens an ELF copy under a temp root and opens a directory as an artifact and refuses non-ELF, relative and outside paths", async () => {
  await withTempDir(async (root) => {
    const realRoot = await Deno.realPath(root);
    await Deno.copyFile("/usr/bin/ls", `${root}/ls-copy`);
    await Deno.writeTextFile(`${root}/notes.txt`, "plain text, not a binary\n");
    await Deno.writeFile(`${root}/empty`, new Uint8Array());
    await Deno.mkdir(`${root}/subdir`);
    await Deno.symlink("/usr/bin/ls", `${root}/escape`);
    await using session = await connectStdio(["--root", root], { allowRead: [root] });
    const call = async (path: string): Promise<ToolResult> =>
      await session.client.callTool({ name: "open_binary", arguments: { path } }) as ToolResult;

    const copy = structured<
      { result: { target: { name: string; real_path: string; sha256: string } } }
    >(
      await call(`${root}/ls-copy`),
    );
    assert.equal(copy.result.target.name, "ls-copy");
    assert.equal(copy.result.target.real_path, `${realRoot}/ls-copy`);
    assert.equal(copy.result.target.sha256, await sha256Hex(await Deno.readFile("/usr/bin/ls")));

    const text = toolError(await call(`${root}/notes.txt`));
    assert.equal(text.code, "invalid_request");
    assert.match(text.message, /not a supported binary/);

    const empty = toolError(await call(`${root}/empty`));
    assert.equal(empty.code, "invalid_request");
    assert.match(empty.message, /empty/);

    // A directory opens as an artifact target, not a binary.
    const directory = structured<{ result: { artifact_target: { kind: string } } }>(
      await call(`${root}/subdir`),
    );
    assert.equal(directory.result.artifact_target.kind, "directory");
    // Back to the binary, so the refusals below are seen to leave it open.
    structured(await call(`${root}/ls-copy`));

    const relative = toolError(await call("ls-copy"));
    assert.equal(relative.code, "invalid_request");
    assert.match(relative.message, /absolute/);

    const outside = toolError(await call("/usr/bin/ls"));
    assert.equal(outside.code, "outside_approved_root");
    assert.ok(outside.message.includes(root), outside.message);

    const symlink = toolError(await call(`${root}/escape`));
    assert.equal(symlink.code, "outside_approved_root");
    assert.match(symlink.message, /resolves to/);

    const missing = toolError(await call(`${root}/missing`));
    assert.equal(missing.code, "target_unavailable");

    // The failed opens left the copy open.
    const status = structured<{ result: { target: { name: string } | null } }>(
      await session.client.callTool({ name: "binary_session", arguments: {} }) as ToolResult,
    );
    assert.equal(status.result.target?.name, "ls-copy");
  }, { prefix: "casefile-stdio-" });
});

/** Spawns the stdio server, initializes it over raw JSON-RPC and returns it. */
async function initializedServer(
  args: string[] = ["--root", "/usr/bin", "--toolsets", "apps"],
): Promise<ServerProcess> {
  const server = ServerProcess.spawn(args, { allowRead: ["/usr/bin"] });
  try {
    await server.send(initializeRequest(1));
    const init = await server.response(1);
    assert.equal((init.result as { protocolVersion?: string }).protocolVersion, "2025-11-25");
    await server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    return server;
  } catch (error) {
    await server[Symbol.asyncDispose]();
    throw error;
  }
}

Deno.test("mod.ts over stdio exits 0 within 2 s when its stdin is closed", async () => {
  await using server = await initializedServer();
  const start = performance.now();
  await server.closeStdin();
  const status = await server.waitExit(2_000);
  const took = performance.now() - start;
  assert.equal(status.code, 0, server.stderr.text());
  assert.equal(status.signal, null);
  assert.ok(took < 2_000, `exited after ${Math.round(took)} ms`);
});

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  Deno.test(`mod.ts over stdio exits 0 within 2 s on ${signal}`, async () => {
    await using server = await initializedServer();
    const start = performance.now();
    server.child.kill(signal);
    const status = await server.waitExit(2_000);
    const took = performance.now() - start;
    assert.equal(
      status.code,
      0,
      `code ${status.code}, signal ${status.signal}: ${server.stderr.text()}`,
    );
    assert.equal(status.signal, null, "the signal was handled, not fatal");
    assert.ok(took < 2_000, `exited after ${Math.round(took)} ms`);
  });
}

Deno.test("mod.ts over stdio answers malformed JSON-RPC lines with errors and then the next valid request", async () => {
  await using server = await initializedServer();
  await server.writeLine("this is not JSON {");
  await server.writeLine('{"jsonrpc":"2.0","id":');
  await server.writeLine('{"not":"json-rpc"}');
  await server.writeLine("[1, 2, 3]");
  const ping = await server.request(2, "ping");
  assert.deepEqual(ping.result, {});
  // Each bad line got a JSON-RPC error with id null: parse errors and invalid requests.
  const errors = server.stdout.lines
    .map((line) => JSON.parse(line) as { id?: unknown; error?: { code: number } })
    .filter((message) => message.id === null)
    .map((message) => message.error?.code);
  assert.deepEqual(errors, [-32700, -32700, -32600, -32600]);

  const tools = await server.request(3, "tools/list");
  const names = (tools.result as { tools: { name: string }[] }).tools.map((tool) => tool.name);
  assert.deepEqual([...names].sort(), [...EXPECTED_TOOLS].sort());
  assert.equal(server.exited, false);
});

Deno.test("mod.ts over stdio answers an unknown method with JSON-RPC error -32601", async () => {
  await using server = await initializedServer();
  const reply = await server.request(7, "no/such/method", { x: 1 });
  assert.equal(reply.jsonrpc, "2.0");
  assert.equal(reply.result, undefined);
  assert.equal((reply.error as { code: number }).code, -32601);
  // And the server still works afterwards.
  assert.deepEqual((await server.request(8, "ping")).result, {});
});

Deno.test("mod.ts over stdio writes only JSON-RPC 2.0 lines to stdout, even at --log-level debug", async () => {
  await using server = await initializedServer([
    "--root",
    "/usr/bin",
    "--toolsets",
    "apps",
    "--log-level",
    "debug",
  ]);
  let id = 10;
  const call = (
    method: string,
    params?: Record<string, unknown>,
  ): Promise<Record<string, unknown>> => server.request(id++, method, params);
  await call("logging/setLevel", { level: "debug" });
  await call("tools/list");
  await call("prompts/list");
  await call("resources/templates/list");
  await call("tools/call", { name: "binary_session", arguments: {} });
  await call("tools/call", { name: "open_binary", arguments: { path: "/usr/bin/ls" } });
  await call("tools/call", { name: "open_binary", arguments: { path: "/usr/bin/does-not-exist" } });
  await call("tools/call", { name: "open_binary", arguments: { path: "/etc/passwd" } });
  await call("tools/call", { name: "list_documents", arguments: {} });
  const procedures = await call("tools/call", { name: "list_procedures", arguments: { limit: 5 } });
  const evidenceUri = (procedures.result as { structuredContent: { evidence_uri: string } })
    .structuredContent.evidence_uri;
  await call("resources/list");
  await call("resources/read", { uri: evidenceUri });
  await call("completion/complete", {
    ref: { type: "ref/prompt", name: "investigate_feature" },
    argument: { name: "procedure", value: "0x" },
  });
  await call("prompts/get", { name: "investigate_feature", arguments: { feature: "sorting" } });
  await call("tools/call", { name: "no_such_tool", arguments: {} });
  await call("tools/call", { name: "close_binary", arguments: {} });
  await call("no/such/method");
  await server.closeStdin();
  assert.equal((await server.waitExit(5_000)).code, 0);
  await server.stdout.done;

  const lines = server.stdout.lines;
  assert.ok(lines.length >= id - 10, `at least one line per request (${lines.length})`);
  for (const [index, line] of lines.entries()) {
    let message: { jsonrpc?: unknown };
    try {
      message = JSON.parse(line);
    } catch {
      assert.fail(`stdout line ${index} is not JSON: ${JSON.stringify(line)}`);
    }
    assert.equal(message.jsonrpc, "2.0", `stdout line ${index}: ${line}`);
  }
});

Deno.test("mod.ts over stdio with --demo --toolsets cloud serves the cloud workbench alone, with the demo estate loaded", async () => {
  await using session = await connectStdio(["--demo", "--toolsets", "cloud"], {});
  const { client } = session;
  const tools = (await client.listTools()).tools.map((tool) => tool.name);
  assert.ok(tools.includes("workspace_status"));
  assert.ok(!tools.includes("open_binary"), "the apps workbench is not served");
  const prompts = (await client.listPrompts()).prompts.map((prompt) => prompt.name);
  assert.ok(prompts.includes("investigate_asset") && !prompts.includes("trace_crash"));
  const status = await client.callTool({ name: "workspace_status", arguments: {} });
  const result = (status.structuredContent as {
    result: { active_dataset: string; datasets: { name: string }[] };
  }).result;
  assert.equal(result.active_dataset, "sample");
  assert.deepEqual(result.datasets.map((d) => d.name), ["sample", "after"]);
  const answer = await client.complete({
    ref: { type: "ref/prompt", name: "incident_triage" },
    argument: { name: "finding_id", value: "f-r" },
  });
  assert.deepEqual(answer.completion, { values: ["f-rdp-open"], total: 1, hasMore: false });
});
