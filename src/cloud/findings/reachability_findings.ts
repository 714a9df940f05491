/**
 * Findings derived from graph reachability: a sensitive data store (RDS,
 * Aurora, Azure SQL, Cloud SQL, DynamoDB) that the internet reaches over
 * network-flow and identity edges. Flow hops: internet exposure, ingress
 * rules, routes, peering, load-balancer targets, containment out of
 * networks, attachment from interfaces and addresses, a group admitting the
 * resources attached to it, and the identity edges (runs as, may assume,
 * is granted access to). Ids are UUID v5 of the store and the path, so the
 * same estate gives the same ids.
 *
 * @module
 */

import type { AssetType } from "../model/enums.ts";
import type { Asset, DatasetRecords, Edge, Finding } from "../model/records.ts";
import { pushTo } from "../../core/multimap.ts";

/** The tool name reachability findings carry (as the reference names it). */
export const REACHABILITY_SOURCE_TOOL = "cloudg-reachability";

/** Asset types that hold sensitive data. */
export const SENSITIVE_STORE_TYPES: ReadonlySet<AssetType> = new Set([
  "RDS_INSTANCE",
  "AURORA_CLUSTER",
  "AZURE_SQL",
  "CLOUD_SQL",
  "DYNAMODB_TABLE",
]);

/** Node ids that stand for the internet. */
export const INTERNET_NODES: ReadonlySet<string> = new Set(["0.0.0.0/0", "::/0", "*", "internet"]);

const NETWORK_CONTAINERS = new Set<string>(["VPC", "VNET", "SUBNET"]);
const ATTACH_FROM = new Set<string>(["NETWORK_INTERFACE", "ELASTIC_IP"]);
const GROUPS = new Set<string>(["SECURITY_GROUP", "NSG", "NACL"]);

/** The flow hops of one edge, as [from, to] pairs. */
function hops(edge: Edge, asset: (id: string) => Asset | undefined): [string, string][] {
  const s = edge.source_id;
  const t = edge.target_id;
  switch (edge.edge_type) {
    case "INTERNET_EXPOSED":
    case "ROUTE":
    case "PEERING":
    case "LOAD_BALANCER_TARGET":
    case "ASSUMES_ROLE":
    case "IAM_TRUST":
    case "GRANTS_ACCESS":
      return [[s, t]];
    case "SECURITY_GROUP_RULE":
    case "NACL_RULE":
      return edge.direction === "ingress" ? [[s, t]] : [];
    case "CONTAINS":
      return NETWORK_CONTAINERS.has(asset(s)?.asset_type ?? "") ? [[s, t]] : [];
    case "ATTACHED_TO": {
      const out: [string, string][] = [];
      if (ATTACH_FROM.has(asset(s)?.asset_type ?? "")) out.push([s, t]);
      if (GROUPS.has(asset(t)?.asset_type ?? "")) out.push([t, s]);
      return out;
    }
    default:
      return [];
  }
}

async function uuid5(name: string): Promise<string> {
  // Namespace: a fixed UUID of our own for reachability findings.
  const ns = "6f1c2d3e-4b5a-5c6d-8e7f-0a1b2c3d4e5f".replace(/-/g, "");
  const bytes = new Uint8Array([
    ...ns.match(/../g)!.map((h) => parseInt(h, 16)),
    ...new TextEncoder().encode(name),
  ]);
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-1", bytes)).slice(0, 16);
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = [...hash].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${
    hex.slice(20)
  }`;
}

/**
 * Findings for the sensitive stores the internet reaches (shortest path by
 * hops, breadth first), at most `limit` (default 50), nearest first.
 */
export async function reachabilityFindings(
  records: Readonly<DatasetRecords>,
  options: { limit?: number; detectedAt?: string } = {},
): Promise<Finding[]> {
  const byId = new Map(records.assets.map((a) => [a.id, a]));
  const asset = (id: string): Asset | undefined => byId.get(id);
  const next = new Map<string, string[]>();
  for (const e of records.edges) {
    for (const [from, to] of hops(e, asset)) {
      pushTo(next, from, to);
    }
  }
  const previous = new Map<string, string | null>();
  const queue: string[] = [];
  for (const node of INTERNET_NODES) {
    if (next.has(node)) {
      previous.set(node, null);
      queue.push(node);
    }
  }
  const reached: string[] = [];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!;
    if (SENSITIVE_STORE_TYPES.has(asset(node)?.asset_type as AssetType)) reached.push(node);
    for (const to of next.get(node) ?? []) {
      if (previous.has(to)) continue;
      previous.set(to, node);
      queue.push(to);
    }
  }
  const limit = options.limit ?? 50;
  const out: Finding[] = [];
  for (const store of reached.slice(0, limit)) {
    const path: string[] = [];
    for (let n: string | null = store; n !== null; n = previous.get(n) ?? null) path.unshift(n);
    const a = asset(store)!;
    const names = path.map((id) => asset(id)?.name ?? id);
    out.push({
      id: await uuid5(`${store}|${path.join(">")}`),
      resource_id: a.id,
      resource_arn: a.arn,
      severity: path.length <= 3 ? "CRITICAL" : "HIGH",
      title: "Sensitive data store reachable from the internet",
      description: `${a.name} (${a.asset_type}) can be reached from the internet in ${
        path.length - 1
      } hops.`,
      evidence: names.join(" -> "),
      remediation:
        "Break the path: remove public exposure, tighten the groups on the way, or move the store to private subnets.",
      source_tool: REACHABILITY_SOURCE_TOOL,
      source_finding_id: "internet-to-sensitive-store",
      compliance_frameworks: [],
      cvss_score: null,
      detected_at: options.detectedAt ?? a.collected_at,
      is_suppressed: false,
    });
  }
  return out;
}
