/**
 * Evidence ids are content ids, so every input a tool records in its
 * Evidence `parameters` is part of the id. Arguments added later for REA's
 * call shapes must not change the id of a call that does not use them: each
 * is left out of the recorded parameters while it has its neutral value
 * (absent, or the default that reproduces the earlier behaviour).
 * `unknown_registry_approved` is never recorded: it decides what is written
 * to the registry, not what was observed.
 *
 * @module
 */

import { isDeepStrictEqual } from "node:util";
import type { ToolDefinition } from "../../core/catalog.ts";
import {
  ANALYZE_FUNCTION,
  BINARY_OVERVIEW,
  BUILD_CALL_PATH,
  CORRELATE_STATIC_AND_RUNTIME,
  FIND_CHANGED_BEHAVIOR,
  INVENTORY_ARTIFACT,
  SEARCH_PROCEDURES,
  SEARCH_STRINGS,
  TRACE_FEATURE,
} from "../tool_names.ts";

/** Per tool, the later arguments and the value at which each is left out of the parameters. */
export const NEUTRAL_PARAMETERS: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  [SEARCH_STRINGS]: { pattern: null },
  [SEARCH_PROCEDURES]: { pattern: null },
  [BINARY_OVERVIEW]: { detail: "concise", limit: 32 },
  [ANALYZE_FUNCTION]: { max_pseudocode_chars: 20_000, pseudocode_offset: 0 },
  [TRACE_FEATURE]: { case_sensitive: false },
  [BUILD_CALL_PATH]: {
    start: null,
    goal: null,
    functions: null,
    max_paths: 10,
    offset: 0,
    limit: 100,
  },
  [CORRELATE_STATIC_AND_RUNTIME]: {
    static_comparisons: null,
    runtime_comparisons: null,
    mappings: null,
    offset: 0,
    limit: 100,
  },
  [FIND_CHANGED_BEHAVIOR]: { comparisons: [], investigation_run: null },
  [INVENTORY_ARTIFACT]: { native_mount_approved: false },
};

/** Never recorded as an observation input. */
const UNRECORDED = ["unknown_registry_approved"];

/** `parameters` without the neutral later arguments of `tool`. */
export function stableParameters(
  tool: string,
  parameters: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const neutral = NEUTRAL_PARAMETERS[tool] ?? {};
  return Object.fromEntries(
    Object.entries(parameters).filter(([key, value]) =>
      !UNRECORDED.includes(key) && !(key in neutral && isDeepStrictEqual(value, neutral[key]))
    ),
  );
}

/** `tool`, recording the stable parameters of each call in its Evidence. */
export function withStableParameters(tool: ToolDefinition): ToolDefinition {
  return {
    ...tool,
    run: (args, call) =>
      tool.run(args, { ...call, parameters: stableParameters(tool.name, call.parameters) }),
  };
}
