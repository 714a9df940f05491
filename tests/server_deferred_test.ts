/**
 * Deferred workbenches: a module whose `create` imports its implementation
 * is not built before `initialize` is answered; it is built once the client
 * has finished the handshake (or a request needs it), every other request
 * waits for it, and what building does reaches the client only as it would
 * have had the workbench been built before the client connected. The
 * built-in workbenches are deferred, and the server's start-up module graph
 * holds none of their implementations.
 */

import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { assembleServer } from "../src/server.ts";
import { builtinWorkbenches } from "../src/workbenches.ts";
import { appsWorkbenchWith } from "../src/apps/workbench.ts";
import { cloudWorkbenchWith } from "../src/cloud/workbench.ts";
import { privacyWorkbenchWith } from "../src/privacy/workbench.ts";
import type { Workbench, WorkbenchModule, WorkbenchServices } from "../src/core/workbench.ts";
import { notebookWorkbench } from "./fixtures/fake_workbench.ts";

type Message = Record<string, unknown>;

/** A raw JSON-RPC peer on one side of an in-memory pair: what it sends and receives. */
async function rawClient(server: ReturnType<typeof assembleServer>): Promise<{
  send(message: Message): Promise<void>;
  received: Message[];
  reply(id: number): Promise<Message>;
}> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const received: Message[] = [];
  clientSide.onmessage = (message) => void received.push(message as Message);
  await clientSide.start();
  await server.connect(serverSide);
  return {
    send: (message) => clientSide.send(message as never),
    received,
    reply: async (id) => {
      for (let i = 0; i < 500; i++) {
        const found = received.find((m) => m.id === id);
        if (found) return found;
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      throw new Error(`no reply to request ${id}`);
    },
  };
}

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "casefile-tests", version: "0.0.0" },
  },
};

/** The notebook workbench, deferred: `create` waits for `gate` and counts its calls. */
function deferredNotebook(
  gate: Promise<void>,
  onCreate: (services: WorkbenchServices) => void = () => {},
): WorkbenchModule & { calls: number } {
  const eager = notebookWorkbench();
  const module: WorkbenchModule & { calls: number } = {
    ...eager,
    deferred: true,
    calls: 0,
    create: async (services): Promise<Workbench> => {
      module.calls++;
      await gate;
      onCreate(services);
      return await eager.create(services);
    },
  };
  return module;
}

Deno.test("assembleServer() answers initialize without creating a deferred workbench, and a request builds it", async () => {
  let open = (): void => {};
  const gate = new Promise<void>((resolve) => (open = resolve));
  const notebook = deferredNotebook(gate);
  const casefile = assembleServer({}, [notebook]);
  const client = await rawClient(casefile);
  try {
    await client.send(INITIALIZE);
    const init = (await client.reply(1)).result as { instructions: string };
    assert.match(init.instructions, /For notes, call list_notes first\./);
    assert.equal(notebook.calls, 0, "initialize did not create the workbench");
    await client.send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(notebook.calls, 1, "tools/list started the build");
    assert.equal(client.received.some((m) => m.id === 2), false, "tools/list waits for the build");
    open();
    const tools = (await client.reply(2)).result as { tools: { name: string }[] };
    assert.ok(tools.tools.some((tool) => tool.name === "get_note"));
    assert.deepEqual(casefile.catalog.list().map((t) => t.name), tools.tools.map((t) => t.name));
  } finally {
    open();
    await casefile.close();
  }
});

Deno.test("assembleServer() builds a deferred workbench once the client sends notifications/initialized", async () => {
  const notebook = deferredNotebook(Promise.resolve());
  const casefile = assembleServer({}, [notebook]);
  const client = await rawClient(casefile);
  try {
    await client.send(INITIALIZE);
    await client.reply(1);
    assert.equal(notebook.calls, 0);
    await client.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    await casefile.ready();
    assert.equal(notebook.calls, 1);
    assert.ok(casefile.catalog.get("get_note"), "registered without any request");
  } finally {
    await casefile.close();
  }
});

Deno.test("a deferred workbench's start-up notifications and log lines never reach the client", async () => {
  const notebook = deferredNotebook(Promise.resolve(), (services) => {
    services.notifyResourceListChanged();
    services.notifyToolsChanged();
    services.log("warning", "building the notebook");
  });
  const casefile = assembleServer({ logLevel: "emergency" }, [notebook]);
  const client = await rawClient(casefile);
  try {
    await client.send(INITIALIZE);
    await client.reply(1);
    await client.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    await client.send({ jsonrpc: "2.0", id: 2, method: "prompts/list", params: {} });
    await client.reply(2);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const notifications = client.received.filter((m) => m.id === undefined).map((m) => m.method);
    assert.deepEqual(notifications, [], "nothing but the replies");
  } finally {
    await casefile.close();
  }
});

Deno.test("a deferred workbench that fails to build fails each request with its reason; close() still closes", async () => {
  const broken: WorkbenchModule = {
    name: "broken",
    deferred: true,
    permissionNeeds: () => [],
    create: () => Promise.reject(new Error("the implementation could not be imported")),
  };
  const casefile = assembleServer({ logLevel: "emergency" }, [broken]);
  const client = await rawClient(casefile);
  try {
    await client.send(INITIALIZE);
    assert.ok((await client.reply(1)).result, "initialize is still answered");
    await client.send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
    const error = (await client.reply(2)).error as { message: string };
    assert.match(error.message, /could not be imported/);
  } finally {
    await casefile.close();
  }
});

Deno.test("assembleServer() registers workbenches at once when none is deferred", () => {
  const casefile = assembleServer({}, [notebookWorkbench()]);
  assert.ok(casefile.catalog.get("get_note"), "no handshake needed");
});

Deno.test("builtinWorkbenches() are deferred descriptors; the *WorkbenchWith() modules build directly", () => {
  assert.deepEqual(builtinWorkbenches().map((m) => [m.name, m.deferred]), [
    ["apps", true],
    ["cloud", true],
    ["privacy", true],
  ]);
  for (const module of [appsWorkbenchWith(), cloudWorkbenchWith(), privacyWorkbenchWith()]) {
    assert.equal(module.deferred, false, module.name);
  }
  const configured = builtinWorkbenches()[1]!.cli!.configure({ demo: true });
  assert.equal(configured.deferred, true, "flags keep the module deferred");
});

Deno.test("mod.ts's start-up module graph holds no workbench implementation", async () => {
  const mod = new URL("../mod.ts", import.meta.url);
  const info = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", mod.pathname],
    stdout: "piped",
    stderr: "null",
  }).output();
  assert.ok(info.success, "deno info --json mod.ts");
  const graph = JSON.parse(new TextDecoder().decode(info.stdout)) as {
    modules: {
      specifier: string;
      dependencies?: { isDynamic?: boolean; code?: { specifier?: string } }[];
    }[];
  };
  const modules = new Map(graph.modules.map((m) => [m.specifier, m]));
  const loaded = new Set<string>();
  const pending = [mod.href];
  while (pending.length > 0) {
    const specifier = pending.pop()!;
    if (loaded.has(specifier)) continue;
    loaded.add(specifier);
    for (const dependency of modules.get(specifier)?.dependencies ?? []) {
      if (!dependency.isDynamic && dependency.code?.specifier) {
        pending.push(dependency.code.specifier);
      }
    }
  }
  const src = new URL("../src/", import.meta.url).href;
  const heavy = [...loaded].filter((specifier) =>
    specifier.startsWith(src) &&
    /^(apps|cloud|privacy)\/(workbench\.ts|tools\/|toolsets\/(?!info\.ts)|formats\/|importers\/(?!input_limits\.ts))/
      .test(specifier.slice(src.length))
  );
  assert.deepEqual(heavy, [], "loaded before initialize");
  assert.ok(loaded.has(`${src}apps/descriptor.ts`), "the descriptors are");
  assert.ok(
    ![...loaded].some((specifier) => specifier.includes("webStandardStreamableHttp")),
    "the HTTP transport is imported only when an endpoint starts",
  );
});
