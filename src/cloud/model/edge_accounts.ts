/**
 * Which accounts an edge joins: the one rule behind every cross-account
 * answer (dataset_summary's count, cross_account_edges, get_edges'
 * cross_account_only and edge briefs, and the external footholds of
 * lateral_movement_paths). An end is an asset, with its account; or a
 * principal the dataset does not hold (an external role, an account root,
 * a bare account id), with the account its ARN or id names.
 *
 * @module
 */

import type { Asset, DatasetRecords, Edge } from "./records.ts";
import type { DatasetView } from "./view.ts";

/** Asset types of organisation structure: containment among them is no cross-account edge. */
const HIERARCHY_TYPES: ReadonlySet<string> = new Set(["ORGANIZATION", "ORG_UNIT", "CLOUD_ACCOUNT"]);

/**
 * The account an edge end belongs to: the asset's, else the one a bare
 * 12-digit id or an ARN's account field names, else null.
 *
 * @example
 * ```ts
 * import { endpointAccount } from "./edge_accounts.ts";
 * endpointAccount("arn:aws:iam::999999999999:root", undefined); // "999999999999"
 * ```
 */
export function endpointAccount(id: string, asset: Asset | undefined): string | null {
  if (asset) return asset.account_id;
  if (/^\d{12}$/.test(id)) return id;
  const arn = /^arn:[^:]*:[^:]*:[^:]*:(\d{12}):/.exec(id);
  return arn ? arn[1]! : null;
}

/** The accounts of an edge that crosses accounts. */
export interface EdgeAccounts {
  source_account: string;
  target_account: string;
  /**
   * Either end is an asset marked `external`, or a principal the dataset
   * does not hold whose account no asset of the dataset belongs to. Coarse:
   * an account of one's own organisation that the dataset leaves out reads
   * as external too.
   */
  external: boolean;
}

/** The accounts the assets of a dataset belong to. */
export function datasetAccounts(records: Pick<DatasetRecords, "assets">): Set<string> {
  const out = new Set<string>();
  for (const a of records.assets) if (a.account_id) out.add(a.account_id);
  return out;
}

/**
 * The two accounts an edge joins when they are known and differ, else null.
 * Organisation structure (edges marked `hierarchy`, containment between
 * organisations, units and accounts) is left out.
 *
 * @example
 * ```ts
 * import { crossAccountEnds } from "./edge_accounts.ts";
 * const edge = {
 *   id: "e", source_id: "arn:aws:iam::999999999999:root", target_id: "r",
 *   edge_type: "IAM_TRUST", relationship: null, properties: {},
 * } as never;
 * crossAccountEnds(edge, () => undefined, new Set()); // null: the role is no asset
 * ```
 */
export function crossAccountEnds(
  edge: Edge,
  assetOf: (id: string) => Asset | undefined,
  accounts: ReadonlySet<string>,
): EdgeAccounts | null {
  if (edge.properties["hierarchy"] === true) return null;
  const s = assetOf(edge.source_id);
  const t = assetOf(edge.target_id);
  if (
    edge.edge_type === "CONTAINS" && s && t && HIERARCHY_TYPES.has(s.asset_type) &&
    HIERARCHY_TYPES.has(t.asset_type)
  ) return null;
  if (!s && !t) return null;
  const source = endpointAccount(edge.source_id, s);
  const target = endpointAccount(edge.target_id, t);
  if (!source || !target || source === target) return null;
  const outside = (asset: Asset | undefined, account: string): boolean =>
    asset ? asset.metadata["external"] === true : !accounts.has(account);
  return {
    source_account: source,
    target_account: target,
    external: outside(s, source) || outside(t, target),
  };
}

/** {@link crossAccountEnds} over a loaded dataset (its accounts computed once per version). */
export function viewCrossAccountEnds(view: DatasetView, edge: Edge): EdgeAccounts | null {
  const accounts = view.derived("model:accounts", () => datasetAccounts(view.records));
  return crossAccountEnds(edge, (id) => view.asset(id), accounts);
}
