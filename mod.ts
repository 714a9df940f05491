/**
 * Casefile: an MCP server for evidence-backed investigations of shipped
 * binaries, with guided prompts and session-aware argument completion.
 *
 * Run it as a command (`deno run … jsr:@casefile/mcp --root DIR`) or embed it:
 *
 * @example Serve one MCP client over stdio
 * ```ts
 * import { createServer } from "@casefile/mcp";
 * // @ts-types="@modelcontextprotocol/sdk/server/stdio"
 * import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
 *
 * const casefile = createServer({ roots: ["/usr/bin"] });
 * await casefile.connect(new StdioServerTransport());
 * ```
 *
 * @module
 */

export { type CasefileServer, createServer, type CreateServerOptions } from "./src/server.ts";
export { type HttpEndpoint, serveHttp, type ServeHttpOptions } from "./src/http.ts";
export { runCli } from "./src/cli.ts";
export { VERSION } from "./src/version.ts";
export type { EvidenceRecord, LedgerLimits } from "./src/core/evidence.ts";
export type { PolicyRequest, PolicyRule, PolicyTransform } from "./src/core/policy.ts";
export type { LogLevel } from "./src/core/log.ts";
export type { WorkbenchModule } from "./src/core/workbench.ts";

if (import.meta.main) {
  const { runCli } = await import("./src/cli.ts");
  Deno.exit(await runCli(Deno.args));
}
