/**
 * The transport floor of a paged walk: a minimal SDK server whose one tool,
 * `page`, answers with a result read from a JSON file (given as the first
 * argument), re-serialised on every call. Walking it as often as the real
 * walk has pages shows what the protocol and the SDK client cost for the
 * same bytes, before any work of ours.
 *
 * @module
 */

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const file = Deno.args[0];
if (!file) throw new Error("usage: page_server.ts PAGE.json");
const page = Deno.readTextFileSync(file);
const server = new Server({ name: "page-floor", version: "0.0.0" }, {
  capabilities: { tools: {} },
});
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [{
    name: "page",
    description: "Answers the stored page.",
    inputSchema: { type: "object" },
  }],
}));
server.setRequestHandler(CallToolRequestSchema, () => JSON.parse(page));
await server.connect(new StdioServerTransport());
