/**
 * The built-in workbenches, and `createServer`, which serves them all unless
 * told otherwise. The server core (`server.ts`) knows no workbench; this is
 * the one list a new workbench joins.
 *
 * @module
 */

import { assembleServer, type CasefileServer, type CreateServerOptions } from "./server.ts";
import type { WorkbenchModule } from "./core/workbench.ts";
import { appsModuleWith } from "./apps/descriptor.ts";
import { cloudModuleWith } from "./cloud/descriptor.ts";
import { privacyModuleWith } from "./privacy/descriptor.ts";
import type { CompiledPolicy } from "./core/policy/compile.ts";

/**
 * The built-in workbench modules, in the order they are served. Each is
 * configured with its defaults; its CLI flags configure it further. Each is
 * its light descriptor: a connection imports the implementation when it first
 * builds the workbench, so `initialize` is answered before any of it loads.
 */
export function builtinWorkbenches(
  options: Pick<CreateServerOptions, "capturePolicy"> & { policy?: CompiledPolicy } = {},
): WorkbenchModule[] {
  return [
    appsModuleWith(options.capturePolicy ? { capturePolicy: options.capturePolicy } : {}),
    cloudModuleWith(),
    privacyModuleWith(options.policy ? { policy: options.policy } : {}),
  ];
}

/**
 * A workbench the server can serve: one of the built-in ones, or one written
 * against the workbench interface (`src/core/workbench.ts`).
 */
export interface WorkbenchPlugin {
  /** The workbench's name (`apps`, `cloud`, …). */
  readonly name: string;
}

/** Options of {@linkcode createServer}: the server's, plus the workbenches to serve. */
export interface ServerOptions extends CreateServerOptions {
  /** The workbenches to serve. @default every built-in workbench */
  workbenches?: readonly WorkbenchPlugin[];
}

/** Checks that each plugin really is a workbench module. */
function asModules(plugins: readonly WorkbenchPlugin[]): WorkbenchModule[] {
  return plugins.map((plugin) => {
    const module = plugin as Partial<WorkbenchModule>;
    if (typeof module.create !== "function" || typeof module.permissionNeeds !== "function") {
      throw new TypeError(
        `Workbench ${
          JSON.stringify(plugin.name)
        } is not a workbench module (it needs create and permissionNeeds)`,
      );
    }
    return module as WorkbenchModule;
  });
}

/**
 * Creates a server for one MCP connection, serving the given workbenches
 * (every built-in one by default). Reads nothing and starts nothing until a
 * client calls a tool; the built-in workbenches' implementations are imported
 * in the background, `tools/list` is answered from their generated tool
 * catalogs meanwhile, and every other request but `initialize` waits for them.
 *
 * @example
 * ```ts
 * import { createServer } from "./workbenches.ts";
 * // @ts-types="@modelcontextprotocol/sdk/server/stdio"
 * import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
 * const casefile = createServer({ roots: ["/usr/bin"] });
 * await casefile.connect(new StdioServerTransport());
 * ```
 */
export function createServer(options: ServerOptions = {}): CasefileServer {
  const { workbenches, ...serverOptions } = options;
  return assembleServer(
    serverOptions,
    workbenches ? asModules(workbenches) : builtinWorkbenches(options),
  );
}
