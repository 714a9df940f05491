/**
 * The transport floor of a paged walk: a minimal SDK server whose one tool,
 * `page`, answers with the stored results of a real walk, read from a JSON
 * file (an array, given as the first argument), one per call in order and
 * round again, each re-parsed on its call. Calling it as often as the real
 * walk has pages shows what the protocol and the SDK client cost for the
 * same bytes, before any work of ours.
 *
 * @module
 */

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const file = Deno.args[0];
if (!file) throw new Error("usage: page_server.ts PAGES.json");
// Each page kept as text, so every call parses and re-serialises its page as a handler would.
const pages = (JSON.parse(Deno.readTextFileSync(file)) as unknown[]).map((page) =>
  JSON.stringify(page)
);
if (pages.length === 0) throw new Error("page_server.ts: the pages file holds no page");
let next = 0;
const server = new Server({ name: "page-floor", version: "0.0.0" }, {
  capabilities: { tools: {} },
});
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [{
    name: "page",
    description: "Answers the next stored page.",
    inputSchema: { type: "object" },
  }],
}));
server.setRequestHandler(CallToolRequestSchema, () => {
  const page = pages[next]!;
  next = (next + 1) % pages.length;
  return JSON.parse(page);
});
await server.connect(new StdioServerTransport());
