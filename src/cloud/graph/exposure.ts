/**
 * `internet_exposure`: assets flagged internet-exposed with the evidence —
 * internet-sourced ingress rules reaching them directly or through an
 * attached security group / NSG, the sensitive ports among them, and
 * whether a WAF protects them — plus, on request, what the flow graph
 * reaches from the internet.
 *
 * @module
 */

import type { Edge } from "../model/records.ts";
import type { DatasetView } from "../model/view.ts";
import type { AssetBrief } from "../model/briefs.ts";
import { assetBrief } from "../model/briefs.ts";
import type { PlaceholderBrief } from "./briefs.ts";
import { nodeBrief } from "./briefs.ts";
import { internetReachable } from "./reachability.ts";
import { isInternetEntry } from "./internet.ts";
import { rawAdjacency } from "./nodes.ts";
import { openPorts } from "./ports.ts";
import { SENSITIVE_PORTS } from "./sensitivity.ts";
import { compareCodePoints } from "../model/order.ts";
import { pushTo } from "../../core/multimap.ts";

/** One internet-sourced rule reaching an asset. */
export interface InternetRule {
  edge_type: string;
  /** The port range, else the first ten ports, else `all`. */
  ports: string;
  protocol: string | null;
  /** The security group / NSG it comes through, else the rule's description. */
  via: string | null;
}

/** The exposure evidence of one asset. */
export interface ExposureEvidence {
  /** At most ten rules. */
  internet_rules: InternetRule[];
  sensitive_ports_open: number[];
  protected_by_waf: boolean;
  /**
   * What the route tables say of a resource exposed through a security
   * group: `internet_gateway` (its subnet's table, or the VPC's main table,
   * sends 0.0.0.0/0 or ::/0 to an internet gateway), `not_checked` (the
   * input holds no route table for its subnet: the exposure rests on its
   * public address and open rules alone), null where routing was not
   * looked at (public grants, datasets imported as inventories).
   */
  internet_route: string | null;
}

/** One row of {@link internetExposure}. */
export type ExposureItem = AssetBrief & ExposureEvidence;

const FILTER_TYPES = new Set(["SECURITY_GROUP", "NSG"]);

/** Node id → the internet entry edges into it (see {@link isInternetEntry}), in dataset order; built once per version. */
export function internetRulesByTarget(view: DatasetView): ReadonlyMap<string, readonly Edge[]> {
  return view.derived("graph:internet_rules", () => {
    const out = new Map<string, Edge[]>();
    for (const e of view.records.edges) {
      if (!isInternetEntry(e)) continue;
      pushTo(out, e.target_id, e);
    }
    return out;
  });
}

/** The internet rules reaching an asset (directly or through attached groups) and its WAF cover. */
export function exposureEvidence(view: DatasetView, assetId: string): ExposureEvidence {
  const adjacency = rawAdjacency(view);
  const rulesInto = internetRulesByTarget(view);
  const via: [string, string | null][] = [[assetId, null]];
  let protectedByWaf = false;
  for (const hop of adjacency.get(assetId) ?? []) {
    if (hop.direction === "in" && hop.edge.edge_type === "PROTECTS") protectedByWaf = true;
    const other = view.asset(hop.other);
    if (
      hop.direction === "out" && hop.edge.edge_type === "ATTACHED_TO" && other &&
      FILTER_TYPES.has(other.asset_type)
    ) via.push([hop.other, other.name]);
  }
  // An importer that matched rules to the asset's addresses and service port names the rules
  // each exposure rests on; only those count then (a ::/0 rule does not reach an IPv4 address,
  // a rule for port 22 does not reach a database listening on 3306).
  let kept: Set<string> | null = null;
  for (const e of rulesInto.get(assetId) ?? []) {
    const ids = e.properties["rules"];
    if (e.edge_type !== "INTERNET_EXPOSED" || !Array.isArray(ids)) continue;
    kept ??= new Set();
    for (const id of ids) kept.add(String(id));
  }
  const rules: InternetRule[] = [];
  const ports = new Set<number>();
  for (const [node, through] of via) {
    for (const e of rulesInto.get(node) ?? []) {
      if (through !== null && kept !== null && !kept.has(e.id)) continue;
      rules.push({
        edge_type: e.edge_type,
        ports: e.port_range || e.ports.slice(0, 10).join(",") || "all",
        protocol: e.protocol,
        via: through ?? e.description,
      });
      for (const p of openPorts(e, SENSITIVE_PORTS)) ports.add(p);
    }
  }
  return {
    internet_rules: rules.slice(0, 10),
    sensitive_ports_open: [...ports].sort((a, b) => a - b),
    protected_by_waf: protectedByWaf,
    internet_route: typeof view.asset(assetId)?.metadata.internet_route === "string"
      ? String(view.asset(assetId)!.metadata.internet_route)
      : null,
  };
}

/** Options of {@link internetExposure}. */
export interface InternetExposureOptions {
  /** Only these asset types (empty or absent: all). */
  assetTypes?: readonly string[];
  /** Also list what the flow graph reaches from the internet. @default false */
  includeReachable?: boolean;
  /** How many reachable nodes to list. @default 50 */
  limit?: number;
}

/** The result of {@link internetExposure}. */
export interface InternetExposureResult {
  /** Every exposed asset, sorted (paginate after). */
  items: ExposureItem[];
  graph_reachable?: {
    total: number;
    truncated: boolean;
    items: (AssetBrief | PlaceholderBrief)[];
  };
}

/**
 * Exposed assets with their evidence, most sensitive ports open first, then
 * unprotected before WAF-protected, then most open findings, then name.
 */
export function internetExposure(
  view: DatasetView,
  options: InternetExposureOptions = {},
): InternetExposureResult {
  const types = options.assetTypes && options.assetTypes.length > 0
    ? new Set(options.assetTypes)
    : null;
  const items: ExposureItem[] = [];
  for (const a of view.records.assets) {
    if (!a.is_internet_exposed || (types && !types.has(a.asset_type))) continue;
    items.push({ ...assetBrief(view, a), ...exposureEvidence(view, a.id) });
  }
  items.sort((x, y) =>
    y.sensitive_ports_open.length - x.sensitive_ports_open.length ||
    Number(x.protected_by_waf) - Number(y.protected_by_waf) ||
    y.open_findings - x.open_findings ||
    compareCodePoints(x.name, y.name)
  );
  const out: InternetExposureResult = { items };
  if (options.includeReachable) {
    const limit = options.limit ?? 50;
    const reach = [...internetReachable(view)].filter((n) => view.asset(n) !== undefined).sort((
      a,
      b,
    ) => compareCodePoints(a, b));
    out.graph_reachable = {
      total: reach.length,
      truncated: reach.length > limit,
      items: reach.slice(0, limit).map((n) => nodeBrief(view, n)),
    };
  }
  return out;
}
