/**
 * `build_call_path`: a chain of direct calls from one procedure to another.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../core/catalog.ts";
import { ToolFailure } from "../../core/errors.ts";
import { decodeWithFlow } from "../analysis/code.ts";
import { hex, nameTarget } from "../analysis/dossier.ts";
import type { AppsContext } from "../context/apps_context.ts";
import { observe } from "../context/observation.ts";
import { findCallTarget, findProcedure } from "../context/procedure_query.ts";
import { notDisassembled } from "../providers/provider.ts";
import { callPathResultSchema } from "../schemas/analysis_results.ts";
import { documentField, procedureField } from "../schemas/inputs.ts";
import { BUILD_CALL_PATH } from "../tool_names.ts";

/** Bounded breadth-first search for a chain of direct calls; frontiers it cannot cross are unknowns. */
export function buildCallPathTool(context: AppsContext): ToolDefinition {
  return defineTool({
    name: BUILD_CALL_PATH,
    toolset: "static",
    description:
      "Search for a chain of direct calls from one procedure to another (breadth-first, bounded by depth and procedures visited). Frontiers the search could not cross — indirect calls, undecodable code, depth or node limits — are reported as unknowns, never as absence.",
    input: z.strictObject({
      from: procedureField.describe("The starting procedure (address or name)."),
      to: procedureField.describe(
        "The procedure or import to reach (address or name; an import by name, stub or slot).",
      ),
      max_depth: z.number().int().min(1).max(12).default(6).describe(
        "Longest chain of calls (1 to 12).",
      ),
      max_nodes: z.number().int().min(1).max(20_000).default(2000).describe(
        "Most procedures visited (1 to 20000).",
      ),
      document: documentField,
    }),
    result: callPathResultSchema,
    effects: { mutatesSession: true },
    producesEvidence: true,
    run: (args, call) =>
      observe(context.session, {
        operation: BUILD_CALL_PATH,
        document: args.document,
        parameters: call.parameters,
      }, async ({ image, program }) => {
        if (!program.decodable) throw notDisassembled(image, BUILD_CALL_PATH);
        const start = findProcedure(program, args.from);
        const goal = findCallTarget(program, args.to);
        const maxDepth = args.max_depth;
        const maxNodes = args.max_nodes;
        const parent = new Map<bigint, bigint | null>([[start.address, null]]);
        let frontier: bigint[] = [start.address];
        const unknowns: { procedure: string; reason: string }[] = [];
        let depth = 0;
        let found = start.address === goal.address;
        let stopped: string | null = null;
        while (!found && frontier.length > 0 && depth < maxDepth) {
          const next: bigint[] = [];
          for (const at of frontier) {
            if (call.signal.aborted) {
              throw new ToolFailure("cancelled", "build_call_path was cancelled.");
            }
            const fn = program.functionStartingAt(at);
            if (!fn) continue;
            const { decoded, flows } = await decodeWithFlow(image, fn, {
              maxInstructions: 5000,
              maxBytesWhenUnsized: 1 << 20,
            });
            if (decoded.truncated) {
              unknowns.push({ procedure: hex(at), reason: "instruction-limit" });
            }
            // Calls through a slot, or a register loaded from one, reach its import or function.
            const through = program.slotCallTargets(decoded.instructions, flows);
            if (flows.some((f, k) => f.kind === "call" && f.indirect && through[k] === null)) {
              unknowns.push({ procedure: hex(at), reason: "indirect-call" });
            }
            for (const [k, flow] of flows.entries()) {
              if (flow.kind !== "call" && flow.kind !== "jump") continue;
              // A stub of the document's own function reaches that function.
              const target = flow.target !== null ? program.callTarget(flow.target) : through[k]!;
              if (target === null) continue;
              if (
                flow.kind === "jump" && program.functionStartingAt(target) === undefined &&
                target !== goal.address
              ) {
                continue;
              }
              if (parent.has(target)) continue;
              if (parent.size >= maxNodes) {
                stopped = "node-limit";
                break;
              }
              parent.set(target, at);
              if (target === goal.address) {
                found = true;
                break;
              }
              if (program.functionStartingAt(target)) next.push(target);
              else if (!program.importAt(target)) {
                unknowns.push({ procedure: hex(target), reason: "not-a-known-procedure" });
              }
            }
            if (found || stopped) break;
          }
          if (found || stopped) break;
          frontier = next;
          depth++;
          await call.progress(
            depth,
            maxDepth,
            `searched depth ${depth}, ${parent.size} procedures`,
          );
        }
        if (!found && !stopped && frontier.length > 0 && depth >= maxDepth) {
          stopped = "depth-limit";
        }
        const path: { address: string; name: string }[] = [];
        if (found) {
          for (let at: bigint | null = goal.address; at !== null; at = parent.get(at) ?? null) {
            path.unshift({ address: hex(at), name: nameTarget(program, at).name });
          }
        }
        return {
          result: {
            from: { address: hex(start.address), name: start.name },
            to: { address: hex(goal.address), name: goal.name, kind: goal.kind },
            found,
            path,
            depth: found ? path.length - 1 : depth,
            visited: parent.size,
            stopped_by: found ? null : stopped,
            unknowns: unknowns.slice(0, 200),
            unknown_count: unknowns.length,
          },
          limitations: found ? [] : [
            "No direct-call path was found within the bounds. That is not evidence of absence: " +
            (stopped ? `the search stopped at its ${stopped}; ` : "") +
            `${unknowns.length} frontier(s) could not be followed (indirect calls, instruction limits, unknown targets).`,
          ],
        };
      }),
  });
}
