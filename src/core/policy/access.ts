/**
 * Access decisions in the documented order: matching rules (roles first,
 * then `rules`); explicit denials in any matching rule; the sensitivity
 * ceiling; grants (a matching rule's allow lists, else the policy's deny and
 * allow lists); capabilities in the effective denied set, which only a
 * matching rule's `allow_capabilities` grants.
 *
 * @module
 */

import type { AccessFields, PolicyDocument, PolicyRuleSpec } from "./document.ts";
import { SENSITIVITIES } from "./document.ts";

/** The primitive an access decision is about. */
export interface AccessSubject {
  /** `tool`, `resource`, `resource_template` or `prompt`. */
  kind: "tool" | "resource" | "resource_template" | "prompt";
  /** Tool or prompt name, resource URI or template string. */
  name: string;
  /** More names the resource lists match (the concrete URI, raw and decoded). */
  aliases?: readonly string[];
  category?: string;
  sensitivity: string;
  capabilities: readonly string[];
  tags?: readonly string[];
}

/** Who asks, as the policy sees it. */
export interface AccessPrincipal {
  id: string;
  roles: readonly string[];
}

/** A decision. */
export interface AccessDecision {
  allowed: boolean;
  /** Why it was denied. */
  reason?: string;
  /** The rule that decided, when one did. */
  rule?: string;
}

/** A rule with its name resolved. */
export interface NamedRule extends PolicyRuleSpec {
  name: string;
}

const globCache = new Map<string, RegExp>();

/** Whether `text` matches a glob (`*` any run, `?` one character). */
export function globMatch(glob: string, text: string): boolean {
  let regex = globCache.get(glob);
  if (!regex) {
    regex = new RegExp(
      "^" + glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replaceAll("*", ".*").replaceAll("?", ".") +
        "$",
    );
    globCache.set(glob, regex);
  }
  return regex.test(text);
}

/** Whether any of `names` matches a glob list with `!` negations. */
export function listMatches(globs: readonly string[], names: readonly string[]): boolean {
  const positive = globs.filter((g) => !g.startsWith("!"));
  const negative = globs.filter((g) => g.startsWith("!")).map((g) => g.slice(1));
  const pos = positive.length === 0 && negative.length > 0 ? ["*"] : positive;
  return names.some((name) =>
    pos.some((g) => globMatch(g, name)) && !negative.some((g) => globMatch(g, name))
  );
}

/** The rules of a policy in decision order: its roles (role prepended to match.roles), then rules. */
export function orderedRules(policy: PolicyDocument): NamedRule[] {
  const roles = Object.entries(policy.roles ?? {}).map(([role, rule]) => ({
    ...rule,
    name: rule.name ?? `role:${role}`,
    match: { ...(rule.match ?? {}), roles: [role, ...(rule.match?.roles ?? [])] },
  }));
  const rules = (policy.rules ?? []).map((rule, i) => ({
    ...rule,
    name: rule.name ?? `rule[${i}]`,
  }));
  return [...roles, ...rules];
}

function familyKeys(
  kind: AccessSubject["kind"],
): [
  "allow_tools" | "allow_resources" | "allow_prompts",
  "deny_tools" | "deny_resources" | "deny_prompts",
] {
  if (kind === "tool") return ["allow_tools", "deny_tools"];
  if (kind === "prompt") return ["allow_prompts", "deny_prompts"];
  return ["allow_resources", "deny_resources"];
}

/** Whether a rule's `match` holds for a subject and principal. */
export function ruleMatches(
  rule: PolicyRuleSpec,
  subject: AccessSubject,
  principal: AccessPrincipal,
): boolean {
  const m = rule.match ?? {};
  if (m.roles && !m.roles.includes("*") && !m.roles.some((r) => principal.roles.includes(r))) {
    return false;
  }
  if (m.principals && !listMatches(m.principals, [principal.id])) return false;
  if (m.names && !listMatches(m.names, [subject.name, ...(subject.aliases ?? [])])) return false;
  if (m.categories && !listMatches(m.categories, [subject.category ?? ""])) return false;
  if (m.tags && !m.tags.some((t) => subject.tags?.includes(t))) return false;
  if (m.kinds) {
    const kinds = m.kinds.map((k) => (k === "resource" ? ["resource", "resource_template"] : [k]))
      .flat();
    if (!kinds.includes(subject.kind)) return false;
  }
  if (m.sensitivity && !m.sensitivity.includes(subject.sensitivity)) return false;
  if (m.capabilities && !m.capabilities.some((c) => subject.capabilities.includes(c))) {
    return false;
  }
  return true;
}

function rank(sensitivity: string | null | undefined): number {
  return sensitivity ? (SENSITIVITIES as readonly string[]).indexOf(sensitivity) : -1;
}

/** Decides access for one subject and principal. */
export function decideAccess(
  policy: PolicyDocument,
  rules: readonly NamedRule[],
  subject: AccessSubject,
  principal: AccessPrincipal,
): AccessDecision {
  const matching = rules.filter((rule) => ruleMatches(rule, subject, principal));
  const [allowKey, denyKey] = familyKeys(subject.kind);
  const names = [subject.name, ...(subject.aliases ?? [])];
  const category = [subject.category ?? ""];
  const deniedBy = (fields: AccessFields): string | null => {
    if (fields[denyKey] && listMatches(fields[denyKey]!, names)) return `${denyKey}`;
    if (fields.deny_categories && listMatches(fields.deny_categories, category)) {
      return "deny_categories";
    }
    return null;
  };
  // 2. Explicit denials in matching rules; nothing overrides them.
  for (const rule of matching) {
    const why = deniedBy(rule);
    if (why) return { allowed: false, reason: `denied by ${why}`, rule: rule.name };
    const caps = rule.deny_capabilities?.filter((c) => subject.capabilities.includes(c)) ?? [];
    if (caps.length > 0) {
      return { allowed: false, reason: `capability ${caps.join(", ")} denied`, rule: rule.name };
    }
  }
  // 3. Sensitivity ceiling.
  const ceilings = matching.map((r) => rank(r.max_sensitivity)).filter((r) => r >= 0);
  const ceiling = ceilings.length > 0 ? Math.max(...ceilings) : rank(policy.max_sensitivity);
  if (ceiling >= 0 && rank(subject.sensitivity) > ceiling) {
    return {
      allowed: false,
      reason: `sensitivity ${subject.sensitivity} above the ceiling ${SENSITIVITIES[ceiling]}`,
    };
  }
  // 4. Grants.
  const granted = matching.some((rule) =>
    (rule[allowKey] && listMatches(rule[allowKey]!, names)) ||
    (rule.allow_categories && listMatches(rule.allow_categories, category))
  );
  if (!granted) {
    const why = deniedBy(policy);
    if (why) return { allowed: false, reason: `denied by policy ${why}` };
    const allow = policy[allowKey];
    if (allow !== undefined && allow !== null && !listMatches(allow, names)) {
      return { allowed: false, reason: `not in policy ${allowKey}` };
    }
    const allowCats = policy.allow_categories;
    if (allowCats !== undefined && allowCats !== null && !listMatches(allowCats, category)) {
      return { allowed: false, reason: "category not in policy allow_categories" };
    }
  }
  // 5. Capabilities in the effective denied set need a matching rule's grant.
  for (const capability of subject.capabilities) {
    if (!(policy.deny_capabilities ?? []).includes(capability)) continue;
    const grant = matching.some((rule) => rule.allow_capabilities?.includes(capability));
    if (!grant) return { allowed: false, reason: `capability ${capability} denied` };
  }
  return { allowed: true };
}
