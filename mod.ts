/**
 * Casefile: an MCP server for evidence-backed investigations of shipped
 * binaries and cloud estates, with guided prompts and session-aware
 * argument completion.
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

export {
  type CasefileServer,
  type CreateServerOptions,
  DEFAULT_EVIDENCE_URI_PREFIX,
} from "./src/server.ts";
export { createServer, type ServerOptions, type WorkbenchPlugin } from "./src/workbenches.ts";
export { type HttpEndpoint, serveHttp, type ServeHttpOptions } from "./src/http.ts";
export { runCli } from "./src/cli.ts";
export { VERSION } from "./src/version.ts";
export type { McpTransport } from "./src/server.ts";
export type { JsonObject, JsonValue } from "./src/core/canonical_json.ts";
export {
  type AnalysisProfile,
  EvidenceLedger,
  type EvidenceLocation,
  type EvidenceRecord,
  type EvidenceSubject,
  type LedgerLimits,
  type ProviderIdentity,
  type RecordOutcome,
} from "./src/core/evidence.ts";
export type { BinarySubject, SubjectFormat } from "./src/apps/evidence.ts";
export {
  categoryOf,
  type CoreErrorCode,
  declareErrorCodes,
  type ErrorCategory,
  type ErrorCode,
  type Remediation,
  type ToolErrorBody,
  ToolFailure,
  type ToolFailureOptions,
} from "./src/core/errors.ts";
export type { ToolEffects } from "./src/core/catalog.ts";
export {
  ANONYMOUS_PRINCIPAL,
  LOCAL_PRINCIPAL,
  type PolicyInputTransform,
  type PolicyRequest,
  type PolicyRequestKind,
  type PolicyRule,
  type PolicyTransform,
  type PolicyVisibilityRule,
  type Principal,
  type Sensitivity,
} from "./src/core/policy.ts";

export {
  type PromptArgument,
  type PromptChange,
  type PromptContract,
  type PromptMessage,
  PromptRegistry,
  type PromptRenderer,
  type PromptStep,
  type RenderedPrompt,
  type RenderedTextPrompt,
} from "./src/core/prompts.ts";
export { LOG_LEVELS, type Logger, type LogLevel } from "./src/core/log.ts";
export { NameIndex, type NameSource } from "./src/core/policy/names.ts";

if (import.meta.main) {
  const { runCli } = await import("./src/cli.ts");
  Deno.exit(await runCli(Deno.args));
}
