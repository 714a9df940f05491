/**
 * Child process of `memory_garbage_test.ts`: opens a library through an MCP
 * client (in memory), reads it in full (`binary_overview`) and builds its
 * reference index (`xrefs`). After each, once the server has answered and a
 * turn of the event loop has passed, it takes the V8 heap in use, collects
 * garbage itself, and takes it again: what that collection still frees is
 * garbage the heavy step left standing. Prints one JSON line.
 *
 * Usage: `deno run --v8-flags=<the start task's> --allow-read --allow-env
 * garbage_child.ts LIBRARY`.
 *
 * @module
 */

import { connect } from "./in_memory.ts";

const [path] = Deno.args;
if (!path) throw new Error("usage: garbage_child.ts LIBRARY");
const gc = (globalThis as { gc?: () => void }).gc;
if (typeof gc !== "function") throw new Error("run this under --v8-flags=--expose-gc");
const directory = path.slice(0, path.lastIndexOf("/"));
const { client, close } = await connect({ roots: [directory] });

/** Heap in use now, and after a collection of our own. */
async function standing(): Promise<{ before: number; after: number }> {
  await new Promise((resolve) => setTimeout(resolve, 20));
  const before = Deno.memoryUsage().heapUsed;
  gc!();
  return { before, after: Deno.memoryUsage().heapUsed };
}

await client.callTool({ name: "open_binary", arguments: { path } });
await client.callTool({ name: "binary_overview", arguments: {} });
const read = await standing();
const page = await client.callTool({ name: "list_procedures", arguments: { offset: 0, limit: 1 } });
const address = (page.structuredContent as { result: { items: { address: string }[] } }).result
  .items[0]!.address;
await client.callTool({ name: "xrefs", arguments: { address } });
const indexed = await standing();
await close();
console.log(JSON.stringify({ read, indexed }));
