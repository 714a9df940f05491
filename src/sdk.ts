/**
 * The MCP SDK imports this project uses, in one place, each with the
 * `@ts-types` directive that makes Deno see its real types.
 *
 * @module
 */

export { Server } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
export type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/server/stdio"
export { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
export type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
export {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
// @ts-types="@modelcontextprotocol/sdk/types"
export type {
  CallToolResult,
  CompleteResult,
  GetPromptResult,
  ListToolsResult,
  ReadResourceResult,
  Tool,
} from "@modelcontextprotocol/sdk/types.js";

/**
 * The SDK's Streamable HTTP transport, imported when an HTTP endpoint starts
 * (a stdio server never loads it).
 */
export async function loadStreamableHttpTransport(): Promise<
  typeof import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js")
> {
  // @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
  return await import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js");
}
