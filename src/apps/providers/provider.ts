/**
 * The analysis provider contract and REA-style selection: `auto` binds only
 * when exactly one candidate is usable; an explicit id never falls back to
 * another. The built-in providers are in `native.ts` and `objdump.ts`.
 *
 * @module
 */

import { ToolFailure } from "../../core/errors.ts";
import type { AnalysisProfile, ProviderIdentity } from "../../core/evidence.ts";
import type { DossierLimits } from "../analysis/dossier.ts";
import type { ProcedureTable } from "../analysis/procedures.ts";
import type { AnalysisControl } from "../analysis/program.ts";
import type { BinaryImage, ImageFunction } from "../formats/binary_image.ts";
import type { LoadedTarget } from "../session/target.ts";

/** Whether a candidate can run on this host. */
export interface Availability {
  status: "available" | "unavailable";
  code: string | null;
  reason: string;
}

/** Whether a candidate can analyse a target. */
export interface TargetSupport {
  status: "supported" | "unsupported" | "unknown";
  code: string | null;
  reason: string;
}

/** One item of a procedure page. */
export interface ProcedureItem {
  address: string;
  value: string;
}

/** A page of procedures (spec §2.4 shape). */
export interface ProcedurePage {
  items: ProcedureItem[];
  offset: number;
  limit: number;
  total: number;
  has_more: boolean;
  next_offset: number | null;
}

/** The procedures of one document as a provider lists them. */
export interface ProcedureLookup {
  /** Procedure starts, sizes and names, with lookups. */
  table: ProcedureTable;
  /** The name of the section holding `address` in the provider's own section list, or null. */
  sectionAt(address: bigint): string | null;
  /** What limits every answer read from this table. */
  limitations: string[];
}

/** One document of an open target. */
export interface DocumentRef {
  target: LoadedTarget;
  /** A document name the provider lists. */
  document: string;
}

/** What `analyze_function` and `procedure_callees` ask of a provider. */
export interface DossierRequest extends DossierLimits {
  /** The tool asking, for messages. */
  operation: string;
  /** The procedure, as the provider's own table lists it. */
  procedure: ImageFunction;
  /** Progress and cancellation. */
  control: AnalysisControl;
  /** Compute callers and incoming references (a whole-document scan). */
  includeCallers: boolean;
}

/** A procedure dossier: the result fields, and what limits them. */
export interface DossierAnswer {
  dossier: Record<string, unknown>;
  limitations: string[];
}

/**
 * A deep analysis provider. The optional operations are the ones a provider
 * answers from its own observations; each is present exactly when the
 * capabilities it serves are listed.
 */
export interface AnalysisProvider {
  identity: ProviderIdentity;
  /** The settings its answers depend on, recorded in its Evidence; null while its version is unknown. */
  profile(): AnalysisProfile | null;
  /** Operations it implements. */
  capabilities: string[];
  /** Side-effect free: never starts anything. */
  availability(): Availability;
  supports(target: LoadedTarget): TargetSupport;
  listDocuments(target: LoadedTarget): string[];
  listProcedures(
    target: LoadedTarget,
    document: string,
    offset: number,
    limit: number,
  ): Promise<ProcedurePage>;
  /** The procedure table behind search_procedures, procedure_address and resolve_containing_procedure. */
  procedures?(at: DocumentRef): Promise<ProcedureLookup>;
  /** The dossier behind analyze_function and procedure_callees, from the provider's own disassembly. */
  analyzeProcedure?(at: DocumentRef, request: DossierRequest): Promise<DossierAnswer>;
}

/** The bound provider of a document. */
export interface BoundDocument extends DocumentRef {
  provider: AnalysisProvider;
}

/** The provider's procedure table for `operation`, or capability_unavailable when it has none. */
export function procedureLookupOf(
  scope: BoundDocument,
  operation: string,
): Promise<ProcedureLookup> {
  if (!scope.provider.procedures) throw notImplemented(scope.provider, operation);
  return scope.provider.procedures(scope);
}

/** The provider's dossier of one procedure, or capability_unavailable when it builds none. */
export function dossierFrom(scope: BoundDocument, request: DossierRequest): Promise<DossierAnswer> {
  if (!scope.provider.analyzeProcedure) throw notImplemented(scope.provider, request.operation);
  return scope.provider.analyzeProcedure(scope, request);
}

function notImplemented(provider: AnalysisProvider, operation: string): ToolFailure {
  return new ToolFailure(
    "capability_unavailable",
    `Provider ${provider.identity.id} does not implement ${operation}.`,
  );
}

/** The failure of an operation that needs disassembly on code the native provider does not decode. */
export function notDisassembled(image: BinaryImage, operation: string): ToolFailure {
  return new ToolFailure(
    "capability_unavailable",
    `${operation} needs disassembly, and ${image.architecture} code (${image.machine}) is not disassembled by the native provider.`,
    {
      action: "Use list_procedures, search_procedures and search_strings on this document instead.",
    },
  );
}

/** The pattern a provider id must match. */
export const PROVIDER_ID_PATTERN: RegExp = /^[a-z][a-z0-9-]{0,63}$/;

/** A chosen provider for the open target. */
export interface Binding {
  provider: AnalysisProvider;
  selectionSource: "request" | "environment" | "auto-single-candidate";
}

/**
 * Selects a provider for a target. `auto` keeps the available candidates that
 * support the target: one binds, several are ambiguous, none leaves the target
 * unbound (null). A concrete id binds that provider or fails; it never falls back.
 */
export function selectProvider(
  candidates: readonly AnalysisProvider[],
  target: LoadedTarget,
  requested: string,
  source: "request" | "environment" | "default",
): Binding | null {
  const ids = candidates.map((c) => c.identity.id);
  if (requested !== "auto") {
    if (!PROVIDER_ID_PATTERN.test(requested)) {
      throw selectionError(
        "unknown_provider",
        `Provider id ${
          JSON.stringify(requested)
        } is malformed: it must match ^[a-z][a-z0-9-]*$ and be 1 to 64 characters.`,
        requested,
        ids,
      );
    }
    const provider = availableProvider(
      candidates,
      requested,
      (ids) => `No provider ${requested} is registered; candidates: ${ids.join(", ")}.`,
    );
    const support = provider.supports(target);
    if (support.status !== "supported") {
      throw selectionError(
        "target_unsupported",
        `Provider ${requested} cannot analyse ${target.name}: ${support.reason}`,
        requested,
        ids,
      );
    }
    return { provider, selectionSource: source === "environment" ? "environment" : "request" };
  }
  const usable = candidates.filter((c) =>
    c.availability().status === "available" && c.supports(target).status === "supported"
  );
  if (usable.length > 1) {
    const choices = usable.map((c) => c.identity.id);
    throw selectionError(
      "ambiguous",
      `More than one provider can analyse ${target.name} (${
        choices.join(", ")
      }); auto cannot choose, so pass provider_id with one of them.`,
      "auto",
      ids,
      `Call open_binary again with provider_id ${
        choices.map((id) => JSON.stringify(id)).join(" or ")
      }${
        choices.includes("native")
          ? ' ("native" reads every format and answers every analysis tool; the others answer a subset, see binary_session)'
          : ""
      }.`,
    );
  }
  const only = usable[0];
  return only ? { provider: only, selectionSource: "auto-single-candidate" } : null;
}

function selectionError(
  reason: string,
  message: string,
  requested: string,
  candidates: string[],
  action =
    "Call binary_session to see the candidates and their availability, then pass one that is available, or auto.",
): ToolFailure {
  return new ToolFailure("provider_unavailable", message, {
    action,
    details: { reason, requested, candidates },
  });
}

/**
 * Checks a `provider_id` given before any binary is open (with an archive,
 * for the members opened from it): `auto`, or a registered provider that is
 * available now. Throws `provider_unavailable` otherwise.
 */
export function checkProviderId(candidates: readonly AnalysisProvider[], requested: string): void {
  if (requested === "auto") return;
  availableProvider(
    candidates,
    requested,
    (ids) =>
      `No provider ${JSON.stringify(requested)} is registered; candidates: auto, ${
        ids.join(", ")
      }.`,
  );
}

/**
 * The registered provider `requested`, available now; throws `unknownMessage`
 * of the registered ids when none has that id, or says why it is unavailable.
 */
function availableProvider(
  candidates: readonly AnalysisProvider[],
  requested: string,
  unknownMessage: (ids: string[]) => string,
): AnalysisProvider {
  const ids = candidates.map((c) => c.identity.id);
  const provider = candidates.find((c) => c.identity.id === requested);
  if (!provider) throw selectionError("unknown_provider", unknownMessage(ids), requested, ids);
  const availability = provider.availability();
  if (availability.status !== "available") {
    throw selectionError(
      "provider_unavailable",
      `Provider ${requested} is unavailable: ${availability.reason}`,
      requested,
      ids,
    );
  }
  return provider;
}

/** Provider ids worth offering: auto and every provider available now. */
export function usableProviderIds(candidates: readonly AnalysisProvider[]): string[] {
  return [
    "auto",
    ...candidates.filter((c) => c.availability().status === "available").map((c) => c.identity.id),
  ];
}
