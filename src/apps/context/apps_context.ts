/**
 * The per-connection state every apps tool shares: the binary session, the
 * session's Evidence, the active artifact target, the residual-unknowns
 * registry, the retained Evidence bundles and the operator's capture policy.
 * Tools receive it; none holds state of its own.
 *
 * @module
 */

import { DEFAULT_CEILINGS } from "../artifacts/ceilings.ts";
import type { TraversalLimits } from "../artifacts/model.ts";
import { ToolFailure } from "../../core/errors.ts";
import type { EvidenceLedger } from "../../core/evidence.ts";
import type { WorkbenchServices } from "../../core/workbench.ts";
import type { ArtifactTarget } from "../artifacts/target.ts";
import type { CapturePolicySettings } from "../capture/settings.ts";
import type { BinarySubject } from "../evidence.ts";
import { BundleStore } from "../evidence_bundle/store.ts";
import { nativeProvider } from "../providers/native.ts";
import { objdumpProvider } from "../providers/objdump.ts";
import { BinarySession } from "../session/binary_session.ts";
import { UnknownRegistry, unknownUri } from "../unknowns/registry.ts";

/** What the apps tools of one connection share. */
export interface AppsContext {
  /** What the core lends this connection. */
  readonly services: WorkbenchServices;
  /** The session's Evidence (the same ledger as `services.ledger`). */
  readonly ledger: EvidenceLedger;
  /** The binary target, its documents and the bound analysis provider. */
  readonly session: BinarySession;
  /** The operator's process-capture policy. */
  readonly capturePolicy: Readonly<CapturePolicySettings>;
  /** The operator's ceilings over client-chosen traversal limits. */
  readonly ceilings: Readonly<TraversalLimits>;
  /** The residual-unknowns registry; its revisions count against the ledger's caps. */
  readonly unknowns: UnknownRegistry;
  /** Evidence bundles retained by snapshot_evidence_bundle. */
  readonly bundles: BundleStore;
  /** The active artifact target (a directory or archive), when the target is not a binary. */
  artifact: ArtifactTarget | null;
  /** The provider_id given when the artifact was opened, applied to the members opened from it. */
  artifactProvider: string | null;
  /** The active artifact target, or a clear failure naming `operation` when there is none. */
  requireArtifact(operation: string): ArtifactTarget;
  /** The subject of the open target (a binary, else the artifact), or null when none is open. */
  subject(): BinarySubject | null;
  /** Whether the operator policy lets this connection start processes. */
  processLaunch(): boolean;
  /** Clears the state kept beside the ledger (after the session's Evidence was cleared). */
  clear(): void;
}

/** Builds the shared state of one connection. */
export function createAppsContext(
  services: WorkbenchServices,
  capturePolicy: Readonly<CapturePolicySettings>,
  ceilings: Readonly<TraversalLimits> = DEFAULT_CEILINGS,
): AppsContext {
  const processLaunch = (): boolean =>
    services.policy.allowProcessLaunch && !services.policy.readOnly;
  const session = new BinarySession(services.roots, [
    nativeProvider(),
    objdumpProvider(services.gate, processLaunch),
  ]);
  const unknowns = new UnknownRegistry(services.ledger);
  unknowns.onChange((ids) => {
    for (const id of ids) services.notifyResourceUpdated(unknownUri(id));
  });
  const bundles = new BundleStore();
  const context: AppsContext = {
    services,
    ledger: services.ledger,
    session,
    capturePolicy,
    ceilings,
    unknowns,
    bundles,
    artifact: null,
    artifactProvider: null,
    requireArtifact: (operation) => {
      if (context.artifact) return context.artifact;
      throw new ToolFailure(
        "target_unavailable",
        session.target
          ? `${operation} works on an artifact target (a directory or archive), but the active target is the binary ${session.target.name}.`
          : `${operation} needs an artifact target, and none is open.`,
        {
          action:
            "Call open_binary with the absolute path of a directory, tar, .deb, zip-family or compressed file (a self-extracting executable opens as the zip it carries with provider_id rea-artifact-graph).",
        },
      );
    },
    subject: () => session.target?.subject ?? context.artifact?.subject ?? null,
    processLaunch,
    clear: () => {
      unknowns.clear();
      context.artifact = null;
      context.artifactProvider = null;
      bundles.clear();
    },
  };
  return context;
}
