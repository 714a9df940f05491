/**
 * The `iam-authorization-details` importer: the JSON of `aws iam
 * get-account-authorization-details` (users, groups, roles, managed policies).
 * Principals and policies become assets keyed by ARN; group membership,
 * policy attachments, trust (`IAM_TRUST`, cross-account and `*` principals
 * marked) and effective grants (`GRANTS_ACCESS` to resources of the dataset
 * whose ARN a statement's resource pattern matches) become edges. Each
 * principal gets its effective escalation methods and exfiltration actions as
 * facts, which the rule set turns into findings.
 *
 * @module
 */

import { DETECTION_ORDER } from "./importer.ts";
import type { AssetType } from "../model/enums.ts";
import type { Asset, Json } from "../model/records.ts";
import type { Importer, ImportResult } from "./importer.ts";
import { arr, isObject, jsonDocumentImporter, obj, str, tagList } from "./import_input.ts";
import type { PolicyStatement } from "./iam_policy.ts";
import {
  admissions,
  allowsSomeOf,
  arnService,
  decide,
  exfiltrationActions,
  explicitlyDenied,
  grantsOnResource,
  identityRefuses,
  parsePolicy,
  privilegeEscalations,
  statementReachesService,
  trustedPrincipals,
  wildcardMatch,
  withinBoundary,
} from "./iam_policy.ts";
import { type AssetInit, RecordsBuilder } from "./records_builder.ts";
import { evaluateRulesInto } from "../rules/rule_evaluate.ts";
import { pushTo } from "../../core/multimap.ts";

const KIND = "iam-authorization-details";

/** Whether parsed JSON looks like get-account-authorization-details output. */
export function looksLikeAuthorizationDetails(value: unknown): boolean {
  return isObject(value) &&
    ("UserDetailList" in value || "RoleDetailList" in value || "GroupDetailList" in value) &&
    ("Policies" in value || "RoleDetailList" in value);
}

/**
 * The customer account an IAM ARN names, or null: AWS-managed policies
 * (`arn:aws:iam::aws:policy/...`) belong to no account, so they are not filed
 * under a pseudo-account `aws` (they keep `metadata.aws_managed`).
 */
function accountOf(arn: string): string | null {
  return /^arn:aws[a-z-]*:iam::(\d{12}):/.exec(arn)?.[1] ?? null;
}

/** Adds an IAM asset whose id is its ARN, in the account the ARN names. */
function addAwsIam(
  b: RecordsBuilder,
  arn: string,
  init: Omit<AssetInit, "id" | "arn" | "provider" | "account_id">,
): void {
  b.addAsset({ id: arn, arn, provider: "AWS", account_id: accountOf(arn), ...init });
}

/** What `addPrincipal` needs beyond the principal's ARN and record. */
interface PrincipalInit {
  /** The record's name field. */
  name: unknown;
  asset_type: AssetType;
  inline: { name: string; document: Json }[];
  /** Whether the record's `Tags` become the asset's tags. */
  tagged?: boolean;
  metadata?: Record<string, Json>;
}

function defaultDocument(policy: Record<string, unknown>): unknown {
  const versions = arr(policy.PolicyVersionList).map(obj);
  const chosen = versions.find((v) => v.IsDefaultVersion === true) ??
    versions.find((v) => v.VersionId === policy.DefaultVersionId) ?? versions[0];
  return chosen?.Document;
}

function decodeDocument(doc: unknown): Json | undefined {
  if (isObject(doc)) return doc as Json;
  if (typeof doc === "string") {
    let text = doc;
    if (/^%7b/i.test(text)) {
      try {
        text = decodeURIComponent(text);
      } catch {
        return undefined;
      }
    }
    try {
      return JSON.parse(text) as Json;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * The attached managed policies of a principal: the API's list, or one policy
 * written as a bare object (as the AWS CLI documentation's example of this
 * output shows its groups' policies).
 */
function attachedList(value: unknown): Record<string, unknown>[] {
  return isObject(value) ? [value] : arr(value).map(obj);
}

/**
 * Adds the principals and policies of an authorization-details document to a
 * builder, then the trust and grant edges over every asset the builder holds.
 */
export function addAuthorizationDetails(b: RecordsBuilder, details: Record<string, unknown>): void {
  const policyDocs = new Map<string, Json>();
  for (const p of arr(details.Policies).map(obj)) {
    const arn = str(p.Arn);
    if (!arn) continue;
    const doc = decodeDocument(defaultDocument(p));
    if (doc !== undefined) policyDocs.set(arn, doc);
    addAwsIam(b, arn, {
      name: str(p.PolicyName) ?? arn,
      asset_type: "IAM_POLICY",
      metadata: {
        source: KIND,
        aws_managed: arn.includes(":iam::aws:policy/"),
        attachment_count: typeof p.AttachmentCount === "number" ? p.AttachmentCount : null,
        ...(doc !== undefined ? { policy_document: doc } : {}),
      },
    });
  }

  const groupStatements = new Map<string, PolicyStatement[]>();
  const groupByName = new Map<string, string>();
  const principals: { id: string; statements: PolicyStatement[] }[] = [];
  const trusts: { roleId: string; trust: Json }[] = [];

  const inlineOf = (list: unknown): { name: string; document: Json }[] =>
    arr(list).map(obj).flatMap((p) => {
      const doc = decodeDocument(p.PolicyDocument);
      return doc === undefined ? [] : [{ name: str(p.PolicyName) ?? "", document: doc }];
    });
  const attach = (
    principal: string,
    list: unknown,
  ): { arns: string[]; statements: PolicyStatement[] } => {
    const arns: string[] = [];
    const statements: PolicyStatement[] = [];
    for (const m of attachedList(list)) {
      const arn = str(m.PolicyArn);
      if (!arn) continue;
      arns.push(arn);
      if (!b.asset(arn)) {
        addAwsIam(b, arn, {
          name: str(m.PolicyName) ?? arn,
          asset_type: "IAM_POLICY",
          metadata: {
            source: KIND,
            aws_managed: arn.includes(":iam::aws:policy/"),
            document_missing: true,
          },
        });
      }
      b.addEdge({ source_id: principal, target_id: arn, edge_type: "IAM_POLICY_ATTACHMENT" });
      const doc = policyDocs.get(arn);
      if (doc !== undefined) statements.push(...parsePolicy(doc));
    }
    return { arns, statements };
  };

  // A group, user or role with its path, inline and attached policies; returns the statements
  // those policies hold.
  const addPrincipal = (
    arn: string,
    record: Record<string, unknown>,
    init: PrincipalInit,
  ): PolicyStatement[] => {
    const boundary = str(obj(record.PermissionsBoundary).PermissionsBoundaryArn);
    addAwsIam(b, arn, {
      name: str(init.name) ?? arn,
      asset_type: init.asset_type,
      ...(init.tagged ? { tags: tagList(record.Tags) } : {}),
      metadata: {
        source: KIND,
        path: str(record.Path) ?? "/",
        inline_policies: init.inline,
        ...(boundary ? { permissions_boundary: boundary } : {}),
        ...init.metadata,
      },
    });
    const { arns, statements } = attach(arn, record.AttachedManagedPolicies);
    b.asset(arn)!.metadata.managed_policy_arns = arns;
    return [...statements, ...init.inline.flatMap((p) => parsePolicy(p.document))];
  };

  for (const g of arr(details.GroupDetailList).map(obj)) {
    const arn = str(g.Arn);
    if (!arn) continue;
    const inline = inlineOf(g.GroupPolicyList);
    const all = addPrincipal(arn, g, { name: g.GroupName, asset_type: "IAM_GROUP", inline });
    groupStatements.set(arn, all);
    if (str(g.GroupName)) groupByName.set(str(g.GroupName)!, arn);
    principals.push({ id: arn, statements: all });
  }

  for (const u of arr(details.UserDetailList).map(obj)) {
    const arn = str(u.Arn);
    if (!arn) continue;
    const inline = inlineOf(u.UserPolicyList);
    const attached = attachedList(u.AttachedManagedPolicies);
    const all = addPrincipal(arn, u, {
      name: u.UserName,
      asset_type: "IAM_USER",
      inline,
      tagged: true,
      metadata: { direct_policy_attachment: inline.length > 0 || attached.length > 0 },
    });
    for (const name of arr(u.GroupList)) {
      const group = typeof name === "string" ? groupByName.get(name) : undefined;
      if (!group) continue;
      b.addEdge({
        source_id: group,
        target_id: arn,
        edge_type: "CONTAINS",
        properties: { membership: true },
      });
      all.push(...(groupStatements.get(group) ?? []));
    }
    principals.push({ id: arn, statements: all });
  }

  for (const r of arr(details.RoleDetailList).map(obj)) {
    const arn = str(r.Arn);
    if (!arn) continue;
    const trust = decodeDocument(r.AssumeRolePolicyDocument);
    const statements = addPrincipal(arn, r, {
      name: r.RoleName,
      asset_type: "IAM_ROLE",
      inline: inlineOf(r.RolePolicyList),
      tagged: true,
      metadata: trust !== undefined ? { trust_policy: trust } : {},
    });
    principals.push({ id: arn, statements });
    for (const ip of arr(r.InstanceProfileList).map(obj)) {
      const ipArn = str(ip.Arn);
      if (!ipArn) continue;
      b.addAsset({
        id: ipArn,
        arn: ipArn,
        name: str(ip.InstanceProfileName) ?? ipArn,
        asset_type: "INSTANCE_PROFILE",
        provider: "AWS",
        account_id: accountOf(ipArn),
        metadata: { source: KIND },
      });
      b.addEdge({ source_id: ipArn, target_id: arn, edge_type: "ASSUMES_ROLE" });
    }
    if (trust !== undefined) trusts.push({ roleId: arn, trust });
  }

  // Trust edges once every principal's identity policies are known (a Deny there wins).
  analysePrincipals(b, principals, trusts, new Map(principals.map((p) => [p.id, p.statements])));
}

/**
 * What the principals' identity statements give, once all are known: each role's trust edges,
 * each principal's escalation methods and exfiltration actions (within its permissions
 * boundary) and its grant edges.
 */
function analysePrincipals(
  b: RecordsBuilder,
  principals: readonly { id: string; statements: PolicyStatement[] }[],
  trusts: readonly { roleId: string; trust: Json }[],
  identities: ReadonlyMap<string, readonly PolicyStatement[]>,
): void {
  const idsByArn = assetIdsByArn(b);
  for (const t of trusts) addTrustEdges(b, { ...t, identities, idsByArn });
  const bounded = withBoundaries(b, principals, idsByArn);
  for (const p of bounded) {
    const asset = b.asset(p.id)!;
    asset.metadata.privilege_escalation = privilegeEscalations(p.statements, p.boundary);
    asset.metadata.exfiltration_actions = exfiltrationActions(p.statements, p.boundary);
  }
  addGrantEdges(b, bounded);
}

/**
 * The statements of an asset's permissions boundary (`metadata.permissions_boundary`, a policy
 * ARN, read from that policy asset's `policy_document`): undefined without a boundary, null when
 * the input does not hold its document.
 */
function boundaryOf(
  b: RecordsBuilder,
  asset: Asset | undefined,
  idsByArn: ReadonlyMap<string, string>,
): PolicyStatement[] | null | undefined {
  const arn = asset?.metadata.permissions_boundary;
  if (typeof arn !== "string" || arn === "") return undefined;
  const document = b.asset(idsByArn.get(arn) ?? arn)?.metadata.policy_document;
  return document === undefined ? null : parsePolicy(document);
}

/**
 * Why the principal's own side refuses what a trust or resource policy grants it, or null when
 * it does not: across accounts its own policies (when the input holds them) must allow it too
 * (`own-policies`), and a role, or any principal of another account, is held to its permissions
 * boundary (`boundary`); a user named by ARN in the granting account is not. `allows` says
 * whether a policy allows what is granted.
 */
function principalSideRefusal(
  b: RecordsBuilder,
  principal: {
    holder: Asset | undefined;
    statements: readonly PolicyStatement[] | undefined;
    crossAccount: boolean;
    byArn: ReadonlyMap<string, string>;
  },
  allows: (policy: readonly PolicyStatement[]) => boolean,
): "own-policies" | "boundary" | null {
  const { holder, statements, crossAccount, byArn } = principal;
  if (crossAccount && statements !== undefined && !allows(statements)) return "own-policies";
  const boundary = holder !== undefined && (holder.asset_type === "IAM_ROLE" || crossAccount)
    ? boundaryOf(b, holder, byArn)
    : undefined;
  return boundary && !allows(boundary) ? "boundary" : null;
}

/** A principal's identity statements and, when it has one, its permissions boundary's. */
interface BoundedPrincipal {
  id: string;
  statements: PolicyStatement[];
  /** The boundary's statements; null without a boundary or when its document is missing. */
  boundary: PolicyStatement[] | null;
}

/**
 * Each principal with the statements of its permissions boundary (`metadata.permissions_boundary`,
 * a policy ARN; users and roles), read from the policy asset's `policy_document`. A boundary whose
 * document the input does not hold is recorded as not applied (`permissions_boundary_applied`),
 * with one load warning: that principal's grants, escalation and exfiltration facts are then
 * upper bounds.
 */
function withBoundaries(
  b: RecordsBuilder,
  principals: readonly { id: string; statements: PolicyStatement[] }[],
  idsByArn: ReadonlyMap<string, string>,
): BoundedPrincipal[] {
  let missing = 0;
  const out = principals.map((p): BoundedPrincipal => {
    const asset = b.asset(p.id);
    const boundary = boundaryOf(b, asset, idsByArn);
    if (boundary === undefined) return { ...p, boundary: null };
    asset!.metadata.permissions_boundary_applied = boundary !== null;
    if (boundary === null) missing++;
    return { ...p, boundary };
  });
  if (missing > 0) {
    b.warn(
      `${missing} principal${missing === 1 ? " has" : "s have"} a permissions boundary whose ` +
        `policy document is not in the input: their grants, escalation and exfiltration facts ` +
        `do not apply it (they are upper bounds).`,
    );
  }
  return out;
}

/** What {@link addTrustEdges} needs beyond the role and its trust policy. */
export interface TrustEdgeOptions {
  roleId: string;
  trust: Json;
  /**
   * The identity statements of principals of the dataset, by asset id: a
   * principal whose own policies explicitly deny `sts:AssumeRole` on the role
   * cannot assume it, whatever the trust policy says.
   * @default no identity policies known
   */
  identities?: ReadonlyMap<string, readonly PolicyStatement[]>;
  /**
   * Asset ids by ARN, so a principal named by ARN links to its asset.
   * @default the builder's assets, indexed on each call
   */
  idsByArn?: ReadonlyMap<string, string>;
}

/** Asset ids by ARN over a builder's assets. */
export function assetIdsByArn(b: RecordsBuilder): Map<string, string> {
  const byArn = new Map<string, string>();
  for (const a of b.assets()) if (a.arn && !byArn.has(a.arn)) byArn.set(a.arn, a.id);
  return byArn;
}

/**
 * `IAM_TRUST` edges from each principal a role's trust policy admits: from
 * the principal's asset when the dataset holds one with that ARN, else from
 * the principal as written (`*` for anyone). A principal whose identity
 * policies explicitly deny it `sts:AssumeRole` on the role gets no edge; the
 * role lists it in `metadata.trust_denied_by_identity`. Nor does one of another
 * account whose own policies (held in the input) do not allow it, or a role (or
 * a principal of another account) whose permissions boundary does not: those
 * are listed in `metadata.trust_not_allowed_by_principal`.
 */
export function addTrustEdges(b: RecordsBuilder, options: TrustEdgeOptions): void {
  const { roleId, trust } = options;
  const role = b.asset(roleId);
  const own = role?.account_id ?? null;
  const byArn = options.idsByArn ?? assetIdsByArn(b);
  const denied: string[] = [];
  const notAllowed: string[] = [];
  const roleArn = role?.arn ?? roleId;
  for (const p of trustedPrincipals(parsePolicy(trust))) {
    const source = p.anyone ? "*" : byArn.get(p.value) ?? p.value;
    const statements = options.identities?.get(source);
    if (statements && explicitlyDenied(statements, "sts:AssumeRole", roleArn)) {
      denied.push(source);
      continue;
    }
    const holder = p.anyone ? undefined : b.asset(source);
    const account = holder?.account_id ?? p.account;
    const crossAccount = account !== null && own !== null && account !== own;
    const refusal = principalSideRefusal(
      b,
      { holder, statements, crossAccount, byArn },
      (policy) => decide(policy, "sts:AssumeRole", { resource: roleArn }).allowed,
    );
    if (refusal !== null) {
      notAllowed.push(source);
      continue;
    }
    b.addEdge({
      source_id: source,
      target_id: roleId,
      edge_type: "IAM_TRUST",
      description: `${p.type} principal`,
      properties: {
        principal_type: p.type,
        anyone: p.anyone,
        cross_account: crossAccount,
        conditional: p.conditional,
        ...(account ? { principal_account: account } : {}),
        ...(p.except ? { except_principals: p.except } : {}),
      },
    });
  }
  if (role && denied.length > 0) role.metadata.trust_denied_by_identity = denied;
  if (role && notAllowed.length > 0) role.metadata.trust_not_allowed_by_principal = notAllowed;
}

/** Asset types that hold or move data: the only targets of grants made through `Resource: "*"`. */
export const DATA_BEARING_TYPES: ReadonlySet<string> = new Set([
  "S3_BUCKET",
  "GCS_BUCKET",
  "BLOB_STORAGE",
  "EBS_VOLUME",
  "ACCESS_POINT",
  "FILE_SYSTEM",
  "RDS_INSTANCE",
  "AURORA_CLUSTER",
  "AZURE_SQL",
  "CLOUD_SQL",
  "DYNAMODB_TABLE",
  "DATA_WAREHOUSE",
  "SEARCH_DOMAIN",
  "CACHE_CLUSTER",
  "SNAPSHOT",
  "BACKUP_VAULT",
  "KMS_KEY",
  "SECRET",
  "KEY_VAULT",
  "PARAMETER",
  "CERTIFICATE",
  "MESSAGE_QUEUE",
  "NOTIFICATION_TOPIC",
  "DATA_STREAM",
  "DELIVERY_STREAM",
  "MESSAGE_BROKER",
  "LAMBDA_FUNCTION",
  "CONTAINER_REGISTRY",
  "LOG_GROUP",
]);

/** The most `GRANTS_ACCESS` edges one load adds from identity policies; past it a warning says so. */
export const MAX_GRANT_EDGES = 250_000;

/** The services an identity's Allow statements can reach (`null` = every service). */
function reachableServices(statements: readonly PolicyStatement[]): string[] | null {
  const out = new Set<string>();
  for (const st of statements) {
    if (st.effect !== "Allow") continue;
    if (st.notActions.length > 0) return null;
    for (const a of st.actions) {
      if (a === "*" || a === "*:*") return null;
      out.add((a.split(":")[0] ?? "").toLowerCase());
    }
  }
  return [...out];
}

/**
 * `GRANTS_ACCESS` edges from principals to every asset whose ARN their
 * statements reach. Targets are indexed by service, so a principal is only
 * tested against the assets of the services its actions name. A grant made
 * only through `Resource: "*"` links to data-bearing assets only (not to every
 * role, group or network object), and at most {@link MAX_GRANT_EDGES} edges
 * are added.
 */
export function addGrantEdges(
  b: RecordsBuilder,
  principals: readonly BoundedPrincipal[],
): void {
  // Per service: every target, and the data-bearing ones alone.
  const byService = new Map<string, { all: Asset[]; data: Asset[] }>();
  for (const a of b.assets()) {
    if (a.arn === null || !a.arn.startsWith("arn:") || a.asset_type === "IAM_POLICY") continue;
    const service = (arnService(a.arn) ?? "").toLowerCase();
    let entry = byService.get(service);
    if (!entry) byService.set(service, entry = { all: [], data: [] });
    entry.all.push(a);
    if (DATA_BEARING_TYPES.has(a.asset_type)) entry.data.push(a);
  }
  let added = 0;
  for (const p of principals) {
    if (p.statements.length === 0) continue;
    const services = reachableServices(p.statements);
    const keys = services === null
      ? [...byService.keys()]
      : [...byService.keys()].filter((k) =>
        services.some((s) => wildcardMatch(s, k, { ignoreCase: true }))
      );
    for (const key of keys) {
      // Without a resource pattern other than "*", only data-bearing assets can be targets.
      const specific = p.statements.some((s) =>
        s.effect === "Allow" && statementReachesService(s, key) &&
        (s.notResources.length > 0 || s.resources.some((r) => r !== "*"))
      );
      const entry = byService.get(key)!;
      for (const t of specific ? entry.all : entry.data) {
        if (t.id === p.id) continue;
        const own = grantsOnResource(p.statements, t.arn!);
        const grant = p.boundary === null ? own : withinBoundary(own, p.boundary, t.arn!);
        if (!grant.granted) continue;
        if (grant.wildcardOnly && !DATA_BEARING_TYPES.has(t.asset_type)) continue;
        if (added >= MAX_GRANT_EDGES) {
          b.warn(
            `Stopped adding identity grant edges at ${MAX_GRANT_EDGES}; more principals reach more resources.`,
          );
          return;
        }
        added++;
        b.addEdge({
          source_id: p.id,
          target_id: t.id,
          edge_type: "GRANTS_ACCESS",
          description: grant.actions.slice(0, 10).join(", "),
          properties: { conditional: grant.conditional, actions: grant.actions.slice(0, 50) },
        });
      }
    }
  }
}

/**
 * IAM analysis over principals already in a builder (from Terraform or any
 * other source holding `inline_policies`, `policy_document` on attached
 * policies, group membership as `CONTAINS` and `trust_policy` on roles):
 * trust edges, escalation and exfiltration facts, and grant edges.
 */
export function analyseIam(b: RecordsBuilder): void {
  const identities = identityStatements(b);
  const principals: { id: string; statements: PolicyStatement[] }[] = [];
  const roles: { roleId: string; trust: Json }[] = [];
  for (const a of [...b.assets()]) {
    if (!isIdentity(a)) continue;
    if (a.asset_type === "IAM_ROLE" && a.metadata.trust_policy !== undefined) {
      roles.push({ roleId: a.id, trust: a.metadata.trust_policy });
    }
    const statements = identities.get(a.id);
    if (statements === undefined) continue;
    principals.push({ id: a.id, statements });
  }
  analysePrincipals(b, principals, roles, identities);
  addResourcePolicyGrants(b, identities);
}

/** An AWS user, role or group: a principal whose identity policies the builder may hold. */
function isIdentity(a: Asset): boolean {
  return a.provider === "AWS" &&
    (a.asset_type === "IAM_USER" || a.asset_type === "IAM_ROLE" || a.asset_type === "IAM_GROUP");
}

/**
 * The identity-policy statements of each AWS user, role and group in a builder that has any:
 * its inline policies (`inline_policies`), the documents of the policies attached to it
 * (`IAM_POLICY_ATTACHMENT` edges to assets with `policy_document`) and, for a user, its
 * groups' (`CONTAINS` edges from an `IAM_GROUP`).
 */
export function identityStatements(b: RecordsBuilder): Map<string, PolicyStatement[]> {
  const attachedTo = new Map<string, string[]>();
  const groupsOf = new Map<string, string[]>();
  for (const e of b.records.edges) {
    if (e.edge_type === "IAM_POLICY_ATTACHMENT") {
      pushTo(attachedTo, e.source_id, e.target_id);
    } else if (e.edge_type === "CONTAINS" && b.asset(e.source_id)?.asset_type === "IAM_GROUP") {
      pushTo(groupsOf, e.target_id, e.source_id);
    }
  }
  const documentsOf = (id: string): PolicyStatement[] => {
    const a = b.asset(id);
    if (!a) return [];
    const own = Array.isArray(a.metadata.inline_policies)
      ? a.metadata.inline_policies.flatMap((p) =>
        isObject(p) && "document" in p ? parsePolicy((p as Record<string, unknown>).document) : []
      )
      : [];
    const attached = (attachedTo.get(id) ?? []).flatMap((policy) =>
      parsePolicy(b.asset(policy)?.metadata.policy_document)
    );
    return [...own, ...attached];
  };
  const out = new Map<string, PolicyStatement[]>();
  for (const a of b.assets()) {
    if (!isIdentity(a)) continue;
    const statements = documentsOf(a.id);
    if (a.asset_type === "IAM_USER") {
      for (const group of groupsOf.get(a.id) ?? []) statements.push(...documentsOf(group));
    }
    if (statements.length > 0) out.set(a.id, statements);
  }
  return out;
}

/**
 * `GRANTS_ACCESS` edges from the principals a resource policy admits (bucket,
 * queue, topic, function, registry and key policies held as
 * `metadata.resource_policy`) to the resource: from the principal's asset when
 * the dataset has it, else from the principal as written (`*` for anyone).
 */
export function addResourcePolicyGrants(
  b: RecordsBuilder,
  identities: ReadonlyMap<string, readonly PolicyStatement[]> = identityStatements(b),
): void {
  const byArn = assetIdsByArn(b);
  let refused = 0;
  let unmatched = 0;
  let capped = 0;
  for (const a of [...b.assets()]) {
    if (a.metadata.resource_policy === undefined) continue;
    for (const { principal: p, allow } of admissions(parsePolicy(a.metadata.resource_policy))) {
      const source = p.anyone ? "*" : byArn.get(p.value) ?? p.value;
      // The principal's own explicit Deny wins over the resource policy's Allow.
      const own = identities.get(source);
      const arn = a.arn ?? a.id;
      if (own !== undefined && identityRefuses(own, allow, a.arn)) {
        refused++;
        continue;
      }
      const holder = p.anyone ? undefined : b.asset(source);
      const crossAccount = p.account !== null && a.account_id !== null &&
        p.account !== a.account_id;
      const refusal = principalSideRefusal(
        b,
        { holder, statements: own, crossAccount, byArn },
        (policy) => allowsSomeOf(policy, allow, arn),
      );
      if (refusal === "own-policies") unmatched++;
      if (refusal === "boundary") capped++;
      if (refusal !== null) continue;
      b.addEdge({
        source_id: source,
        target_id: a.id,
        edge_type: "GRANTS_ACCESS",
        description: "resource policy",
        properties: {
          via: "resource_policy",
          principal_type: p.type,
          anyone: p.anyone,
          conditional: p.conditional,
          cross_account: crossAccount,
          ...(p.except ? { except_principals: p.except } : {}),
        },
      });
    }
  }
  const left = (count: number, why: string): void => {
    if (count === 0) return;
    b.warn(`${count} resource-policy grant${count === 1 ? " is" : "s are"} left out: ${why}.`);
  };
  left(
    refused,
    "the principal's own policies deny, without condition, everything the grant allows " +
      "(an explicit Deny overrides a resource policy's Allow)",
  );
  left(
    unmatched,
    "the principal is of another account and its own policies allow none of what the grant " +
      "allows (access across accounts needs both sides)",
  );
  left(
    capped,
    "the principal's permissions boundary allows none of what the grant allows (a boundary " +
      "caps a role's access even through a resource policy)",
  );
}

/** The `iam-authorization-details` importer entry. */
export const iamAuthorizationImporter: Importer = jsonDocumentImporter({
  kind: KIND,
  description: "IAM authorization details (aws iam get-account-authorization-details)",
  order: DETECTION_ORDER.json_iam_authorization,
  isDocument: looksLikeAuthorizationDetails,
  notA: "IAM authorization details: expected the JSON of " +
    "`aws iam get-account-authorization-details` (UserDetailList, GroupDetailList, " +
    "RoleDetailList, Policies).",
  read(doc): ImportResult {
    const b = new RecordsBuilder();
    addAuthorizationDetails(b, doc);
    if (doc.IsTruncated === true) {
      b.warn(
        "The authorization details are one page of several (IsTruncated is true): principals " +
          "and policies of the later pages are missing. Without --max-items the AWS CLI " +
          "fetches every page.",
      );
    }
    evaluateRulesInto(b.records);
    return b.finish();
  },
});
