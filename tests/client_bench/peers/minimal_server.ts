/**
 * The cold-start peer: the smallest useful MCP server written with the SDK
 * (one tool, stdio), started with the same Deno flags as ours.
 *
 * @module
 */

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

const server = new McpServer({ name: "minimal", version: "0.0.0" });
server.registerTool("ping", { description: "Answers pong." }, () => ({
  content: [{ type: "text", text: "pong" }],
}));
await server.connect(new StdioServerTransport());
