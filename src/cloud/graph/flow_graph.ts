/**
 * The flow graph (spec §5.3 b): the hops network traffic can take, plus the
 * identity edges an attacker can pivot through.
 *
 * Network hops: INTERNET_EXPOSED, LOAD_BALANCER_TARGET, ROUTE and PEERING as
 * they point; security group and NACL rules as they point unless egress;
 * CONTAINS out of a VPC, VNet or subnet; ATTACHED_TO forward out of a
 * network interface or public IP; ATTACHED_TO walked backwards from a
 * security group, NSG or NACL (or any edge declaring PROTECTED_BY_SG /
 * PROTECTED_BY_NACL) to the resource attached to it, marked `reversed`
 * (shown as `SG_ADMITS`). Identity edges (ASSUMES_ROLE, IAM_TRUST,
 * GRANTS_ACCESS) are added as collected where no network hop links the pair,
 * marked `identity`. Pairs out of the internet that are no internet entry
 * (a grant to `*` limited by a policy condition) are left out.
 *
 * @module
 */

import { DirectedGraph } from "graphology";
import type { DatasetView } from "../model/view.ts";
import { isEgress } from "./internet.ts";
import { relationshipGraph } from "./relationship_graph.ts";
import { closedInternetPairs, pairKey } from "./nodes.ts";

/** What an edge of the flow graph carries. */
export interface FlowEdgeAttributes {
  /** The edge type of the underlying edge. */
  edge_type: string;
  /** True for an ATTACHED_TO edge walked from the filter to the resource attached to it. */
  reversed: boolean;
  /** True for an identity edge added as collected. */
  identity: boolean;
  relationship: string;
}

/** The flow graph type (nodes carry no attributes; read them from the relationship graph). */
export type FlowGraph = DirectedGraph<Record<string, never>, FlowEdgeAttributes>;

const FORWARD = new Set(["INTERNET_EXPOSED", "LOAD_BALANCER_TARGET", "ROUTE", "PEERING"]);
const FILTER_RULES = new Set(["SECURITY_GROUP_RULE", "NACL_RULE"]);
const FILTER_TYPES = new Set(["SECURITY_GROUP", "NSG", "NACL"]);
const FILTER_RELATIONSHIPS = new Set(["PROTECTED_BY_SG", "PROTECTED_BY_NACL"]);
const INTERFACE_TYPES = new Set(["NETWORK_INTERFACE", "ELASTIC_IP"]);
const PLACEMENT_TYPES = new Set(["VPC", "VNET", "SUBNET"]);
/** The identity edge types the flow graph and lateral movement follow. */
export const IDENTITY_EDGE_TYPES: ReadonlySet<string> = new Set([
  "ASSUMES_ROLE",
  "IAM_TRUST",
  "GRANTS_ACCESS",
]);

function forwardHop(edgeType: string, direction: string, nodeType: string): boolean {
  if (FORWARD.has(edgeType)) return true;
  if (FILTER_RULES.has(edgeType)) return !isEgress(direction);
  if (edgeType === "ATTACHED_TO") return INTERFACE_TYPES.has(nodeType);
  if (edgeType === "CONTAINS") return PLACEMENT_TYPES.has(nodeType);
  return false;
}

/** The hops of the flow graph in building order: pair key `u\u0000v` → attributes (first hop wins). */
export interface FlowHops {
  /** Hop sources, targets and attributes, index-aligned. */
  from: string[];
  to: string[];
  attributes: FlowEdgeAttributes[];
  /** `from + "\u0000" + to` → attributes. */
  byPair: Map<string, FlowEdgeAttributes>;
}

/** The flow hops of a dataset, computed once per version from the relationship graph. */
export function flowHops(view: DatasetView): FlowHops {
  return view.derived("graph:flow_hops", () => {
    const rel = relationshipGraph(view);
    const hops: FlowHops = { from: [], to: [], attributes: [], byPair: new Map() };
    const closed = closedInternetPairs(view);
    const add = (from: string, to: string, attrs: FlowEdgeAttributes): void => {
      const key = pairKey(from, to);
      if (from === to || hops.byPair.has(key) || closed.has(key)) return;
      hops.byPair.set(key, attrs);
      hops.from.push(from);
      hops.to.push(to);
      hops.attributes.push(attrs);
    };
    rel.forEachNode((node, nodeAttrs) => {
      const nodeType = nodeAttrs.asset_type;
      rel.forEachOutEdge(node, (_key, e, _s, target) => {
        if (forwardHop(e.edge_type, e.direction, nodeType)) {
          add(node, target, {
            edge_type: e.edge_type,
            reversed: false,
            identity: false,
            relationship: e.relationship,
          });
        }
      });
      const isFilter = FILTER_TYPES.has(nodeType);
      rel.forEachInEdge(node, (_key, e, source) => {
        if (
          e.edge_type === "ATTACHED_TO" && (isFilter || FILTER_RELATIONSHIPS.has(e.relationship))
        ) {
          add(node, source, {
            edge_type: e.edge_type,
            reversed: true,
            identity: false,
            relationship: e.relationship,
          });
        }
      });
    });
    for (const edge of view.records.edges) {
      if (IDENTITY_EDGE_TYPES.has(edge.edge_type)) {
        add(edge.source_id, edge.target_id, {
          edge_type: edge.edge_type,
          reversed: false,
          identity: true,
          relationship: edge.relationship ?? "",
        });
      }
    }
    return hops;
  });
}

/**
 * The flow graph of a dataset as a graphology graph (every relationship
 * node, the flow hops as edges), built once per version on first use. The
 * path searches read the same hops through the compact flow graph.
 */
export function flowGraph(view: DatasetView): FlowGraph {
  return view.derived("graph:flow", () => {
    const flow: FlowGraph = new DirectedGraph({ allowSelfLoops: true });
    relationshipGraph(view).forEachNode((node) => {
      flow.addNode(node);
    });
    const hops = flowHops(view);
    for (let i = 0; i < hops.from.length; i++) {
      flow.addDirectedEdge(hops.from[i]!, hops.to[i]!, hops.attributes[i]!);
    }
    return flow;
  });
}

/** The attributes of flow hop u→v, if there is one. */
export function flowHop(
  view: DatasetView,
  from: string,
  to: string,
): FlowEdgeAttributes | undefined {
  return flowHops(view).byPair.get(pairKey(from, to));
}

/** How a flow hop is named in path results: `SG_ADMITS` for reversed hops, else its edge type. */
export function flowHopType(attrs: FlowEdgeAttributes): string {
  return attrs.reversed ? "SG_ADMITS" : attrs.edge_type;
}
