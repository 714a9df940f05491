/**
 * The read-only view of one loaded dataset that queries (graph, findings,
 * compliance, ontology, exports) work from. The workspace implements it;
 * query code depends on this interface only.
 *
 * @module
 */

import type { Asset, DatasetRecords, Finding } from "./records.ts";

/** One loaded dataset, as queries see it. */
export interface DatasetView {
  /** The dataset's name in the workspace. */
  readonly name: string;
  /** Bumped on every mutation; derived views built for an older version are stale. */
  readonly version: number;
  /** Random per load: distinguishes two loads of the same name. */
  readonly instanceId: string;
  /** The records. Treat as read-only. */
  readonly records: Readonly<DatasetRecords>;
  /** An asset by internal id. */
  asset(id: string): Asset | undefined;
  /** The asset a finding maps to (reference tiers over resource_id and resource_arn), if any. */
  findingAsset(finding: Finding): Asset | undefined;
  /** Findings mapped to an asset, suppressed ones included. */
  findingsFor(assetId: string): readonly Finding[];
  /**
   * A derived view cached for this version: built once by `build`, dropped
   * when the dataset changes.
   */
  derived<T>(key: string, build: () => T): T;
}
