/**
 * How the internet appears in a cloud graph: the spellings a caller may use
 * for it, the rule sources that stand for it, the one rule deciding which
 * edges are internet entries, and the virtual node that path searches start
 * from.
 *
 * @module
 */

import type { Edge } from "../model/records.ts";

/** The virtual node linked to every internet entry point when a search starts at "the internet". */
export const INTERNET_NODE = "__internet__";

/** The CIDRs that stand for the whole internet. */
export const INTERNET_CIDRS: readonly string[] = ["0.0.0.0/0", "::/0"];

const INTERNET_REFS = new Set(["internet", "public", "0.0.0.0/0", "::/0"]);
const INTERNET_SOURCES = new Set(["0.0.0.0/0", "::/0", "*", "internet", "any"]);

/**
 * Whether a caller's reference means the internet: `internet`, `public`,
 * `0.0.0.0/0` or `::/0`, ignoring case and surrounding blanks.
 */
export function isInternetRef(ref: string): boolean {
  return INTERNET_REFS.has(ref.trim().toLowerCase());
}

/**
 * Whether a rule source or CIDR stands for the whole internet: the two
 * internet CIDRs and the Azure service tags `Internet`, `Any` and `*`,
 * ignoring case and surrounding blanks.
 */
export function isInternetSource(value: string | null | undefined): boolean {
  return INTERNET_SOURCES.has((value ?? "").trim().toLowerCase());
}

/** Whether an edge direction reads as egress (case-insensitive). */
export function isEgress(direction: string | null | undefined): boolean {
  return (direction ?? "").toLowerCase() === "egress";
}

/**
 * The rule of {@link isInternetEntry} in the words tool descriptions use,
 * so every tool that counts internet entries states the same rule.
 */
export const INTERNET_ENTRY_RULE =
  "An internet entry is an edge, not egress, from an internet CIDR or source (0.0.0.0/0, ::/0, " +
  "Internet, Any; a route's CIDR is its destination and does not count) or a grant or role trust to any principal `*`, unless a policy condition " +
  "limits who may call (conditional: true in edge briefs: fixed values of aws:SourceAccount, " +
  "aws:SourceOwner, aws:SourceArn, aws:SourceVpc, aws:SourceVpce, aws:PrincipalOrgID, " +
  "aws:PrincipalAccount and the like, or aws:SourceIp ranges of /8 or narrower; " +
  "aws:SecureTransport alone does not) " +
  "or an S3 public access block restricts it, or the resource answers only inside its VPC (a VPC-only search domain).";

/**
 * How flow-mode path searches step through security groups (see
 * compactFlowGraph), in the words tool descriptions use.
 */
export const GROUP_STEP_RULE =
  "Group steps in flow mode: a security group, NSG or NACL the internet enters (or that is flagged exposed) passes " +
  "traffic from the internet only to members flagged internet-exposed (a public address, and a default route " +
  "to an internet gateway where the input holds route tables), and on to groups that admit it only when such a " +
  "member exists; any other group passes on to the groups admitting it only when it has members. Still coarse: " +
  "ports are not matched along a path, and a group-to-group hop stands for the group's members without naming them.";

/** The edge types through which a policy admits a principal (resource policies, role trust). */
const PRINCIPAL_GRANT_TYPES: ReadonlySet<string> = new Set(["GRANTS_ACCESS", "IAM_TRUST"]);

/**
 * Whether something other than the principal limits the grant or trust an
 * edge stands for: a policy condition (`conditional`), or the bucket's S3
 * public access block (`public_access_blocked`), or a resource reachable
 * only inside its VPC (`network_restricted`: a VPC-only search domain).
 */
export function isRestricted(edge: Edge): boolean {
  return edge.properties["conditional"] === true ||
    edge.properties["public_access_blocked"] === true ||
    edge.properties["network_restricted"] === true;
}

/**
 * The one rule for "this edge lets the internet in", shared by every tool
 * (get_edges' internet source and internet_only, the internet entry points
 * of find_paths and attack_paths, internet_exposure's rules and the exposure
 * of public grants): an edge that is not egress, whose source or CIDR stands
 * for the internet (see {@link isInternetSource}: this covers a grant or
 * trust to the principal `*`), and that nothing limits (see
 * {@link isRestricted}). A grant
 * to `*` under a Condition that limits who may call (fixed values of
 * aws:SourceAccount, aws:SourceOwner, aws:PrincipalOrgID, aws:SourceVpce,
 * narrow aws:SourceIp ranges, …; importers set `conditional` so) only
 * admits the callers the condition names, and one into a bucket whose public access
 * block restricts public policies only admits the owner account, so
 * neither is an internet entry.
 */
export function isInternetEntry(edge: Edge): boolean {
  if (isEgress(edge.direction) || isRestricted(edge)) return false;
  if (isInternetSource(edge.source_id)) return true;
  // A route's CIDR is where traffic goes (0.0.0.0/0 → the internet gateway), not where it comes from.
  return !DESTINATION_CIDR_TYPES.has(edge.edge_type) && isInternetSource(edge.cidr);
}

/** Edge types whose `cidr` names the traffic's destination, not its source. */
const DESTINATION_CIDR_TYPES: ReadonlySet<string> = new Set(["ROUTE"]);

/**
 * Whether an edge is a public grant: an internet entry that is a resource
 * policy grant or role trust (GRANTS_ACCESS, IAM_TRUST) to anyone, which
 * makes its target reachable from the internet the way a public bucket is.
 */
export function isPublicGrant(edge: Edge): boolean {
  return PRINCIPAL_GRANT_TYPES.has(edge.edge_type) && isInternetEntry(edge);
}

/**
 * Flags as internet-exposed every asset that a public grant (see
 * {@link isPublicGrant}) targets, so the exposure flag every tool reads
 * agrees with the internet entries; never clears a flag. Returns how many
 * assets it flagged.
 */
export function markPublicGrantTargets(
  records: {
    assets: readonly { id: string; is_internet_exposed: boolean }[];
    edges: readonly Edge[];
  },
): number {
  const targets = new Set<string>();
  for (const e of records.edges) if (isPublicGrant(e)) targets.add(e.target_id);
  let flagged = 0;
  for (const a of records.assets) {
    if (a.is_internet_exposed || !targets.has(a.id)) continue;
    a.is_internet_exposed = true;
    flagged++;
  }
  return flagged;
}
