/**
 * Port ranges read from the `port_range` strings and `ports` lists of rule
 * edges, matched as numbers (a text search would find 22 in `2200-2300`
 * and miss it in `0-65535`).
 *
 * @module
 */

/** An inclusive range of ports. */
export type PortRange = readonly [number, number];

const MAX_PORT = 65535;
const ALL_PORTS: readonly PortRange[] = [[0, MAX_PORT]];
const ALL_PROTOCOLS = new Set(["ALL", "-1", "*", "ANY"]);
const PORTED_PROTOCOLS = new Set(["TCP", "UDP", "SCTP", "6", "17", "132"]);
const PORTLESS_PROTOCOLS = new Set([
  "ICMP",
  "ICMPV6",
  "ESP",
  "AH",
  "GRE",
  "IPIP",
  "1",
  "58",
  "50",
  "51",
  "47",
  "4",
]);
const FILTER_RULE_EDGES = new Set(["SECURITY_GROUP_RULE", "NACL_RULE"]);
const RANGE = /^(\d+)(?:-(\d+))?$/;

/** Whether a protocol (upper-case) carries no ports: ICMP, ESP, GRE and the like, by name or number. */
export function isPortlessProtocol(protocol: string): boolean {
  return PORTLESS_PROTOCOLS.has(protocol);
}

/** Whether a protocol (upper-case) carries ports: TCP, UDP, SCTP, or every protocol (`ALL`, `-1`, `*`, `ANY`). */
export function isPortedProtocol(protocol: string): boolean {
  return PORTED_PROTOCOLS.has(protocol) || ALL_PROTOCOLS.has(protocol);
}

/** Whether an edge type is a filter rule (security group or NACL rule). */
export function isFilterRuleEdge(edgeType: string): boolean {
  return FILTER_RULE_EDGES.has(edgeType);
}

function parseToken(token: string): PortRange | null {
  if (token === "*" || token === "any" || token === "all") return [0, MAX_PORT];
  const match = RANGE.exec(token);
  if (!match) return null;
  const low = Number(match[1]);
  const high = match[2] === undefined ? low : Number(match[2]);
  if (low > high || high > MAX_PORT) return null;
  return [low, high];
}

/**
 * The inclusive ranges a `port_range` string opens for a protocol. Tokens
 * that are not ports are skipped; with nothing valid left, an
 * every-protocol rule (`ALL`, `-1`, `*`, `Any`) and an empty TCP/UDP/SCTP
 * rule open every port; port-less protocols (ICMP, ESP, GRE, …) open none.
 */
export function parsePortRanges(
  portRange: string | null | undefined,
  protocol: string | null | undefined,
): PortRange[] {
  const proto = (protocol ?? "").trim().toUpperCase();
  if (PORTLESS_PROTOCOLS.has(proto)) return [];
  const tokens = (portRange ?? "").split(",").map((t) => t.trim().toLowerCase());
  const ranges: PortRange[] = [];
  for (const token of tokens) {
    if (!token) continue;
    const range = parseToken(token);
    if (range) ranges.push(range);
  }
  if (ranges.length > 0) return ranges;
  if (ALL_PROTOCOLS.has(proto)) return [...ALL_PORTS];
  if (PORTED_PROTOCOLS.has(proto) && tokens.every((t) => t === "")) return [...ALL_PORTS];
  return [];
}

/** The fields of an edge that say which ports it opens. */
export interface PortedEdge {
  edge_type: string;
  port_range: string | null;
  protocol: string | null;
  ports?: readonly number[];
}

/**
 * The ports an edge opens. Only security group and NACL rules open every
 * port when their `port_range` is empty; on other edges an empty range
 * means the source had no port data.
 */
export function edgePortRanges(edge: PortedEdge): PortRange[] {
  const portRange = edge.port_range ?? "";
  if (!portRange.trim() && !FILTER_RULE_EDGES.has(edge.edge_type)) return [];
  return parsePortRanges(portRange, edge.protocol);
}

/** Whether `port` lies inside one of the ranges. */
export function portInRanges(port: number, ranges: readonly PortRange[]): boolean {
  return ranges.some(([low, high]) => low <= port && port <= high);
}

/** Whether an edge opens `port`, through its `ports` list or its port range. */
export function edgeAllowsPort(edge: PortedEdge, port: number): boolean {
  if (edge.ports?.includes(port)) return true;
  return portInRanges(port, edgePortRanges(edge));
}

/** The ports among `wanted` that an edge opens, ascending. */
export function openPorts(edge: PortedEdge, wanted: Iterable<number>): number[] {
  const ranges = edgePortRanges(edge);
  const out: number[] = [];
  for (const port of wanted) {
    if (edge.ports?.includes(port) || portInRanges(port, ranges)) out.push(port);
  }
  return out.sort((a, b) => a - b);
}
