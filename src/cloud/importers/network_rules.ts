/**
 * Firewall rules of the three providers turned into `SECURITY_GROUP_RULE`
 * edges: AWS security group blocks and rule resources, Azure NSG rules and
 * Google firewall rules. Ingress from the internet (`0.0.0.0/0`, `::/0`, `*`,
 * `Internet`) starts at an internet placeholder node and marks the group as
 * admitting internet traffic (`metadata.internet_ingress`).
 *
 * @module
 */

import type { Json } from "../model/records.ts";
import { arr, obj, str, strings } from "./import_input.ts";
import type { EdgeInit, RecordsBuilder } from "./records_builder.ts";
import {
  internetPlaceholder,
  isInternetSource,
  portRange,
  portsOf,
  protocolName,
} from "./records_builder.ts";
import { type CidrRange, cidrRange, coversFamily } from "./cidr.ts";
import { pushTo } from "../../core/multimap.ts";

/** One normalised firewall rule. */
export interface FirewallRule {
  /** The group (SG, NSG, firewall) the rule belongs to: an asset id. */
  groupId: string;
  direction: "ingress" | "egress";
  /** Peer CIDRs or wildcards. */
  cidrs: string[];
  /** Peer groups, as asset ids. */
  peerGroups: string[];
  protocol: string;
  /** `*`, `22`, `80-443`, `80,443`. */
  portRange: string;
  ports: number[];
  description: string | null;
  /** Extra properties of the rule's CIDR edges. */
  properties?: Record<string, Json>;
}

function num(value: unknown): number | null {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) {
    return Number(value);
  }
  return null;
}

/** The group a rule belongs to, its direction, and how peer group ids resolve to asset ids. */
export interface RuleOwner {
  groupId: string;
  direction: "ingress" | "egress";
  groupOf: (cloudId: string) => string | undefined;
}

/** The edge between a rule's group and one peer (a CIDR or a group), the way traffic flows. */
function ruleEdge(rule: FirewallRule, peer: string): EdgeInit {
  return {
    source_id: rule.direction === "ingress" ? peer : rule.groupId,
    target_id: rule.direction === "ingress" ? rule.groupId : peer,
    edge_type: "SECURITY_GROUP_RULE",
    ports: rule.ports,
    port_range: rule.portRange,
    protocol: rule.protocol,
    direction: rule.direction,
    description: rule.description,
  };
}

/** Adds the edges of one rule; returns whether it admits internet ingress. */
export function addFirewallRule(builder: RecordsBuilder, rule: FirewallRule): boolean {
  let internet = false;
  for (const cidr of rule.cidrs) {
    const open = isInternetSource(cidr);
    if (open && rule.direction === "ingress") internet = true;
    builder.addEdge({
      ...ruleEdge(rule, open ? internetPlaceholder(cidr) : cidr),
      cidr,
      properties: { ...(open ? { internet: true } : {}), ...rule.properties },
    });
  }
  for (const peer of rule.peerGroups) builder.addEdge(ruleEdge(rule, peer));
  if (internet) {
    const group = builder.asset(rule.groupId);
    if (group) {
      group.is_internet_exposed = true;
      const list = Array.isArray(group.metadata.internet_ingress)
        ? group.metadata.internet_ingress
        : [];
      list.push({ protocol: rule.protocol, port_range: rule.portRange } as Json);
      group.metadata.internet_ingress = list;
    }
  }
  return internet;
}

/**
 * An AWS rule in Terraform form (an `ingress`/`egress` block of a security
 * group, or an `aws_security_group_rule`), resolved through `groupOf` for
 * peer security group ids.
 */
export function awsTerraformRule(
  block: Record<string, unknown>,
  options: RuleOwner,
): FirewallRule {
  const { groupId, direction, groupOf } = options;
  const protocol = protocolName(block.protocol ?? block.ip_protocol);
  const from = num(block.from_port);
  const to = num(block.to_port);
  const all = protocol === "ALL";
  const cidrs = [
    ...strings(block.cidr_blocks),
    ...strings(block.ipv6_cidr_blocks),
    ...strings(block.cidr_ipv4),
    ...strings(block.cidr_ipv6),
  ];
  const peers: string[] = [];
  for (
    const sg of [
      ...strings(block.security_groups),
      ...strings(block.source_security_group_id),
      ...strings(block.referenced_security_group_id),
    ]
  ) {
    peers.push(groupOf(sg) ?? sg);
  }
  if (block.self === true) peers.push(groupId);
  return {
    groupId,
    direction,
    cidrs,
    peerGroups: peers.filter((p) => p !== groupId || direction === "ingress"),
    protocol,
    portRange: all ? "*" : portRange(from, to),
    ports: all ? [] : portsOf(from, to),
    description: str(block.description),
  };
}

/** An AWS rule in API form (`IpPermissions` item of describe-security-groups). */
export function awsApiRule(
  permission: Record<string, unknown>,
  options: RuleOwner,
): FirewallRule {
  const { groupId, direction, groupOf } = options;
  const protocol = protocolName(permission.IpProtocol);
  const from = num(permission.FromPort);
  const to = num(permission.ToPort);
  const all = protocol === "ALL";
  const cidrs = [
    ...arr(permission.IpRanges).map((r) => str(obj(r).CidrIp)),
    ...arr(permission.Ipv6Ranges).map((r) => str(obj(r).CidrIpv6)),
  ].filter((c): c is string => c !== null);
  const peers = arr(permission.UserIdGroupPairs)
    .map((p) => str(obj(p).GroupId))
    .filter((g): g is string => g !== null)
    .map((g) => groupOf(g) ?? g);
  return {
    groupId,
    direction,
    cidrs,
    peerGroups: peers,
    protocol,
    portRange: all ? "*" : portRange(from, to),
    ports: all ? [] : portsOf(from, to),
    description: null,
  };
}

/** Azure port ranges (`*`, `22`, `1000-2000`, lists) joined as one range string. */
function azurePorts(rule: Record<string, unknown>): { range: string; ports: number[] } {
  const list = [...strings(rule.destination_port_range), ...strings(rule.destination_port_ranges)];
  if (list.length === 0 || list.includes("*")) return { range: "*", ports: [] };
  const ports: number[] = [];
  for (const item of list) {
    const [a, b] = item.split("-");
    ports.push(...portsOf(num(a), num(b ?? a)));
  }
  return { range: list.join(","), ports };
}

/** An Azure NSG rule (inline `security_rule` item or `azurerm_network_security_rule`). */
export function azureRule(groupId: string, rule: Record<string, unknown>): FirewallRule | null {
  if (String(rule.access ?? "").toLowerCase() !== "allow") return null;
  const direction = String(rule.direction ?? "").toLowerCase() === "outbound"
    ? "egress"
    : "ingress";
  const { range, ports } = azurePorts(rule);
  const peers = direction === "ingress"
    ? [...strings(rule.source_address_prefix), ...strings(rule.source_address_prefixes)]
    : [...strings(rule.destination_address_prefix), ...strings(rule.destination_address_prefixes)];
  return {
    groupId,
    direction,
    cidrs: peers,
    peerGroups: [],
    protocol: protocolName(rule.protocol),
    portRange: range,
    ports,
    description: str(rule.name) ?? str(rule.description),
  };
}

/** The rules of a Google firewall (`allow` blocks; `deny` and disabled firewalls give none). */
export function googleRules(groupId: string, firewall: Record<string, unknown>): FirewallRule[] {
  if (firewall.disabled === true) return [];
  const direction = String(firewall.direction ?? "INGRESS").toUpperCase() === "EGRESS"
    ? "egress"
    : "ingress";
  const cidrs = direction === "ingress"
    ? strings(firewall.source_ranges)
    : strings(firewall.destination_ranges);
  const out: FirewallRule[] = [];
  for (const allow of arr(firewall.allow)) {
    const a = obj(allow);
    const portList = strings(a.ports);
    const ports: number[] = [];
    for (const item of portList) {
      const [x, y] = item.split("-");
      ports.push(...portsOf(num(x), num(y ?? x)));
    }
    out.push({
      groupId,
      direction,
      cidrs,
      peerGroups: [],
      protocol: protocolName(a.protocol),
      portRange: portList.length === 0 ? "*" : portList.join(","),
      ports,
      description: str(firewall.description),
    });
  }
  return out;
}

/** The inclusive port bounds of a rule edge's range (`*` or missing: every port), or null. */
function portBounds(range: string | null): [number, number][] | null {
  if (range === null || range === "" || range === "*") return [[0, 65535]];
  const out: [number, number][] = [];
  for (const part of range.split(",")) {
    const [a, b] = part.trim().split("-");
    const lo = Number(a);
    const hi = b === undefined ? lo : Number(b);
    if (!Number.isInteger(lo) || !Number.isInteger(hi) || lo > hi) return null;
    out.push([lo, hi]);
  }
  return out;
}

interface RangeRule {
  protocol: string;
  lo: number;
  hi: number;
  range: CidrRange;
  cidr: string;
}

/**
 * Security-group ingress from CIDRs that are each narrower than the
 * internet but together cover every address of a family for the same
 * protocol and ports (`0.0.0.0/1` and `128.0.0.0/1` on 3306) admits the
 * whole internet, as AWS evaluates rules as a union. For each such protocol
 * and port span this adds the internet rule it amounts to (from
 * `0.0.0.0/0` or `::/0`, `covered_by` naming the CIDRs), so exposure reads
 * it like any other internet rule. An `ALL` rule counts for every protocol.
 * Returns how many rules it added.
 */
export function addCoveringRules(b: RecordsBuilder): number {
  const byGroup = new Map<string, RangeRule[]>();
  for (const e of b.records.edges) {
    if (
      e.edge_type !== "SECURITY_GROUP_RULE" || e.direction !== "ingress" ||
      e.properties.internet === true || e.cidr === null
    ) continue;
    const range = cidrRange(e.cidr);
    const bounds = portBounds(e.port_range);
    if (range === null || bounds === null) continue;
    const protocol = (e.protocol ?? "ALL").toUpperCase();
    for (const [lo, hi] of protocol === "ALL" ? [[0, 65535] as const] : bounds) {
      pushTo(byGroup, e.target_id, { protocol, lo, hi, range, cidr: e.cidr });
    }
  }
  let added = 0;
  for (const [groupId, rules] of byGroup) {
    for (const family of [4, 6] as const) {
      const own = rules.filter((r) => r.range.family === family);
      if (!coversFamily(own.map((r) => r.range), family)) continue;
      const protocols = [...new Set(own.map((r) => r.protocol))].sort((x, y) =>
        Number(y === "ALL") - Number(x === "ALL")
      );
      const coveredAll: [number, number][] = [];
      for (const protocol of protocols) {
        const applicable = own.filter((r) => r.protocol === protocol || r.protocol === "ALL");
        const cuts = [...new Set(applicable.flatMap((r) => [r.lo, r.hi + 1]))].sort((x, y) =>
          x - y
        );
        const spans: { lo: number; hi: number; cidrs: Set<string> }[] = [];
        for (let i = 0; i + 1 < cuts.length; i++) {
          const lo = cuts[i]!;
          const hi = cuts[i + 1]! - 1;
          if (protocol !== "ALL" && coveredAll.some(([a, z]) => a <= lo && hi <= z)) continue;
          const over = applicable.filter((r) => r.lo <= lo && hi <= r.hi);
          if (!coversFamily(over.map((r) => r.range), family)) continue;
          const prev = spans[spans.length - 1];
          if (prev && prev.hi + 1 === lo) {
            prev.hi = hi;
            for (const r of over) prev.cidrs.add(r.cidr);
          } else spans.push({ lo, hi, cidrs: new Set(over.map((r) => r.cidr)) });
        }
        for (const span of spans) {
          if (protocol === "ALL") coveredAll.push([span.lo, span.hi]);
          const cidrs = [...span.cidrs].sort();
          const all = protocol === "ALL" || (span.lo === 0 && span.hi === 65535);
          addFirewallRule(b, {
            groupId,
            direction: "ingress",
            cidrs: [family === 4 ? "0.0.0.0/0" : "::/0"],
            peerGroups: [],
            protocol,
            portRange: all ? "*" : portRange(span.lo, span.hi),
            ports: all ? [] : portsOf(span.lo, span.hi),
            description: `${cidrs.slice(0, 5).join(" + ")}${
              cidrs.length > 5 ? ` + ${cidrs.length - 5} more` : ""
            } together cover every IPv${family} address`,
            properties: { covered_by: cidrs.slice(0, 20) },
          });
          added++;
        }
      }
    }
  }
  return added;
}
