/**
 * Wire size of list tools: for one full page of each, the UTF-8 bytes of
 * the whole result, of `structuredContent` alone and of the content blocks,
 * per listed item. The text block carries the serialized JSON of
 * `structuredContent` (compact), as the MCP specification asks of a tool
 * that returns structured content, so a page is about twice its structured
 * size; nothing else may add to that.
 *
 * @module
 */

import { type BenchContext, BenchServer, structured, utf8Bytes } from "../harness.ts";
import { libraryFor, rootOf } from "../library.ts";

interface ListCall {
  tool: string;
  args: Record<string, unknown>;
}

const APPS: ListCall[] = [
  { tool: "list_procedures", args: { offset: 1000, limit: 500 } },
  { tool: "search_procedures", args: { query: "llvm", limit: 100 } },
  { tool: "search_strings", args: { query: "e", limit: 100 } },
  { tool: "list_documents", args: {} },
];
const CLOUD: ListCall[] = [
  { tool: "find_assets", args: { limit: 100 } },
  { tool: "list_findings", args: { limit: 100 } },
];

function itemsOf(value: unknown): unknown[] | null {
  if (!value || typeof value !== "object") return null;
  const record = value as Record<string, unknown>;
  if (Array.isArray(record.items)) return record.items;
  for (const child of Object.values(record)) {
    if (Array.isArray(child) && child.length > 0) return child;
  }
  return null;
}

/** Runs the wire-size measure. */
export default async function wireSize(ctx: BenchContext): Promise<void> {
  const library = libraryFor(ctx.size);
  await using server = await BenchServer.start({
    roots: [rootOf(library.path)],
    args: ["--demo"],
  });
  await server.call("open_binary", { path: library.path });
  for (const { tool, args } of [...APPS, ...CLOUD]) {
    let call;
    try {
      call = await server.call(tool, args);
    } catch (error) {
      ctx.log(`skip ${tool}: ${error instanceof Error ? error.message.slice(0, 200) : error}`);
      continue;
    }
    const content = structured(call);
    const items = itemsOf(content.result);
    if (!items || items.length === 0) {
      ctx.log(`skip ${tool}: no items`);
      continue;
    }
    const n = items.length;
    const structuredBytes = utf8Bytes(content);
    const blocks = utf8Bytes(call.result.content);
    ctx.figure({
      label: `${tool} ${JSON.stringify(args)}: bytes per item`,
      value: `${(call.bytes / n).toFixed(0)} B (${n} items, ${call.bytes} B)`,
      note: `structuredContent ${(structuredBytes / n).toFixed(0)} B/item, content blocks ${
        (blocks / n).toFixed(0)
      } B/item; result ÷ structured = ${(call.bytes / structuredBytes).toFixed(2)}`,
    });
  }
}
