/**
 * The `deno task start` command as written in deno.json: it answers
 * `initialize`, lists every workbench's tools (from the generated catalogs)
 * and runs them (their code is imported lazily from `./src`, which the task
 * grants). Started with the same lazy-import flag but without the `./src`
 * grant, the first call fails with Deno's reason naming the file it could
 * not read (and so does tools/list once that failure is known).
 */

import assert from "node:assert/strict";
import { childEnv, DENO_JSON, initializeRequest, LineCollector } from "./helpers/spawn.ts";

const REPO = new URL("..", import.meta.url).pathname;

/** The start task's `deno` arguments (the task is one plain command line). */
async function startTaskArgs(): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(DENO_JSON)) as { tasks: { start: string } };
  const [deno, ...args] = config.tasks.start.split(/\s+/);
  assert.equal(deno, "deno");
  return args;
}

/** Sends initialize, initialized, tools/list and a privacy_status call; returns the answers. */
async function handshakeListAndCall(
  args: string[],
): Promise<
  { init: Record<string, unknown>; list: Record<string, unknown>; call: Record<string, unknown> }
> {
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: REPO,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    clearEnv: true,
    env: childEnv(),
  }).spawn();
  const stdout = new LineCollector(child.stdout);
  const stderr = new LineCollector(child.stderr);
  const writer = child.stdin.getWriter();
  const send = (message: unknown): Promise<void> =>
    writer.write(new TextEncoder().encode(`${JSON.stringify(message)}\n`));
  const answer = async (id: number): Promise<Record<string, unknown>> =>
    JSON.parse(
      await stdout.waitFor((line) => line.includes(`"id":${id}`), 60_000, `the answer to ${id}`),
    );
  try {
    await send(initializeRequest(1));
    const init = await answer(1);
    await send({ jsonrpc: "2.0", method: "notifications/initialized" });
    await send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
    await send({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "privacy_status", arguments: {} },
    });
    return { init, list: await answer(2), call: await answer(3) };
  } finally {
    await writer.close().catch(() => {});
    await child.status;
    await Promise.all([stdout.done, stderr.done]);
  }
}

/** The tool names of a tools/list answer. */
function listedNames(list: Record<string, unknown>): string[] {
  return (list.result as { tools: { name: string }[] }).tools.map((tool) => tool.name);
}

Deno.test("deno task start's command answers initialize, lists every workbench's tools and runs one", async () => {
  const { init, list, call } = await handshakeListAndCall(await startTaskArgs());
  assert.ok((init.result as { serverInfo?: unknown }).serverInfo, JSON.stringify(init));
  const names = listedNames(list);
  for (const name of ["open_binary", "workspace_status", "privacy_status"]) {
    assert.ok(names.includes(name), `${name} is listed`);
  }
  const result = call.result as { isError?: boolean; structuredContent?: unknown } | undefined;
  assert.ok(result?.structuredContent && !result.isError, JSON.stringify(call).slice(0, 300));
});

Deno.test("the start task's lazy imports without the ./src grant fail the first call with Deno's reason", async () => {
  const args = (await startTaskArgs()).map((arg) =>
    arg.startsWith("--allow-read=")
      ? `--allow-read=${arg.slice(13).split(",").filter((p) => p !== "./src").join(",")}`
      : arg
  );
  assert.ok(args.includes("--unstable-lazy-dynamic-imports"), "the task imports lazily");
  const { init, list, call } = await handshakeListAndCall(args);
  assert.ok(init.result, "initialize needs no workbench code");
  // tools/list is answered from the catalogs, unless the failed build was already known.
  const listError = list.error as { message: string } | undefined;
  if (listError) assert.match(listError.message, /read access to .*src\/.*workbench\.ts/);
  else assert.ok(listedNames(list).includes("open_binary"), JSON.stringify(list).slice(0, 300));
  const error = call.error as { message: string } | undefined;
  assert.ok(error, JSON.stringify(call).slice(0, 300));
  assert.match(error.message, /read access to .*src\/.*workbench\.ts/);
});
