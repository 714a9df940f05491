/**
 * Observations about one document of the binary target, as Evidence drafts:
 * the bound provider, its analysis profile, the subject and the reader's
 * warnings as limitations.
 *
 * @module
 */

import type { ToolContext } from "../../core/catalog.ts";
import type { AnalysisProfile, EvidenceDraft } from "../../core/evidence.ts";
import type { AnalysisControl } from "../analysis/program.ts";
import { ANALYSIS_PREDICATE } from "../evidence.ts";
import type { BinaryImage } from "../formats/binary_image.ts";
import type { AnalysisProvider } from "../providers/provider.ts";
import type { AnalysisScope, BinarySession } from "../session/binary_session.ts";
import type { LoadedTarget } from "../session/target.ts";

/** An Evidence outcome whose limitations the tool may still extend. */
export interface ObservationOutcome {
  kind: "evidence";
  draft: EvidenceDraft & { limitations: string[] };
}

/** The draft field for a provider's profile: absent when it has none yet. */
function withProfile(profile: AnalysisProfile | null): { analysis_profile?: AnalysisProfile } {
  return profile ? { analysis_profile: profile } : {};
}

/** The Evidence outcome of an observation about one document. */
export function observation(
  operation: string,
  scope: { provider: AnalysisProvider; target: LoadedTarget; image: BinaryImage },
  parameters: Record<string, unknown>,
  result: Record<string, unknown>,
): ObservationOutcome {
  const { provider, target, image } = scope;
  return {
    kind: "evidence",
    draft: {
      subject: target.subject,
      provider: { ...provider.identity },
      ...withProfile(provider.profile()),
      predicate_type: ANALYSIS_PREDICATE,
      operation,
      parameters,
      normalized_result: result,
      limitations: image.warnings.map((w) => `${target.formatName} reader: ${w}`).slice(0, 100),
    },
  };
}

export type { AnalysisScope };

/**
 * Waits for the session, resolves `document` for `operation` and readies it
 * (its first use reads it in full, reporting progress through the call),
 * computes the result and records it (with the
 * document's name first) as Evidence.
 */
export async function observe(
  session: BinarySession,
  request: {
    operation: string;
    document: string | undefined;
    /** The tool call: its parameters (recorded), progress and cancellation. */
    call: ToolContext;
  },
  compute: (scope: AnalysisScope) => Promise<{ result: object; limitations?: string[] }>,
): Promise<ObservationOutcome> {
  const { operation, document, call } = request;
  const scope = await session.prepared(operation, document, progressOf(call));
  const { result, limitations } = await compute(scope);
  const outcome = observation(operation, scope, call.parameters, {
    document: scope.document,
    ...result,
  });
  outcome.draft.limitations.push(...(limitations ?? []));
  return outcome;
}

/**
 * The `run` of a tool that observes one document: {@linkcode observe} over the
 * document its arguments name, recording the call's parameters.
 */
export function observedRun<A extends { document?: string | undefined }>(
  session: BinarySession,
  operation: string,
  compute: (
    scope: AnalysisScope,
    args: A,
    call: ToolContext,
  ) => Promise<{ result: object; limitations?: string[] }>,
): (args: A, call: ToolContext) => Promise<ObservationOutcome> {
  return (args, call) =>
    observe(
      session,
      { operation, document: args.document, call },
      (scope) => compute(scope, args, call),
    );
}

/** Progress and cancellation of a tool call, as the analysis layer takes them. */
export function progressOf(context: ToolContext): AnalysisControl {
  return {
    signal: context.signal,
    onProgress: (done: number, total: number, message: string) =>
      context.progress(done, total, message),
  };
}

const coverage = new WeakMap<BinaryImage, string[]>();

/** What a procedure listing can and cannot contain, from where its starts came (computed once). */
export function procedureCoverage(image: BinaryImage): string[] {
  let known = coverage.get(image);
  if (!known) {
    const sources = new Set([
      ...image.functions.map((fn) => fn.source),
      ...(image.functionTables ?? []),
    ]);
    const table = [
      "symtab",
      "name-section",
      "code-section",
      "pdata",
      "function-starts",
      "eh-frame",
      "arm-exidx",
      "gopclntab",
    ];
    known = table.some((source) => sources.has(source as never)) ? [] : [
      `No full function table: procedure starts come from ${
        [...sources].sort().join(", ") || "nothing"
      }; functions recorded nowhere else are not listed.`,
    ];
    coverage.set(image, known);
  }
  return known;
}
