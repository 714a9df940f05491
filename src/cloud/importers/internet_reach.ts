/**
 * Whether the internet can reach a resource's address, as AWS VPC routing
 * decides it: a public IPv4 address answers only when the route table of
 * the resource's subnet (or the VPC's main route table when the subnet has
 * no association) sends `0.0.0.0/0` to an internet gateway, an IPv6
 * address only when it sends `::/0` there. And which port a managed
 * service listens on, so a rule that opens another port does not expose it.
 *
 * @module
 */

import type { Asset, Edge, Json } from "../model/records.ts";
import type { RecordsBuilder } from "./records_builder.ts";
import { pushTo } from "../../core/multimap.ts";
import { rangeCovers } from "./records_builder.ts";

/** How many routes of one route table its metadata keeps. */
export const MAX_ROUTES = 100;

/** What the route tables say of a resource's way out to an internet gateway. */
export type InternetRoute = "internet_gateway" | "none" | "not_checked";

/** The internet route of a resource per address family. */
export interface RouteStatus {
  /** `not_checked` when the input holds no route table for one of its subnets. */
  route: InternetRoute;
  /** A default IPv4 route (`0.0.0.0/0`) to an internet gateway (true when not checked). */
  v4: boolean;
  /** A default IPv6 route (`::/0`) to an internet gateway (true when not checked). */
  v6: boolean;
}

/**
 * A function giving each resource's {@link RouteStatus} from the subnets
 * that contain it (CONTAINS edges), their route table associations (ROUTE
 * edges subnet → route table), the VPC's main route table
 * (`main_route_table_id` of the VPC, or a table marked `main_for_vpc`) and
 * the tables' `routes` metadata (a table known only in part, `routes_partial`, decides
 * only when it holds a route to an internet gateway). A resource in no known subnet, or in a
 * subnet whose table (or whose VPC's main table) is not in the input, is
 * `not_checked`. With several subnets (an RDS subnet group) one route to an
 * internet gateway is enough.
 */
export function internetRoutes(b: RecordsBuilder): (assetId: string) => RouteStatus {
  const byCloudId = new Map<string, Asset>();
  for (const a of b.assets()) {
    const id = a.metadata.resource_id;
    if (typeof id === "string" && !byCloudId.has(id)) byCloudId.set(id, a);
  }
  const find = (ref: string): Asset | undefined => b.asset(ref) ?? byCloudId.get(ref);
  const into = new Map<string, Edge[]>();
  const out = new Map<string, Edge[]>();
  for (const e of b.records.edges) {
    pushTo(into, e.target_id, e);
    pushTo(out, e.source_id, e);
  }
  const mainFor = new Map<string, Asset>();
  for (const a of b.assets()) {
    if (a.asset_type === "ROUTE_TABLE" && typeof a.metadata.main_for_vpc === "string") {
      mainFor.set(a.metadata.main_for_vpc, a);
    }
  }
  const subnetsOf = (id: string): Asset[] =>
    (into.get(id) ?? []).filter((e) => e.edge_type === "CONTAINS")
      .map((e) => find(e.source_id)).filter((a): a is Asset => a?.asset_type === "SUBNET");
  const tableOf = (subnet: Asset): Asset | undefined => {
    const associated = (out.get(subnet.id) ?? []).filter((e) => e.edge_type === "ROUTE")
      .map((e) => find(e.target_id)).find((a) => a?.asset_type === "ROUTE_TABLE");
    if (associated) return associated;
    const vpcs = (into.get(subnet.id) ?? []).filter((e) => e.edge_type === "CONTAINS")
      .map((e) => find(e.source_id)).filter((a): a is Asset => a?.asset_type === "VPC");
    for (const vpc of vpcs) {
      const main = typeof vpc.metadata.main_route_table_id === "string"
        ? find(vpc.metadata.main_route_table_id)
        : undefined;
      const marked = typeof vpc.metadata.resource_id === "string"
        ? mainFor.get(vpc.metadata.resource_id)
        : undefined;
      if (main?.asset_type === "ROUTE_TABLE") return main;
      if (marked) return marked;
    }
    return undefined;
  };
  const toGateway = (route: Json): { v4: boolean; v6: boolean } => {
    const r = route !== null && typeof route === "object" && !Array.isArray(route) ? route : {};
    const target = typeof r.target === "string" ? r.target : "";
    const gateway = target.startsWith("igw-") || find(target)?.asset_type === "INTERNET_GATEWAY";
    return {
      v4: gateway && r.destination === "0.0.0.0/0",
      v6: gateway && r.destination === "::/0",
    };
  };
  return (assetId) => {
    const subnets = subnetsOf(assetId);
    if (subnets.length === 0) return { route: "not_checked", v4: true, v6: true };
    let v4 = false;
    let v6 = false;
    for (const subnet of subnets) {
      const table = tableOf(subnet);
      if (!table || !Array.isArray(table.metadata.routes)) {
        return { route: "not_checked", v4: true, v6: true };
      }
      for (const route of table.metadata.routes) {
        const g = toGateway(route);
        v4 ||= g.v4;
        v6 ||= g.v6;
      }
    }
    if (!v4 && !v6 && subnets.some((s) => tableOf(s)?.metadata.routes_partial === true)) {
      return { route: "not_checked", v4: true, v6: true };
    }
    return { route: v4 || v6 ? "internet_gateway" : "none", v4, v6 };
  };
}

/** Default ports of database engines (RDS, Aurora, Redshift, ElastiCache). */
const ENGINE_PORTS: readonly [RegExp, number][] = [
  [/postgres/, 5432],
  [/mysql|mariadb/, 3306],
  [/oracle/, 1521],
  [/sqlserver/, 1433],
  [/redis|valkey/, 6379],
  [/memcached/, 11211],
  [/docdb|mongo/, 27017],
  [/neptune/, 8182],
];

/** Ports of managed services that listen on one known port when the input does not say. */
const TYPE_PORTS: Readonly<Record<string, number>> = {
  DATA_WAREHOUSE: 5439,
  SEARCH_DOMAIN: 443,
};

/** Asset types whose service listens on one port: the port in the input, else the engine's. */
const SERVICE_TYPES: ReadonlySet<string> = new Set([
  "RDS_INSTANCE",
  "AURORA_CLUSTER",
  "DATA_WAREHOUSE",
  "CACHE_CLUSTER",
  "SEARCH_DOMAIN",
]);

/**
 * The port a managed database, warehouse, cache or search domain listens
 * on: `metadata.port` when the input gives it, else its engine's default
 * (postgres 5432, mysql 3306, …; Redshift 5439); null for other resources
 * (an instance or a load balancer may listen on any port) or an unknown
 * engine.
 */
export function servicePort(asset: Asset): number | null {
  if (!SERVICE_TYPES.has(asset.asset_type)) return null;
  const port = asset.metadata.port;
  if (typeof port === "number" && Number.isInteger(port) && port > 0) return port;
  const engine = String(asset.metadata.engine ?? "").toLowerCase();
  for (const [pattern, p] of ENGINE_PORTS) if (pattern.test(engine)) return p;
  return TYPE_PORTS[asset.asset_type] ?? null;
}

/** Whether a rule edge admits TCP traffic to a port (an `ALL` rule admits every port). */
export function ruleAdmitsPort(edge: Edge, port: number): boolean {
  const protocol = (edge.protocol ?? "ALL").toUpperCase();
  if (protocol === "ALL") return true;
  return protocol === "TCP" && rangeCovers(edge.port_range, port);
}

/** The address family a rule's source stands for: 4, 6, or null for a tag such as `Internet`. */
export function ruleFamily(edge: Edge): 4 | 6 | null {
  const source = edge.cidr ?? edge.source_id;
  if (source.includes(":")) return 6;
  if (/^\d+\.\d+\.\d+\.\d+(\/\d+)?$/.test(source.trim())) return 4;
  return null;
}
