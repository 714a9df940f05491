/**
 * Policy documents: YAML or JSON files (or built-in profile names) that
 * configure access, rate limits, transforms and the pseudonym vault.
 * Unknown keys are rejected with their path; `extends` chains merge by the
 * documented rules (scalars child-wins, mappings deep-merged, `deny_*` lists
 * unioned, rules/detectors/limits concatenated parent first, transforms and
 * `allow_*` lists replaced).
 *
 * @module
 */

// js-yaml rather than yaml: yaml reads LOG_TOKENS/LOG_STREAM from the environment while
// parsing, which a server run with a narrow --allow-env refuses.
import { JSON_SCHEMA, load as loadYaml } from "js-yaml";
import { BUILTIN_PROFILES, profileName } from "./profiles.ts";

/** A policy document that is malformed or cannot be loaded. */
export class PolicyDocumentError extends Error {
  /** Makes a document error with a sentence saying what was wrong. */
  constructor(message: string) {
    super(message);
    this.name = "PolicyDocumentError";
  }
}

/** The primitive kinds a rule or limit may match. */
export const MATCH_KINDS = [
  "tool",
  "resource",
  "resource_template",
  "prompt",
  "completion",
] as const;

/** Sensitivities in ascending order. */
export const SENSITIVITIES = ["public", "internal", "confidential", "restricted"] as const;

/** Capabilities a primitive may declare. */
export const CAPABILITIES = [
  "read_state",
  "write_state",
  "read_fs",
  "write_fs",
  "cloud_access",
  "exec",
  "reveal",
] as const;

/** One capability. */
export type Capability = typeof CAPABILITIES[number];

/** Access fields shared by the policy and its rules. */
export interface AccessFields {
  allow_tools?: string[] | null;
  deny_tools?: string[];
  allow_resources?: string[] | null;
  deny_resources?: string[];
  allow_prompts?: string[] | null;
  deny_prompts?: string[];
  allow_categories?: string[] | null;
  deny_categories?: string[];
  allow_capabilities?: string[];
  deny_capabilities?: string[];
  max_sensitivity?: string | null;
}

/** One transform step: a type name or `{type, ...options}`. */
export type TransformStep = string | ({ type: string; id?: string } & Record<string, unknown>);

/** A token-bucket limit. */
export interface RateLimitSpec {
  rate: number;
  per?: "second" | "minute" | "hour" | "day";
  burst?: number;
  scope?: "principal" | "tool" | "principal_tool" | "global";
  tools?: string[];
  kinds?: string[];
}

/** What a rule matches. */
export interface RuleMatch {
  roles?: string[];
  principals?: string[];
  names?: string[];
  categories?: string[];
  tags?: string[];
  kinds?: string[];
  sensitivity?: string[];
  capabilities?: string[];
}

/** A rule: access fields applied when `match` holds. */
export interface PolicyRuleSpec extends AccessFields {
  name?: string;
  description?: string;
  match?: RuleMatch;
  transforms?: TransformStep[];
  transforms_mode?: "append" | "prepend" | "replace";
  transform_options?: Record<string, Record<string, unknown>>;
  input_transforms?: TransformStep[];
  rate_limits?: RateLimitSpec[];
  honor_hints?: boolean;
}

/** The vault's settings. */
export interface VaultSpec {
  key?: string;
  key_env?: string;
  scope?: "global" | "principal";
  ttl_seconds?: number | null;
  path?: string | null;
  autosave?: boolean;
  encrypt?: boolean;
}

/** A custom detector. */
export interface DetectorSpec {
  name: string;
  pattern: string;
  entity?: string;
  category?: string;
  confidence?: number;
}

/** A bearer token configured in the policy. */
export interface TokenSpec {
  token?: string;
  token_env?: string;
  principal?: string;
  roles?: string[];
}

/** A policy document (after `extends` is resolved, `extends` is gone). */
export interface PolicyDocument extends AccessFields {
  name?: string;
  description?: string;
  extends?: string;
  hide_denied?: boolean;
  honor_hints?: boolean;
  audit?: boolean;
  audit_size?: number;
  transforms?: TransformStep[];
  input_transforms?: TransformStep[];
  transform_options?: Record<string, Record<string, unknown>>;
  detectors?: DetectorSpec[];
  disabled_detectors?: string[];
  roles?: Record<string, PolicyRuleSpec>;
  rules?: PolicyRuleSpec[];
  rate_limits?: RateLimitSpec[];
  vault?: VaultSpec;
  tokens?: TokenSpec[];
}

const ACCESS_KEYS = [
  "allow_tools",
  "deny_tools",
  "allow_resources",
  "deny_resources",
  "allow_prompts",
  "deny_prompts",
  "allow_categories",
  "deny_categories",
  "allow_capabilities",
  "deny_capabilities",
  "max_sensitivity",
];
const TOP_KEYS = new Set([
  "name",
  "description",
  "extends",
  "hide_denied",
  "honor_hints",
  "audit",
  "audit_size",
  "transforms",
  "input_transforms",
  "transform_options",
  "detectors",
  "disabled_detectors",
  "roles",
  "rules",
  "rate_limits",
  "vault",
  "tokens",
  ...ACCESS_KEYS,
]);
const RULE_KEYS = new Set([
  "name",
  "description",
  "match",
  "transforms",
  "transforms_mode",
  "transform_options",
  "input_transforms",
  "rate_limits",
  "honor_hints",
  ...ACCESS_KEYS,
]);
const MATCH_KEYS = new Set([
  "roles",
  "principals",
  "names",
  "categories",
  "tags",
  "kinds",
  "sensitivity",
  "capabilities",
]);
const LIMIT_KEYS = new Set(["rate", "per", "burst", "scope", "tools", "kinds"]);
const VAULT_KEYS = new Set([
  "key",
  "key_env",
  "scope",
  "ttl_seconds",
  "path",
  "autosave",
  "encrypt",
]);
const DETECTOR_KEYS = new Set(["name", "pattern", "entity", "category", "confidence"]);
const TOKEN_KEYS = new Set(["token", "token_env", "principal", "roles"]);

type Plain = Record<string, unknown>;

function isPlain(value: unknown): value is Plain {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function fail(path: string, what: string): never {
  throw new PolicyDocumentError(`Policy key ${path} ${what}.`);
}

function checkKeys(value: unknown, allowed: ReadonlySet<string>, path: string): Plain {
  if (!isPlain(value)) fail(path, "must be a mapping");
  for (const key of Object.keys(value)) {
    if (!allowed.has(key)) {
      throw new PolicyDocumentError(
        `Unknown policy key ${path === "" ? key : `${path}.${key}`}; accepted here: ${
          [...allowed].join(", ")
        }.`,
      );
    }
  }
  return value;
}

function checkStringList(value: unknown, path: string, nullable = false): void {
  if (value === undefined || (nullable && value === null)) return;
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string")) {
    fail(path, "must be a list of strings");
  }
}

function checkAccess(value: Plain, path: string): void {
  for (const key of ACCESS_KEYS) {
    if (key === "max_sensitivity") {
      const s = value[key];
      if (
        s !== undefined && s !== null && !(SENSITIVITIES as readonly string[]).includes(s as string)
      ) {
        fail(`${path}${key}`, `must be one of ${SENSITIVITIES.join(", ")}`);
      }
    } else checkStringList(value[key], `${path}${key}`, key.startsWith("allow_"));
  }
  for (const key of ["allow_capabilities", "deny_capabilities"]) {
    for (const cap of (value[key] as string[] | undefined) ?? []) {
      if (!(CAPABILITIES as readonly string[]).includes(cap)) {
        fail(
          `${path}${key}`,
          `names unknown capability ${JSON.stringify(cap)} (known: ${CAPABILITIES.join(", ")})`,
        );
      }
    }
  }
}

function checkTransforms(value: unknown, path: string): void {
  if (value === undefined) return;
  if (!Array.isArray(value)) fail(path, "must be a list of transform steps");
  value.forEach((step, i) => {
    if (typeof step === "string") return;
    if (!isPlain(step) || typeof step.type !== "string") {
      fail(`${path}[${i}]`, "must be a transform name or a mapping with a type");
    }
  });
}

function checkLimits(value: unknown, path: string): void {
  if (value === undefined) return;
  if (!Array.isArray(value)) fail(path, "must be a list of limits");
  value.forEach((limit, i) => {
    const at = `${path}[${i}]`;
    const l = checkKeys(limit, LIMIT_KEYS, at);
    if (typeof l.rate !== "number" || !(l.rate > 0)) fail(`${at}.rate`, "must be a number above 0");
    if (l.per !== undefined && !["second", "minute", "hour", "day"].includes(l.per as string)) {
      fail(`${at}.per`, "must be second, minute, hour or day");
    }
    if (l.burst !== undefined && (!Number.isInteger(l.burst) || (l.burst as number) < 1)) {
      fail(`${at}.burst`, "must be an integer of at least 1");
    }
    if (
      l.scope !== undefined &&
      !["principal", "tool", "principal_tool", "global"].includes(l.scope as string)
    ) fail(`${at}.scope`, "must be principal, tool, principal_tool or global");
    checkStringList(l.tools, `${at}.tools`);
    checkStringList(l.kinds, `${at}.kinds`);
  });
}

function checkRule(value: unknown, path: string): void {
  const rule = checkKeys(value, RULE_KEYS, path);
  checkAccess(rule, `${path}.`);
  if (rule.match !== undefined) {
    const match = checkKeys(rule.match, MATCH_KEYS, `${path}.match`);
    for (const key of MATCH_KEYS) checkStringList(match[key], `${path}.match.${key}`);
  }
  checkTransforms(rule.transforms, `${path}.transforms`);
  checkTransforms(rule.input_transforms, `${path}.input_transforms`);
  checkLimits(rule.rate_limits, `${path}.rate_limits`);
  if (
    rule.transforms_mode !== undefined &&
    !["append", "prepend", "replace"].includes(rule.transforms_mode as string)
  ) fail(`${path}.transforms_mode`, "must be append, prepend or replace");
}

/**
 * Checks a raw document (one level, before `extends` is resolved) and returns
 * it typed. Throws PolicyDocumentError naming the first bad key's path.
 */
export function validateDocument(raw: unknown): PolicyDocument {
  const doc = isPlain(raw) && Object.keys(raw).length === 1 && isPlain(raw.policy)
    ? raw.policy
    : raw;
  const top = checkKeys(doc, TOP_KEYS, "");
  checkAccess(top, "");
  for (const key of ["hide_denied", "honor_hints", "audit"]) {
    if (top[key] !== undefined && typeof top[key] !== "boolean") fail(key, "must be true or false");
  }
  if (
    top.audit_size !== undefined &&
    (!Number.isInteger(top.audit_size) || (top.audit_size as number) < 1)
  ) {
    fail("audit_size", "must be an integer of at least 1");
  }
  checkTransforms(top.transforms, "transforms");
  checkTransforms(top.input_transforms, "input_transforms");
  checkLimits(top.rate_limits, "rate_limits");
  checkStringList(top.disabled_detectors, "disabled_detectors");
  if (top.rules !== undefined) {
    if (!Array.isArray(top.rules)) fail("rules", "must be a list of rules");
    top.rules.forEach((rule, i) => checkRule(rule, `rules[${i}]`));
  }
  if (top.roles !== undefined) {
    const roles = isPlain(top.roles)
      ? top.roles
      : fail("roles", "must be a mapping of role to rule");
    for (const [role, rule] of Object.entries(roles)) checkRule(rule, `roles.${role}`);
  }
  if (top.vault !== undefined) checkKeys(top.vault, VAULT_KEYS, "vault");
  if (top.detectors !== undefined) {
    if (!Array.isArray(top.detectors)) fail("detectors", "must be a list of detectors");
    top.detectors.forEach((d, i) => {
      const det = checkKeys(d, DETECTOR_KEYS, `detectors[${i}]`);
      if (typeof det.name !== "string" || typeof det.pattern !== "string") {
        fail(`detectors[${i}]`, "needs a name and a pattern");
      }
      try {
        new RegExp(det.pattern as string);
      } catch {
        fail(`detectors[${i}].pattern`, "is not a valid regular expression");
      }
    });
  }
  if (top.tokens !== undefined) {
    if (!Array.isArray(top.tokens)) fail("tokens", "must be a list of tokens");
    top.tokens.forEach((t, i) => {
      const tok = checkKeys(t, TOKEN_KEYS, `tokens[${i}]`);
      if (typeof tok.token !== "string" && typeof tok.token_env !== "string") {
        fail(`tokens[${i}]`, "needs token or token_env");
      }
      checkStringList(tok.roles, `tokens[${i}].roles`);
    });
  }
  if (top.extends !== undefined && typeof top.extends !== "string") {
    fail("extends", "must be a profile name or a file path");
  }
  return structuredClone(top) as PolicyDocument;
}

function deepMerge(parent: Plain, child: Plain): Plain {
  const out: Plain = { ...parent };
  for (const [key, value] of Object.entries(child)) {
    const before = out[key];
    out[key] = isPlain(before) && isPlain(value) ? deepMerge(before, value) : value;
  }
  return out;
}

const CONCATENATED = new Set(["rules", "detectors", "rate_limits", "disabled_detectors", "tokens"]);

/** Merges a child document over its parent by the `extends` rules. */
export function mergeDocuments(parent: PolicyDocument, child: PolicyDocument): PolicyDocument {
  const out: Plain = { ...(parent as Plain) };
  for (const [key, value] of Object.entries(child as Plain)) {
    if (key === "extends") continue;
    const before = out[key];
    if (key.startsWith("deny_") && Array.isArray(before) && Array.isArray(value)) {
      out[key] = [...new Set([...before, ...value])];
    } else if (CONCATENATED.has(key) && Array.isArray(before) && Array.isArray(value)) {
      out[key] = [...before, ...value];
    } else if (isPlain(before) && isPlain(value)) {
      out[key] = deepMerge(before, value);
    } else out[key] = value;
  }
  if (child.name === undefined) out.name = `custom(${parent.name ?? "policy"})`;
  // A policy-level allow_capabilities removes them from the inherited denied set.
  const allowed = new Set(child.allow_capabilities ?? []);
  if (allowed.size > 0 && Array.isArray(out.deny_capabilities)) {
    out.deny_capabilities = (out.deny_capabilities as string[]).filter((c) => !allowed.has(c));
  }
  delete out.extends;
  return out as PolicyDocument;
}

/** How a document names files it extends. */
export interface LoadOptions {
  /** Reads a file's text. @default Deno.readTextFileSync */
  readFile?: (path: string) => string;
  /** The directory relative `extends` paths resolve against. @default the current directory */
  baseDir?: string;
}

function parseText(text: string, source: string): unknown {
  try {
    return source.endsWith(".json") || text.trimStart().startsWith("{")
      ? JSON.parse(text)
      : loadYaml(text, { schema: JSON_SCHEMA });
  } catch (error) {
    throw new PolicyDocumentError(
      `Policy ${source} is not valid ${source.endsWith(".json") ? "JSON" : "YAML"}: ${
        (error as Error).message.split("\n")[0]
      }`,
    );
  }
}

/**
 * Resolves a policy by profile name (hyphen and underscore alike), file path
 * (.yaml, .yml, .json), inline JSON (starting with `{`) or a mapping, and
 * follows its `extends` chain. Cycles are rejected.
 */
export function loadPolicy(
  spec: string | Record<string, unknown>,
  options: LoadOptions = {},
): PolicyDocument {
  return resolve(spec, options, []);
}

function resolve(
  spec: string | Record<string, unknown>,
  options: LoadOptions,
  chain: string[],
): PolicyDocument {
  let raw: unknown;
  let id: string;
  let baseDir = options.baseDir ?? ".";
  if (typeof spec !== "string") {
    raw = spec;
    id = "(inline)";
  } else if (spec.trimStart().startsWith("{")) {
    raw = parseText(spec, "(inline JSON)");
    id = "(inline JSON)";
  } else if (BUILTIN_PROFILES[profileName(spec)] !== undefined) {
    id = `profile:${profileName(spec)}`;
    raw = BUILTIN_PROFILES[profileName(spec)];
  } else if (/\.(ya?ml|json)$/i.test(spec)) {
    const path = spec.startsWith("/") ? spec : `${baseDir}/${spec}`;
    id = path;
    let text: string;
    try {
      text = (options.readFile ?? Deno.readTextFileSync)(path);
    } catch (error) {
      throw new PolicyDocumentError(
        `Policy file ${spec} cannot be read (${(error as Error).name}); give a built-in profile (${
          Object.keys(BUILTIN_PROFILES).join(", ")
        }) or a readable .yaml, .yml or .json file.`,
      );
    }
    raw = parseText(text, spec);
    baseDir = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) || "/" : ".";
  } else {
    throw new PolicyDocumentError(
      `Unknown policy ${JSON.stringify(spec.slice(0, 80))}; give a built-in profile (${
        Object.keys(BUILTIN_PROFILES).join(", ")
      }), a .yaml/.yml/.json file or inline JSON.`,
    );
  }
  if (chain.includes(id)) {
    throw new PolicyDocumentError(`Policy extends itself: ${[...chain, id].join(" → ")}.`);
  }
  const doc = validateDocument(raw);
  if (doc.extends === undefined) return doc;
  const parent = resolve(doc.extends, { ...options, baseDir }, [...chain, id]);
  return mergeDocuments(parent, doc);
}
