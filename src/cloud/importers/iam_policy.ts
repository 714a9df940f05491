/**
 * AWS IAM policy documents as data: parsing (JSON strings or objects, single
 * values or lists), wildcard matching of actions and ARNs, and the effective
 * answer to "does this set of statements allow this action on this resource"
 * with `NotAction`, `NotResource`, conditions and `Deny` taken into account.
 * Also the action sets that mean wildcard admin, privilege escalation and data
 * exfiltration.
 *
 * Evaluation rules (a deliberate simplification of AWS's): an explicit,
 * unconditional `Deny` that matches wins; an `Allow` matches when its action
 * and resource clauses match; an `Allow` with a `Condition` still counts but
 * is reported as conditional; a conditional `Deny` is ignored (it may not
 * apply, so risk is not hidden behind it), except in a resource or trust
 * policy, where a `Deny` that refuses every caller but named ones (see
 * {@link denyConditionLimitsCaller}) makes the grants it covers conditional.
 * A `Deny` removes an `Allow` only where it provably covers it: its action
 * and resource patterns cover the `Allow`'s (see {@link patternCovers}), and
 * in resource and trust policies its principals
 * cover the admitted principal. Where coverage cannot be shown the `Allow`
 * stands, so the answers may overstate access but do not hide it.
 *
 * @module
 */

import { isObject, str, strings } from "./import_input.ts";
import { conditionLimitsCaller, denyConditionLimitsCaller } from "./caller_conditions.ts";

/** One statement, normalised. */
export interface PolicyStatement {
  sid: string | null;
  effect: "Allow" | "Deny";
  actions: string[];
  notActions: string[];
  resources: string[];
  notResources: string[];
  /** Principals by type (`AWS`, `Service`, `Federated`, `CanonicalUser`, `*`). */
  principals: Record<string, string[]>;
  /** Whether the statement used `NotPrincipal`. */
  notPrincipal: boolean;
  /** Whether the statement has a `Condition`. */
  conditional: boolean;
  /**
   * Whether its `Condition` limits who may call: for an `Allow`, see
   * {@link conditionLimitsCaller}; for a `Deny`, see {@link denyConditionLimitsCaller}.
   */
  limitsCaller: boolean;
}

/** Parses a policy document (object or JSON string, possibly URL-encoded) into statements. */
export function parsePolicy(document: unknown): PolicyStatement[] {
  let doc = document;
  if (typeof doc === "string") {
    let text = doc.trim();
    if (text.startsWith("%7B") || text.startsWith("%7b")) {
      try {
        text = decodeURIComponent(text);
      } catch {
        return [];
      }
    }
    try {
      doc = JSON.parse(text);
    } catch {
      return [];
    }
  }
  if (!isObject(doc)) return [];
  const raw = Array.isArray(doc.Statement)
    ? doc.Statement
    : isObject(doc.Statement)
    ? [doc.Statement]
    : [];
  const out: PolicyStatement[] = [];
  for (const s of raw) {
    if (!isObject(s)) continue;
    const effect = s.Effect === "Deny" ? "Deny" : s.Effect === "Allow" ? "Allow" : null;
    if (effect === null) continue;
    const principalField = s.Principal ?? s.NotPrincipal;
    const principals: Record<string, string[]> = {};
    if (principalField === "*") principals["*"] = ["*"];
    else if (isObject(principalField)) {
      for (const [type, value] of Object.entries(principalField)) principals[type] = strings(value);
    }
    out.push({
      sid: str(s.Sid),
      effect,
      actions: strings(s.Action),
      notActions: strings(s.NotAction),
      resources: strings(s.Resource),
      notResources: strings(s.NotResource),
      principals,
      notPrincipal: s.NotPrincipal !== undefined,
      conditional: isObject(s.Condition) && Object.keys(s.Condition).length > 0,
      limitsCaller: effect === "Allow"
        ? conditionLimitsCaller(s.Condition)
        : denyConditionLimitsCaller(s.Condition),
    });
  }
  return out;
}

const patternCache = new Map<string, RegExp>();

/** Whether `value` matches an IAM wildcard pattern (`*` any run, `?` one character). */
export function wildcardMatch(
  pattern: string,
  value: string,
  options: { ignoreCase?: boolean } = {},
): boolean {
  const ignoreCase = options.ignoreCase ?? false;
  if (pattern === "*") return true;
  if (!pattern.includes("*") && !pattern.includes("?")) {
    return ignoreCase ? pattern.toLowerCase() === value.toLowerCase() : pattern === value;
  }
  const key = (ignoreCase ? "i:" : "s:") + pattern;
  let re = patternCache.get(key);
  if (!re) {
    const body = pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(
      /\?/g,
      ".",
    );
    re = new RegExp(`^${body}$`, ignoreCase ? "is" : "s");
    if (patternCache.size > 10_000) patternCache.clear();
    patternCache.set(key, re);
  }
  return re.test(value);
}

/** Whether an action matches a list of action patterns (case-insensitive, as IAM does). */
export function actionMatches(patterns: readonly string[], action: string): boolean {
  return patterns.some((p) => wildcardMatch(p, action, { ignoreCase: true }));
}

function statementCoversAction(s: PolicyStatement, action: string): boolean {
  if (s.actions.length > 0) return actionMatches(s.actions, action);
  if (s.notActions.length > 0) return !actionMatches(s.notActions, action);
  return false;
}

function statementCoversResource(s: PolicyStatement, resource: string): boolean {
  if (s.resources.length > 0) return s.resources.some((p) => wildcardMatch(p, resource));
  if (s.notResources.length > 0) return !s.notResources.some((p) => wildcardMatch(p, resource));
  // Trust and resource policies omit Resource: they apply to the resource they sit on.
  return true;
}

/**
 * Whether pattern `outer` matches every value pattern `inner` can match:
 * `outer` matches `inner` read as plain text, which is sound unless a `?` of
 * `outer` would stand for a `*` of `inner` (then only `*` or the same
 * pattern count). Anything else is not shown to cover, so a caller removing
 * access on this answer never removes more than it should.
 */
export function patternCovers(
  outer: string,
  inner: string,
  options: { ignoreCase?: boolean } = {},
): boolean {
  const ignoreCase = options.ignoreCase ?? false;
  const o = ignoreCase ? outer.toLowerCase() : outer;
  const i = ignoreCase ? inner.toLowerCase() : inner;
  if (o === "*" || o === i) return true;
  if (o.includes("?") && i.includes("*")) return false;
  return wildcardMatch(o, i);
}

/**
 * Whether two action patterns provably share no action: their services
 * differ, or both are literal up to a final `*` and neither prefix extends
 * the other.
 */
function actionsDisjoint(a: string, b: string): boolean {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  const sx = x.split(":")[0] ?? "";
  const sy = y.split(":")[0] ?? "";
  if (!/[*?]/.test(sx) && !/[*?]/.test(sy) && x.includes(":") && y.includes(":") && sx !== sy) {
    return true;
  }
  const literal = (p: string): string | null =>
    !/[*?]/.test(p) ? p : p.endsWith("*") && !/[*?]/.test(p.slice(0, -1)) ? p.slice(0, -1) : null;
  const px = literal(x);
  const py = literal(y);
  if (px === null || py === null) return false;
  if (px === x && py === y) return x !== y;
  const lx = px === x ? null : px;
  const ly = py === y ? null : py;
  if (lx !== null && ly !== null) return !lx.startsWith(ly) && !ly.startsWith(lx);
  if (lx !== null) return !y.startsWith(lx);
  return !x.startsWith(ly!);
}

/**
 * The part of action pattern `action` left once `deny`'s action clause is
 * taken away, as patterns: none when the `Deny` covers it, the actions a
 * `NotAction` `Deny` spares inside it, or the pattern itself when no part
 * is shown denied.
 */
function actionsLeft(action: string, deny: PolicyStatement): string[] {
  if (deny.actions.length > 0) {
    return deny.actions.some((d) => patternCovers(d, action, { ignoreCase: true })) ? [] : [action];
  }
  if (deny.notActions.length === 0 || deny.notActions.some((n) => n === "*")) return [action];
  const left: string[] = [];
  for (const n of deny.notActions) {
    if (patternCovers(action, n, { ignoreCase: true })) left.push(n);
    else if (patternCovers(n, action, { ignoreCase: true })) left.push(action);
    else if (!actionsDisjoint(action, n)) left.push(action);
  }
  return [...new Set(left)];
}

/** Whether a `Deny`'s action clause covers every action of pattern `action`. */
function denyCoversActionPattern(deny: PolicyStatement, action: string): boolean {
  return actionsLeft(action, deny).length === 0;
}

/**
 * Whether a `Deny`'s resource clause covers resource pattern `resource`
 * (`null`: every resource, as an `Allow` with `NotResource` or no
 * `Resource` may reach).
 */
function denyCoversResource(deny: PolicyStatement, resource: string | null): boolean {
  if (deny.resources.length === 0 && deny.notResources.length === 0) return true;
  if (resource === null) return deny.resources.includes("*");
  if (deny.resources.length > 0) return deny.resources.some((d) => patternCovers(d, resource));
  // NotResource: covers a plain resource none of its patterns names.
  return !/[*?]/.test(resource) && !deny.notResources.some((n) => wildcardMatch(n, resource));
}

/** Whether a `Deny` covers everything an `Allow` statement allows (actions and resources). */
function denyCoversStatement(deny: PolicyStatement, allow: PolicyStatement): boolean {
  const actionsCovered = allow.actions.length > 0
    ? allow.actions.every((a) => denyCoversActionPattern(deny, a))
    : denyCoversActionPattern(deny, "*");
  if (!actionsCovered) return false;
  return allow.resources.length > 0
    ? allow.resources.every((r) => denyCoversResource(deny, r))
    : denyCoversResource(deny, null);
}

/**
 * Whether an unconditional `Deny` among the statements covers `action` on
 * one resource ARN: the explicit refusal no `Allow` anywhere overrides.
 */
export function explicitlyDenied(
  statements: readonly PolicyStatement[],
  action: string,
  resource: string,
): boolean {
  return statements.some((s) =>
    s.effect === "Deny" && !s.conditional && statementCoversAction(s, action) &&
    statementCoversResource(s, resource)
  );
}

/** The answer for one action on one resource. */
export interface AccessDecision {
  allowed: boolean;
  /** Every allowing statement had a condition. */
  conditional: boolean;
}

/**
 * Whether the statements allow `action` on `resource`. `*` means "on some
 * resource": an `Allow` counts unless unconditional `Deny`s covering the
 * action cover every resource pattern it names.
 */
export function decide(
  statements: readonly PolicyStatement[],
  action: string,
  options: { resource?: string } = {},
): AccessDecision {
  const resource = options.resource ?? "*";
  const anyResource = resource === "*";
  if (!anyResource && explicitlyDenied(statements, action, resource)) {
    return { allowed: false, conditional: false };
  }
  const denies = statements.filter((s) =>
    s.effect === "Deny" && !s.conditional && statementCoversAction(s, action)
  );
  const deniedEverywhere = (patterns: readonly string[] | null): boolean =>
    patterns === null
      ? denies.some((d) => denyCoversResource(d, null))
      : patterns.every((p) => denies.some((d) => denyCoversResource(d, p)));
  let allowed = false;
  let unconditional = false;
  for (const s of statements) {
    if (s.effect !== "Allow" || !statementCoversAction(s, action)) continue;
    if (anyResource) {
      if (deniedEverywhere(s.resources.length > 0 ? s.resources : null)) continue;
    } else if (!statementCoversResource(s, resource)) continue;
    allowed = true;
    if (!s.conditional) unconditional = true;
  }
  return { allowed, conditional: allowed && !unconditional };
}

/**
 * Whether the statements grant every action on every resource without
 * condition: an unconditional `Allow` of `*` on `*` that no unconditional
 * `Deny` on every resource cuts down to a set of actions (`Action: "*"`, or
 * any `NotAction`, which denies all but the actions it lists). A `Deny` of
 * named actions leaves the grant counted as admin.
 */
export function isWildcardAdmin(statements: readonly PolicyStatement[]): boolean {
  const grants = statements.some((s) =>
    s.effect === "Allow" && !s.conditional && s.actions.some((a) => a === "*" || a === "*:*") &&
    s.resources.includes("*")
  );
  if (!grants) return false;
  return !statements.some((s) =>
    s.effect === "Deny" && !s.conditional && denyCoversResource(s, null) &&
    (s.actions.some((a) => a === "*" || a === "*:*") ||
      (s.notActions.length > 0 && !s.notActions.some((a) => a === "*" || a === "*:*")))
  );
}

/**
 * Action sets that let a principal raise its own privileges (publicly
 * documented escalation methods). A principal allowed every action of a set
 * can escalate by that method.
 */
export const PRIVILEGE_ESCALATION_SETS: Readonly<Record<string, readonly string[]>> = {
  CreateNewPolicyVersion: ["iam:CreatePolicyVersion"],
  SetExistingDefaultPolicyVersion: ["iam:SetDefaultPolicyVersion"],
  CreateEC2WithExistingInstanceProfile: ["iam:PassRole", "ec2:RunInstances"],
  CreateAccessKey: ["iam:CreateAccessKey"],
  CreateLoginProfile: ["iam:CreateLoginProfile"],
  UpdateLoginProfile: ["iam:UpdateLoginProfile"],
  AttachUserPolicy: ["iam:AttachUserPolicy"],
  AttachGroupPolicy: ["iam:AttachGroupPolicy"],
  AttachRolePolicy: ["iam:AttachRolePolicy", "sts:AssumeRole"],
  PutUserPolicy: ["iam:PutUserPolicy"],
  PutGroupPolicy: ["iam:PutGroupPolicy"],
  PutRolePolicy: ["iam:PutRolePolicy", "sts:AssumeRole"],
  AddUserToGroup: ["iam:AddUserToGroup"],
  UpdateRolePolicyToAssumeIt: ["iam:UpdateAssumeRolePolicy", "sts:AssumeRole"],
  PassExistingRoleToNewLambdaThenInvoke: [
    "iam:PassRole",
    "lambda:CreateFunction",
    "lambda:InvokeFunction",
  ],
  PassExistingRoleToNewLambdaThenTriggerWithExistingDynamo: [
    "iam:PassRole",
    "lambda:CreateFunction",
    "lambda:CreateEventSourceMapping",
  ],
  PassExistingRoleToNewGlueDevEndpoint: [
    "iam:PassRole",
    "glue:CreateDevEndpoint",
    "glue:GetDevEndpoint",
  ],
  UpdateExistingGlueDevEndpoint: ["glue:UpdateDevEndpoint", "glue:GetDevEndpoint"],
  PassExistingRoleToCloudFormation: [
    "iam:PassRole",
    "cloudformation:CreateStack",
    "cloudformation:DescribeStacks",
  ],
  PassExistingRoleToNewDataPipeline: [
    "iam:PassRole",
    "datapipeline:CreatePipeline",
    "datapipeline:PutPipelineDefinition",
    "datapipeline:ActivatePipeline",
  ],
  EditExistingLambdaFunctionWithRole: ["lambda:UpdateFunctionCode"],
  PassExistingRoleToNewCodeStarProject: ["codestar:CreateProject", "iam:PassRole"],
};

/** Actions that read data out of stores (objects, parameters, secrets, snapshots). */
export const DATA_EXFILTRATION_ACTIONS: readonly string[] = [
  "s3:GetObject",
  "ssm:GetParameter",
  "ssm:GetParameters",
  "ssm:GetParametersByPath",
  "secretsmanager:GetSecretValue",
  "rds:CopyDBSnapshot",
  "rds:CreateDBSnapshot",
];

/**
 * Whether identity statements allow `action`, within a permissions boundary when there is one:
 * the boundary must allow it too (a boundary grants nothing by itself; it caps what identity
 * policies grant).
 */
function allowedWithin(
  statements: readonly PolicyStatement[],
  boundary: readonly PolicyStatement[] | null,
  action: string,
): boolean {
  return decide(statements, action).allowed &&
    (boundary === null || decide(boundary, action).allowed);
}

/** The escalation methods fully allowed by the statements (within `boundary`), by name. */
export function privilegeEscalations(
  statements: readonly PolicyStatement[],
  boundary: readonly PolicyStatement[] | null = null,
): string[] {
  const out: string[] = [];
  for (const [name, actions] of Object.entries(PRIVILEGE_ESCALATION_SETS)) {
    if (actions.every((a) => allowedWithin(statements, boundary, a))) out.push(name);
  }
  return out;
}

/** The exfiltration actions allowed by the statements (within `boundary`). */
export function exfiltrationActions(
  statements: readonly PolicyStatement[],
  boundary: readonly PolicyStatement[] | null = null,
): string[] {
  return DATA_EXFILTRATION_ACTIONS.filter((a) => allowedWithin(statements, boundary, a));
}

/** A principal named in a trust or resource policy. */
export interface TrustedPrincipal {
  /** `AWS`, `Service`, `Federated`, `CanonicalUser` or `*`. */
  type: string;
  value: string;
  /** Anyone (`*` as principal or AWS principal `*`, or an `Allow` with `NotPrincipal`). */
  anyone: boolean;
  /** The AWS account the principal belongs to, when it names one. */
  account: string | null;
  /**
   * Whether a condition limits the principal: for anyone (`*`), a condition
   * that limits who may call (see {@link conditionLimitsCaller}), so a grant
   * to `*` under, say, aws:SecureTransport alone stays open to everyone; for
   * a named principal, any condition. A conditional `Deny` that refuses every
   * caller but named ones (see {@link denyConditionLimitsCaller}) covering the
   * grant also makes it conditional.
   */
  conditional: boolean;
  /**
   * The principals an `Allow` with `NotPrincipal` leaves out: it admits
   * everyone else, anonymous callers included, as AWS documented it (AWS now
   * calls `Allow` with `NotPrincipal` unsupported and refuses `NotPrincipal`
   * in role trust policies; a policy that holds it is read at its worst).
   */
  except?: string[];
}

/** The account id an ARN or bare 12-digit principal names, or null. */
export function principalAccount(value: string): string | null {
  if (/^\d{12}$/.test(value)) return value;
  const m = /^arn:aws[a-z-]*:(?:iam|sts)::(\d{12}):/.exec(value);
  return m ? m[1]! : null;
}

/** The principal values a statement names under a type, `*` type included. */
function listed(s: PolicyStatement, type: string): string[] {
  return [...(s.principals[type] ?? []), ...(s.principals["*"] ?? [])];
}

/**
 * Whether a `Deny`'s `Principal` (or `NotPrincipal`) covers an admitted
 * principal: `*` covers all; AWS `*` covers anyone and AWS principals; an
 * account (its root ARN or bare id) covers the principals of that account;
 * otherwise the same value. A `NotPrincipal` `Deny` covers every named
 * principal it does not list, and anyone only in part (see
 * {@link trustedPrincipals}).
 */
function denyCoversPrincipal(deny: PolicyStatement, p: TrustedPrincipal): boolean {
  const names = (values: readonly string[]): boolean =>
    values.some((v) =>
      v === "*" || v === p.value ||
      (p.type === "AWS" && p.account !== null &&
        (v === p.account || v === `arn:aws:iam::${p.account}:root`))
    );
  if (deny.notPrincipal) {
    if (p.anyone) return false;
    return !(deny.principals[p.type] ?? []).includes(p.value);
  }
  if (p.anyone) return listed(deny, "AWS").includes("*");
  return names(listed(deny, p.type));
}

/**
 * The principals that a trust or resource policy admits: those its `Allow`
 * statements name (an `Allow` with `NotPrincipal` admits anyone, with the
 * named ones in `except`), less those an unconditional `Deny` covering the
 * `Allow`'s actions and resources refuses (see the module notes on what
 * "covers" means). A `Deny` with `NotPrincipal` leaves anyone admitted only
 * as the principals it lists. A conditional `Deny` removes nothing; one that
 * refuses every caller but named ones marks the grants it covers conditional.
 */
export function trustedPrincipals(statements: readonly PolicyStatement[]): TrustedPrincipal[] {
  return admissions(statements).map((a) => a.principal);
}

/** A principal a trust or resource policy admits, and the `Allow` that admits it. */
export interface Admission {
  principal: TrustedPrincipal;
  allow: PolicyStatement;
}

/** {@linkcode trustedPrincipals}, each with the `Allow` statement that admits it. */
export function admissions(statements: readonly PolicyStatement[]): Admission[] {
  const denies = statements.filter((s) => s.effect === "Deny");
  const out: Admission[] = [];
  const admit = (p: TrustedPrincipal, allow: PolicyStatement, depth: number): void => {
    for (const d of denies) {
      if (!denyCoversStatement(d, allow)) continue;
      if (d.conditional) {
        if (d.limitsCaller && (d.notPrincipal ? false : denyCoversPrincipal(d, p))) {
          p = { ...p, conditional: true };
        }
        continue;
      }
      if (d.notPrincipal && p.anyone && depth === 0) {
        // Everyone but the principals the Deny lists is refused: those stay admitted.
        for (const [type, values] of Object.entries(d.principals)) {
          for (const value of values) {
            if (value === "*" || p.except?.includes(value)) continue;
            admit(named(type, value, allow), allow, depth + 1);
          }
        }
        return;
      }
      if (denyCoversPrincipal(d, p)) return;
    }
    out.push({ principal: p, allow });
  };
  const named = (type: string, value: string, s: PolicyStatement): TrustedPrincipal => {
    const anyone = value === "*";
    return {
      type,
      value,
      anyone,
      account: type === "AWS" ? principalAccount(value) : null,
      conditional: anyone ? s.limitsCaller : s.conditional,
    };
  };
  for (const s of statements) {
    if (s.effect !== "Allow") continue;
    if (s.notPrincipal) {
      const except = Object.values(s.principals).flat();
      if (except.includes("*")) continue;
      admit({ ...named("*", "*", s), except }, s, 0);
      continue;
    }
    for (const [type, values] of Object.entries(s.principals)) {
      for (const value of values) admit(named(type, value, s), s, 0);
    }
  }
  return out;
}

/**
 * Whether a principal's own (identity) statements refuse everything a resource policy's `Allow`
 * grants it: each action the `Allow` names is covered by an unconditional `Deny` that covers
 * every resource the `Allow` names (`resource`, the ARN the policy sits on, when it names none).
 * An explicit `Deny` in any policy that applies overrides an `Allow` in a resource policy. A
 * `NotAction` `Allow` is refused only by a `Deny` of every action; conditional `Deny`s refuse
 * nothing here.
 */
export function identityRefuses(
  identity: readonly PolicyStatement[],
  allow: PolicyStatement,
  resource: string | null,
): boolean {
  const denies = identity.filter((s) => s.effect === "Deny" && !s.conditional);
  if (denies.length === 0) return false;
  const resources = allow.resources.length > 0 ? allow.resources : resource === null ? null : [
    resource,
  ];
  const coversResources = (d: PolicyStatement): boolean =>
    resources === null
      ? denyCoversResource(d, null)
      : resources.every((r) => denyCoversResource(d, r));
  const actions = allow.actions.length > 0 && allow.notActions.length === 0 ? allow.actions : ["*"];
  return actions.every((a) =>
    denies.some((d) => denyCoversActionPattern(d, a) && coversResources(d))
  );
}

/** Whether a resource policy lets anyone (principal `*`) act without a condition limiting the caller. */
export function allowsAnyone(statements: readonly PolicyStatement[]): boolean {
  return trustedPrincipals(statements).some((p) => p.anyone && !p.conditional);
}

/** The service prefix of an ARN (`s3` of `arn:aws:s3:::b`), or null. */
export function arnService(arn: string): string | null {
  const parts = arn.split(":");
  return parts[0] === "arn" && parts.length >= 6 ? (parts[2] ?? null) : null;
}

/** Whether an action pattern can name an action of `service` (`*`, `s3:*`, `s3:Get*`, `S3:GetObject`). */
function patternInService(pattern: string, service: string): boolean {
  if (pattern === "*") return true;
  const prefix = pattern.split(":")[0] ?? "";
  return wildcardMatch(prefix, service, { ignoreCase: true });
}

/** Whether a statement's action clause reaches some action of a service. */
export function statementReachesService(s: PolicyStatement, service: string): boolean {
  if (s.actions.length > 0) return s.actions.some((p) => patternInService(p, service));
  if (s.notActions.length > 0) {
    return !s.notActions.some((p) =>
      p === "*" || wildcardMatch(p, `${service}:*`, { ignoreCase: true }) && p.endsWith(":*")
    );
  }
  return false;
}

function resourceMatches(patterns: readonly string[], arn: string): boolean {
  return patterns.some((p) => wildcardMatch(p, arn) || wildcardMatch(p, `${arn}/*`));
}

/** What identity statements grant on one resource ARN. */
export interface ResourceGrant {
  granted: boolean;
  /** Every granting statement had a condition. */
  conditional: boolean;
  /** The action patterns of the granting statements that reach the resource's service. */
  actions: string[];
  /** Every granting statement named the resource only through `*` (or `NotResource`). */
  wildcardOnly: boolean;
}

/**
 * Whether the statements grant some action of the resource's service on the
 * resource (`Resource` patterns, also matching objects under a bucket), less
 * what unconditional `Deny`s take away: a `Deny` covering the resource (and
 * its objects, where the `Allow` reaches them) removes the action patterns it
 * covers, and a `NotAction` `Deny` leaves only the actions it lists. The
 * reported actions are what is left of the granting patterns (an `Allow` of
 * `*`, or with `NotAction`, counts as the whole service).
 */
export function grantsOnResource(
  statements: readonly PolicyStatement[],
  arn: string,
): ResourceGrant {
  const service = arnService(arn);
  if (!service) return { granted: false, conditional: false, actions: [], wildcardOnly: false };
  const denies = statements.filter((s) => s.effect === "Deny" && !s.conditional);
  const objects = `${arn}/*`;
  const actions: string[] = [];
  let granted = false;
  let unconditional = false;
  let specific = false;
  for (const s of statements) {
    if (s.effect !== "Allow" || !statementReachesService(s, service)) continue;
    // What of the resource the statement reaches: the resource itself, its objects (a bucket's;
    // other services' sub-resources are not told apart), or both.
    let reached = s.resources.length > 0
      ? [arn, objects].filter((r) => s.resources.some((p) => wildcardMatch(p, r)))
      : s.notResources.length > 0 && !resourceMatches(s.notResources, arn)
      ? [arn, objects]
      : [];
    if (service !== "s3" && reached.includes(arn)) reached = [arn];
    if (reached.length === 0) continue;
    const applicable = denies.filter((d) => reached.every((r) => denyCoversResource(d, r)));
    const whole = `${service}:*`;
    let left = s.actions.length > 0
      ? s.actions.filter((p) => patternInService(p, service)).map((p) =>
        p === "*" || p === "*:*" ? whole : p
      )
      : [whole];
    for (const d of applicable) left = [...new Set(left.flatMap((a) => actionsLeft(a, d)))];
    if (left.length === 0) continue;
    granted = true;
    if (!s.conditional) unconditional = true;
    if (s.resources.some((r) => r !== "*")) specific = true;
    // As written when no Deny applies; else what the Denies leave.
    const shown = applicable.length > 0
      ? left
      : s.actions.length > 0
      ? s.actions.filter((p) => patternInService(p, service))
      : [`NotAction:${s.notActions.join(",")}`];
    for (const a of shown) if (!actions.includes(a)) actions.push(a);
  }
  return {
    granted,
    conditional: granted && !unconditional,
    actions,
    wildcardOnly: granted && !specific,
  };
}

/**
 * What of an identity grant on resource `arn` a permissions boundary lets through: the boundary
 * must grant on the resource too, and of each pair of granted action patterns (the identity's,
 * the boundary's) the narrower one is kept where one covers the other (`s3:*` and
 * `s3:GetObject` give `s3:GetObject`), and where neither does, the patterns of the actions both
 * match (`s3:Get*` and `s3:*Object` give `s3:Get*Object`; see
 * {@linkcode intersectActionPatterns}). An identity `NotAction` grant counts as its whole
 * service. Conditional when either is. When both name so many patterns that their pairs pass
 * {@linkcode MAX_BOUNDARY_PAIRS}, the identity's grant is kept, marked conditional.
 */
export function withinBoundary(
  grant: ResourceGrant,
  boundary: readonly PolicyStatement[],
  arn: string,
): ResourceGrant {
  const none = { granted: false, conditional: false, actions: [], wildcardOnly: false };
  if (!grant.granted) return grant;
  const cap = grantsOnResource(boundary, arn);
  if (!cap.granted) return none;
  const service = arnService(arn) ?? "*";
  const whole = (p: string): string => p.startsWith("NotAction:") ? `${service}:*` : p;
  // Past this many pairs the grant is kept as the identity's, conditional: overstated, not hidden.
  if (grant.actions.length * cap.actions.length > MAX_BOUNDARY_PAIRS) {
    return { ...grant, conditional: true };
  }
  const actions: string[] = [];
  let overstated = false;
  for (const a of grant.actions.map(whole)) {
    for (const b of cap.actions.map(whole)) {
      let kept = actionPatternCovers(a, b) ? [b] : actionPatternCovers(b, a) ? [a] : null;
      if (kept === null) {
        kept = intersectActionPatterns(a, b);
        // Too many patterns to say exactly: the identity's, conditional (overstated, not hidden).
        if (kept === null) {
          kept = [a];
          overstated = true;
        }
      }
      for (const k of kept) if (!actions.includes(k)) actions.push(k);
    }
  }
  if (actions.length === 0) return none;
  return {
    granted: true,
    conditional: grant.conditional || cap.conditional || overstated,
    actions,
    wildcardOnly: grant.wildcardOnly,
  };
}

/** Most patterns {@linkcode intersectActionPatterns} writes for one pair. */
const MAX_INTERSECTION_PATTERNS = 16;

/**
 * Action patterns (`*` any run of characters, `?` any one) that together match exactly the
 * actions both `a` and `b` match, compared without case as IAM compares actions: `s3:Get*` and
 * `s3:*Object` give `s3:Get*Object`; none when no action matches both; null when saying it takes
 * more than {@linkcode MAX_INTERSECTION_PATTERNS} patterns.
 */
export function intersectActionPatterns(a: string, b: string): string[] | null {
  // The intersection of a[i:] and b[j:], by (i, j): a star either ends here, or takes a
  // character and stays; two stars give a star before what either ending leaves.
  const memo = new Map<number, string[] | null>();
  const width = b.length + 1;
  const join = (head: string, tails: readonly string[], into: Set<string>): void => {
    for (const tail of tails) into.add(head === "*" && tail.startsWith("*") ? tail : head + tail);
  };
  const rest = (i: number, j: number): string[] | null => {
    const key = i * width + j;
    if (memo.has(key)) return memo.get(key)!;
    let out: Set<string> | null = new Set();
    if (i === a.length || j === b.length) {
      const left = i === a.length ? b.slice(j) : a.slice(i);
      // What is left of the other must match the empty string: only its stars can.
      if (/^\**$/.test(left)) out.add("");
    } else {
      const ca = a[i]!;
      const cb = b[j]!;
      const parts: [string, string[] | null][] = [];
      if (ca === "*" && cb === "*") {
        parts.push(["*", rest(i + 1, j)], ["*", rest(i, j + 1)]);
      } else if (ca === "*") {
        parts.push(["", rest(i + 1, j)], [cb, rest(i, j + 1)]);
      } else if (cb === "*") {
        parts.push(["", rest(i, j + 1)], [ca, rest(i + 1, j)]);
      } else if (ca === "?" || cb === "?" || ca.toLowerCase() === cb.toLowerCase()) {
        parts.push([ca === "?" ? cb : ca, rest(i + 1, j + 1)]);
      }
      for (const [head, tails] of parts) {
        if (tails === null) {
          out = null;
          break;
        }
        join(head, tails, out);
      }
      if (out !== null && out.size > MAX_INTERSECTION_PATTERNS) out = null;
    }
    const result = out === null ? null : [...out];
    memo.set(key, result);
    return result;
  };
  return rest(0, 0);
}

/** Most action-pattern pairs {@linkcode withinBoundary} compares for one grant. */
const MAX_BOUNDARY_PAIRS = 4096;

/** Whether action pattern `outer` matches every action `inner` does (its wildcards taken as text). */
function actionPatternCovers(outer: string, inner: string): boolean {
  const plain = (p: string): string => p === "*" ? "*:*" : p;
  return wildcardMatch(plain(outer), plain(inner), { ignoreCase: true });
}

/**
 * Whether `statements` (a principal's identity policies, or its permissions boundary) allow some
 * of what a resource policy's `Allow` grants on resource `arn`: the other side a cross-account
 * grant needs, or the cap a boundary puts on a role (see {@linkcode withinBoundary}).
 */
export function allowsSomeOf(
  statements: readonly PolicyStatement[],
  allow: PolicyStatement,
  arn: string,
): boolean {
  const granted: ResourceGrant = {
    granted: true,
    conditional: false,
    actions: allow.actions.length > 0 && allow.notActions.length === 0
      ? allow.actions
      : [`NotAction:${allow.notActions.join(",")}`],
    wildcardOnly: false,
  };
  return withinBoundary(granted, statements, arn).granted;
}
