/**
 * `build_call_path`: a chain of direct calls from one procedure to another.
 *
 * @module
 */

import { z } from "zod";
import {
  defineTool,
  RECORDS_EVIDENCE,
  type ToolDefinition,
  type ToolOutcome,
} from "../../core/catalog.ts";
import { ToolFailure } from "../../core/errors.ts";
import { decodeWithFlow } from "../analysis/code.ts";
import { hex, nameTarget } from "../analysis/dossier.ts";
import {
  type PathDossier,
  type PathStep,
  pathsThroughDossiers,
} from "../analysis/dossier_paths.ts";
import type { AppsContext } from "../context/apps_context.ts";
import { observe } from "../context/observation.ts";
import {
  type InlineEvidence,
  inlineEvidenceSchema,
  verifiedInlineRecord,
} from "../context/inline_evidence.ts";
import { findCallTarget, findProcedure, pageOf } from "../context/procedure_query.ts";
import { notDisassembled } from "../providers/provider.ts";
import { callPathResultSchema } from "../schemas/analysis_results.ts";
import {
  ADDRESS_PATTERN,
  documentFields,
  limitField,
  offsetField,
  procedureField,
} from "../schemas/inputs.ts";
import { ANALYZE_FUNCTION, BUILD_CALL_PATH } from "../tool_names.ts";

/** Bounded breadth-first search for a chain of direct calls; frontiers it cannot cross are unknowns. */
export function buildCallPathTool(context: AppsContext): ToolDefinition {
  return defineTool({
    name: BUILD_CALL_PATH,
    toolset: "static",
    description:
      "Search for a chain of direct calls from one procedure to another (breadth-first, bounded by depth and procedures visited). Frontiers the search could not cross — indirect calls, undecodable code, depth or node limits — are reported as unknowns, never as absence.",
    input: z.strictObject({
      from: procedureField.optional().describe(
        "The starting procedure (address or name); or REA's start.",
      ),
      to: procedureField.optional().describe(
        "The procedure or import to reach (address or name; an import by name, stub or slot); or REA's goal.",
      ),
      start: reaAddress.optional().describe("REA's form of from: {address}."),
      goal: reaAddress.optional().describe("REA's form of to: {address}."),
      functions: z.array(
        z.union([inlineEvidenceSchema, z.array(inlineEvidenceSchema).min(1).max(100)]),
      )
        .min(1).max(500).optional().describe(
          "REA's form: analyze_function Evidence records (or lists of a dossier's pages), given whole; the search then follows only these dossiers' callees, with no disassembly.",
        ),
      max_depth: z.number().int().min(0).max(32).default(6).describe(
        "Longest chain of calls (0 to 32).",
      ),
      max_nodes: z.number().int().min(1).max(20_000).default(2000).describe(
        "Most procedures visited (1 to 20000).",
      ),
      max_paths: z.number().int().min(1).max(100).default(10).describe(
        "With functions: most paths found (1 to 100).",
      ),
      offset: offsetField.describe(
        "With functions: index of the first path returned.",
      ),
      limit: limitField(100, 100).describe(
        "With functions: paths per page (1 to 100).",
      ),
      ...documentFields,
    }),
    result: callPathResultSchema,
    ...RECORDS_EVIDENCE,
    run: (args, call) => {
      if (args.functions !== undefined) return Promise.resolve(pathsFromDossiers(args));
      const from = args.from ?? args.start?.address;
      const to = args.to ?? args.goal?.address;
      if (from === undefined || to === undefined) {
        throw new ToolFailure(
          "invalid_request",
          "build_call_path needs the start (from, or REA's start) and the goal (to, or REA's goal).",
        );
      }
      return observe(context.session, {
        operation: BUILD_CALL_PATH,
        document: args.document,
        call,
      }, async ({ image, program }) => {
        if (!program.decodable) throw notDisassembled(image, BUILD_CALL_PATH);
        const start = findProcedure(program, from);
        const goal = findCallTarget(program, to);
        const maxDepth = args.max_depth;
        const maxNodes = args.max_nodes;
        const parent = new Map<bigint, bigint | null>([[start.address, null]]);
        // Procedures (and imports) first reached by a jump to their start: tail calls.
        const tailJumps = new Set<bigint>();
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
              // A conditional jump to another procedure's start is a tail call too (mk's je to
              // mk.cold); one to an address inside the procedure is its own control flow.
              if (
                flow.kind !== "call" && flow.kind !== "jump" && flow.kind !== "conditional-jump"
              ) {
                continue;
              }
              // A stub of the document's own function reaches that function.
              const target = flow.target !== null ? program.callTarget(flow.target) : through[k]!;
              if (target === null) continue;
              if (
                flow.kind !== "call" && program.functionStartingAt(target) === undefined &&
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
              if (flow.kind !== "call") tailJumps.add(target);
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
        const path: PathStep[] = [];
        if (found) {
          for (let at: bigint | null = goal.address; at !== null; at = parent.get(at) ?? null) {
            const via = tailJumps.has(at) ? "tail-jump" : "call";
            path.unshift({
              address: hex(at),
              name: nameTarget(program, at).name,
              ...(at === start.address ? {} : { via }),
            });
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
      });
    },
  });
}

const reaAddress = z.strictObject({
  address: z.string().regex(/^0[xX][0-9a-fA-F]{1,16}$/).describe("0x and hex digits."),
});

/** REA's contract: paths through the dossiers given, recorded as derived Evidence. */
function pathsFromDossiers(args: {
  functions?: (InlineEvidence | InlineEvidence[])[] | undefined;
  from?: string | undefined;
  to?: string | undefined;
  start?: { address: string } | undefined;
  goal?: { address: string } | undefined;
  max_depth: number;
  max_paths: number;
  offset: number;
  limit: number;
}): Extract<ToolOutcome, { kind: "evidence" }> {
  const records = (args.functions ?? []).flat().map(verifiedInlineRecord);
  for (const record of records) {
    if (record.operation !== ANALYZE_FUNCTION) {
      throw new ToolFailure(
        "invalid_request",
        `functions holds ${record.evidence_id}, which records ${record.operation}, not analyze_function.`,
      );
    }
  }
  const startText = args.start?.address ?? args.from;
  const goalText = args.goal?.address ?? args.to;
  if (
    startText === undefined || goalText === undefined || !ADDRESS_PATTERN.test(startText) ||
    !ADDRESS_PATTERN.test(goalText)
  ) {
    throw new ToolFailure(
      "invalid_request",
      'With functions, start and goal are addresses ({address: "0x…"}, or from and to as 0x addresses).',
    );
  }
  const start = hex(BigInt(startText));
  const goal = hex(BigInt(goalText));
  const dossiers = records.map((record) =>
    record.normalized_result as unknown as PathDossier & {
      document?: string;
    }
  );
  const found = pathsThroughDossiers(dossiers, start, goal, {
    maxDepth: args.max_depth,
    maxPaths: args.max_paths,
  });
  const nameOf = (address: string): string =>
    dossiers.find((d) => BigInt(d.procedure.address) === BigInt(address))?.procedure.name ?? "";
  const first = found.paths[0] ?? [];
  const page = pageOf(
    found.paths.map((path) => ({ procedures: path, depth: path.length - 1 })),
    args.offset,
    args.limit,
  );
  const subject = records[0]?.subject ?? null;
  return {
    kind: "evidence",
    draft: {
      subject,
      provider: { id: "casefile-call-path", name: "Casefile call path", version: "1" },
      operation: BUILD_CALL_PATH,
      predicate_type: "rea.call-path/v1",
      confidence: "derived",
      authority: "analyst-inference",
      parameters: {
        function_evidence_ids: records.map((record) => record.evidence_id),
        start,
        goal,
        max_depth: args.max_depth,
        max_paths: args.max_paths,
        offset: args.offset,
        limit: args.limit,
      },
      normalized_result: {
        document: dossiers[0]?.document ?? subject?.name ?? "",
        from: { address: start, name: nameOf(start) },
        to: { address: goal, name: nameOf(goal), kind: "procedure" },
        found: found.paths.length > 0,
        path: first,
        depth: first.length > 0 ? first.length - 1 : args.max_depth,
        visited: found.visited,
        stopped_by: found.stopped_by,
        unknowns: found.frontiers.slice(0, 200),
        unknown_count: found.frontiers.length,
        paths: page,
      },
      evidence_links: records.map((record) => record.evidence_id),
      limitations: found.paths.length > 0 && found.frontiers.length === 0 ? [] : [
        `Paths follow only the ${records.length} dossier(s) given: ${found.frontiers.length} procedure(s) could not be followed (no dossier, or an incomplete callee page)${
          found.stopped_by ? `, and the search stopped at its ${found.stopped_by}` : ""
        }. A missing path is not evidence of absence.`,
      ],
    },
  };
}
