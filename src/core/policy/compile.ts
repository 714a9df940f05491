/**
 * `compilePolicy`: turns a resolved policy document into the gate's hooks
 * (access rules with rate limits and the decision log, visibility rules,
 * input transforms that guard secrets and reverse pseudonyms, output
 * transforms that sanitize, redact, project and annotate), plus the state
 * the privacy tools read (vault, log, buckets).
 *
 * @module
 */

import type {
  PolicyInputTransform,
  PolicyRequest,
  PolicyRule,
  PolicyTransform,
  PolicyVisibilityRule,
  Principal,
} from "../policy.ts";
import type { ToolEffects } from "../catalog.ts";
import { Buffer } from "node:buffer";
import { ToolFailure } from "../errors.ts";
import {
  type AccessDecision,
  type AccessPrincipal,
  type AccessSubject,
  decideAccess,
  type NamedRule,
  orderedRules,
  ruleMatches,
} from "./access.ts";
import { AuditLog } from "./audit.ts";
import { BUILTIN_DETECTORS, type Detector } from "./detectors.ts";
import type { PolicyDocument, TransformStep } from "./document.ts";
import { PolicyDocumentError } from "./document.ts";
import { type ProjectOptions, projector } from "./projection.ts";
import { fusedWalk, redactStage, sanitizeStage, type StringStage } from "./pipeline.ts";
import { TextCuts } from "./text_cut.ts";
import { limitApplies, type PlacedLimit, RateLimiter } from "./rate_limit.ts";
import { Redactor } from "./redaction.ts";
import { sanitizer, stripFences } from "./sanitize.ts";
import { PseudonymVault, type VaultKeySource } from "./vault.ts";
import { NameIndex } from "./names.ts";
import { VaultFile } from "./vault_file.ts";

/** The default environment variable holding the vault key. */
export const VAULT_KEY_ENV = "CASEFILE_VAULT_KEY";

/** Options of {@linkcode compilePolicy}. */
export interface CompileOptions {
  /** Reads an environment variable (for `vault.key_env`). @default none read */
  env?: (name: string) => string | undefined;
  /** The clock of the rate limiter, in milliseconds. @default performance.now */
  now?: () => number;
}

/** A compiled policy: the gate's hooks and the state behind them. */
export interface CompiledPolicy {
  /** The policy's name. */
  readonly name: string;
  /** The resolved document. */
  readonly document: PolicyDocument;
  /** Access rules (decision, rate limits, log). */
  readonly rules: PolicyRule[];
  /** Visibility rules (`hide_denied`). */
  readonly visibility: PolicyVisibilityRule[];
  /** Input transforms (secret guard, pseudonym reversal). */
  readonly inputTransforms: PolicyInputTransform[];
  /** Output transforms (empty for a policy without transforms). */
  readonly outputTransforms: PolicyTransform[];
  /** The pseudonym vault. */
  readonly vault: PseudonymVault;
  /** The names the workbenches know as identifiers (the server registers their sources). */
  readonly names: NameIndex;
  /** The decision log. */
  readonly audit: AuditLog;
  /** The token buckets. */
  readonly limiter: RateLimiter;
  /** Every declared limit. */
  readonly limits: readonly PlacedLimit[];
  /** The access decision for a request, without logging or rate limiting. */
  decide(request: PolicyRequest): AccessDecision;
  /** The roles the policy sees for a principal (its own plus `default`, and `local`). */
  rolesOf(principal: Principal | undefined): string[];
  /** Applies the output pipeline for a request to a value. */
  transform<T>(request: PolicyRequest, value: T): T;
  /** Reverses every pseudonym inside a value. */
  reverse<T>(value: T): T;
  /** The detectors the policy's redaction runs. */
  detectors(): readonly Detector[];
  /** Whether the output pipeline emits pseudonyms. */
  readonly pseudonymizes: boolean;
  /**
   * Leaves a tool's output out of the output pipeline (a tool whose result
   * already is a transformed sample, such as `preview_transform`).
   */
  exemptFromOutput(toolName: string): void;
  /** The vault's file when the policy persists it (`vault.path`), else null. */
  readonly vaultFile: VaultFile | null;
}

/** What `compilePolicy` needs to know about a tool's effects: its capabilities. */
export function capabilitiesOf(effects: ToolEffects): string[] {
  const caps = ["read_state"];
  if (effects.mutatesSession || effects.mutatesTarget) caps.push("write_state");
  if (effects.writesFilesystem) caps.push("write_fs");
  if (effects.accessesNetwork) caps.push("cloud_access");
  if (effects.launchesProcess) caps.push("exec");
  if (effects.reveals) caps.push("reveal");
  return caps;
}

/** The subject of a request for access decisions; null for requests the policy does not govern. */
export function subjectOf(request: PolicyRequest): AccessSubject | null {
  const base = {
    category: request.category,
    sensitivity: request.sensitivity ?? "internal",
    capabilities: capabilitiesOf(request.effects),
  };
  switch (request.kind) {
    case "tool":
      return { ...base, kind: "tool", name: request.name };
    case "prompt":
      return { ...base, kind: "prompt", name: request.name };
    case "template":
      return { ...base, kind: "resource_template", name: request.name };
    case "resource": {
      let decoded = request.name;
      try {
        decoded = decodeURIComponent(request.name);
      } catch { /* keep raw */ }
      return { ...base, kind: "resource", name: request.name, aliases: [decoded] };
    }
    case "completion": {
      const found = /^(prompt|resource):(.*)#[^#]*$/.exec(request.name);
      if (!found) return { ...base, kind: "prompt", name: request.name };
      return found[1] === "prompt"
        ? { ...base, kind: "prompt", name: found[2]! }
        : { ...base, kind: "resource_template", name: found[2]! };
    }
    case "effect":
      // A runtime effect of a tool (objdump launched by a provider, a snapshot written by
      // close_binary) is decided like a tool with those capabilities: a profile that denies
      // exec or write_fs refuses it even where the tool itself declared nothing.
      return { ...base, kind: "tool", name: request.name };
    default:
      return null;
  }
}

function stepOf(step: TransformStep): { type: string; options: Record<string, unknown> } {
  if (typeof step === "string") return { type: step, options: {} };
  const { type, ...options } = step;
  return { type, options };
}

const KNOWN_OUTPUT = new Set(["sanitize", "redact", "project", "annotate"]);
const KNOWN_INPUT = new Set(["guard_secrets", "depseudonymize"]);

/** Throws unless every step is one of `known`; `label` names the kind of step in the message. */
function checkSteps(
  steps: readonly TransformStep[],
  { known, label }: { known: ReadonlySet<string>; label: string },
): void {
  for (const step of steps) {
    if (!known.has(stepOf(step).type)) {
      throw new PolicyDocumentError(
        `${label} ${JSON.stringify(stepOf(step).type)} is not supported; use ${
          [...known].join(", ")
        }.`,
      );
    }
  }
}

/**
 * Compiles a resolved policy document. Throws PolicyDocumentError for a
 * transform type this build does not implement.
 */
export function compilePolicy(
  document: PolicyDocument,
  options: CompileOptions = {},
): CompiledPolicy {
  const name = document.name ?? "custom";
  const rules = orderedRules(document);
  const keyEnv = document.vault?.key_env ?? VAULT_KEY_ENV;
  const envKey = options.env?.(keyEnv);
  const key = document.vault?.key ?? (envKey || undefined);
  const keySource: VaultKeySource = document.vault?.key !== undefined
    ? "policy"
    : envKey
    ? "environment"
    : "random";
  const vault = new PseudonymVault(key === undefined ? {} : { key, keySource });
  const names = new NameIndex();
  let vaultFile: VaultFile | null = null;
  if (document.vault?.path) {
    if (key === undefined) {
      throw new PolicyDocumentError(
        `vault.path needs a stable key: set vault.key, or the environment variable ${keyEnv} (vault.key_env) and grant --allow-env=${keyEnv}; with a random key the saved pseudonyms could never be read back`,
      );
    }
    vaultFile = new VaultFile(vault, document.vault.path, {
      encrypt: document.vault.encrypt ?? true,
      autosave: document.vault.autosave ?? true,
    });
    try {
      vaultFile.load();
    } catch (error) {
      throw new PolicyDocumentError((error as Error).message);
    }
  }
  const audit = new AuditLog(document.audit_size ?? 1000, (text) => vault.hash("argument", text));
  const limiter = new RateLimiter(options.now);
  const limits: PlacedLimit[] = [
    ...(document.rate_limits ?? []).map((spec, i) => ({ id: `policy[${i}]`, spec })),
    ...rules.flatMap((rule) =>
      (rule.rate_limits ?? []).map((spec, i) => ({ id: `${rule.name}[${i}]`, spec }))
    ),
  ];
  const extraDetectors: Detector[] = (document.detectors ?? []).map((d) => ({
    name: d.name,
    entity: d.entity ?? d.name,
    category: d.category ?? "custom",
    confidence: d.confidence ?? 0.8,
    pattern: new RegExp(d.pattern, "g"),
    description: `Custom detector ${d.name}.`,
  }));
  checkSteps(
    [...(document.transforms ?? []), ...rules.flatMap((r) => r.transforms ?? [])],
    { known: KNOWN_OUTPUT, label: "Transform" },
  );
  checkSteps(
    [...(document.input_transforms ?? []), ...rules.flatMap((r) => r.input_transforms ?? [])],
    { known: KNOWN_INPUT, label: "Input transform" },
  );

  const rolesOf = (principal: Principal | undefined): string[] => {
    const p = principal ?? { id: "local", kind: "local", roles: [] };
    const roles = new Set<string>(p.roles);
    roles.add("default");
    if (p.kind === "local") roles.add("local");
    return [...roles];
  };
  const accessPrincipal = (request: PolicyRequest): AccessPrincipal => ({
    id: request.principal?.id ?? "local",
    roles: rolesOf(request.principal),
  });
  const decisionCache = new Map<string, AccessDecision>();
  const decideSubject = (subject: AccessSubject, principal: AccessPrincipal): AccessDecision => {
    const cacheKey = [
      principal.id,
      principal.roles.join(","),
      subject.kind,
      subject.name,
      subject.category,
      subject.sensitivity,
      subject.capabilities.join(","),
    ].join("\x1f");
    let decision = decisionCache.get(cacheKey);
    if (!decision) {
      decision = decideAccess(document, rules, subject, principal);
      if (decisionCache.size > 10_000) decisionCache.clear();
      decisionCache.set(cacheKey, decision);
    }
    return decision;
  };
  const decide = (request: PolicyRequest): AccessDecision => {
    const subject = subjectOf(request);
    return subject ? decideSubject(subject, accessPrincipal(request)) : { allowed: true };
  };
  const matchingRules = (request: PolicyRequest): NamedRule[] => {
    const subject = subjectOf(request);
    if (!subject) return [];
    const principal = accessPrincipal(request);
    return rules.filter((rule) => ruleMatches(rule, subject, principal));
  };

  const accessRule: PolicyRule = (request) => {
    const subject = subjectOf(request);
    if (!subject) return null;
    const principal = accessPrincipal(request);
    const kind = request.kind === "completion" ? "completion" : subject.kind;
    const logged = {
      kind,
      name: subject.name,
      principal: principal.id,
      roles: [...principal.roles],
      arguments: request.arguments as Record<string, unknown> | undefined,
    };
    const decision = decideSubject(subject, principal);
    if (!decision.allowed) {
      audit.record({ ...logged, decision: "denied", reason: decision.reason });
      return new ToolFailure(
        "access_denied",
        `Policy ${name} denies this ${kind.replace("_", " ")}.`,
        {
          action: "Ask the operator for a policy or role that allows it.",
          details: {
            policy: name,
            reason: decision.reason ?? "denied",
            ...(decision.rule ? { rule: decision.rule } : {}),
          },
        },
      );
    }
    const matching = rules.filter((rule) => ruleMatches(rule, subject, principal));
    const applicable = limits.filter((limit) =>
      (limit.id.startsWith("policy[") ||
        matching.some((rule) => limit.id.startsWith(`${rule.name}[`))) &&
      limitApplies(limit.spec, kind, [subject.name, ...(subject.aliases ?? [])])
    );
    if (applicable.length > 0) {
      const refusal = limiter.take(applicable, principal.id, subject.name);
      if (refusal) {
        audit.record({ ...logged, decision: "rate_limited", reason: `limit ${refusal.limit}` });
        return new ToolFailure(
          "rate_limited",
          `Rate limit of ${refusal.limit} reached for this ${kind.replace("_", " ")}; retry in ${
            refusal.retry_after.toFixed(1)
          } s.`,
          {
            retryable: true,
            action: `Wait ${refusal.retry_after.toFixed(1)} seconds, then call again.`,
            details: { ...refusal },
          },
        );
      }
    }
    if (document.audit === true || subject.capabilities.includes("reveal")) {
      audit.record({
        ...logged,
        decision: "allowed",
        ...(subject.capabilities.includes("reveal") ? { reason: "reveal" } : {}),
      });
      if (subject.capabilities.includes("reveal")) audit.counters.reveal++;
    }
    return null;
  };

  const visibility: PolicyVisibilityRule[] = document.hide_denied === false
    ? []
    : [(request) => decide(request).allowed];

  // Output pipeline: policy transforms, then matching rules' per transforms_mode; options merged.
  const pipelineCache = new Map<string, ((value: unknown) => unknown) | null>();
  const redactors: Redactor[] = [];
  // Every stage that shortens text cuts it here, so the marker and the limitation agree.
  const cuts = new TextCuts();
  const buildPipeline = (
    request: PolicyRequest,
    variant: PipelineVariant,
  ): ((value: unknown) => unknown) | null => {
    const matching = matchingRules(request);
    let steps = [...(document.transforms ?? [])];
    const optionsByType: Record<string, Record<string, unknown>> = {
      ...(document.transform_options ?? {}),
    };
    for (const rule of matching) {
      if (rule.transforms) {
        const mode = rule.transforms_mode ?? "append";
        steps = mode === "replace"
          ? [...rule.transforms]
          : mode === "prepend"
          ? [...rule.transforms, ...steps]
          : [...steps, ...rule.transforms];
      }
      for (const [type, opts] of Object.entries(rule.transform_options ?? {})) {
        optionsByType[type] = { ...(optionsByType[type] ?? {}), ...opts };
      }
    }
    if (variant !== "output") {
      steps = steps.filter((step) => VARIANT_STEPS[variant](stepOf(step).type));
    }
    if (steps.length === 0) return null;
    const fused = fuse(
      steps.map(stepOf).map(({ type, options: own }) => ({
        type,
        options: { ...own, ...(optionsByType[type] ?? {}) },
      })),
    );
    if (fused) return fused;
    const fns = steps.map((step) => {
      const { type, options: own } = stepOf(step);
      const opts = { ...own, ...(optionsByType[type] ?? {}) };
      switch (type) {
        case "sanitize": {
          const s = sanitizer(opts, cuts);
          return s.apply;
        }
        case "redact": {
          const redactor = new Redactor(vault, {
            strategies: (opts.strategies ?? {}) as Record<string, unknown>,
            disabled: document.disabled_detectors ?? [],
            extra: extraDetectors,
            names,
          });
          redactors.push(redactor);
          return <T>(value: T): T => redactor.redact(value);
        }
        case "project":
          return projector(opts, cuts);
        default:
          return annotator(opts);
      }
    });
    return (value) => fns.reduce((acc, fn) => fn(acc), value);
  };
  /** The built-in order (sanitize, redact, project, annotate) as one walk, when the steps allow. */
  const fuse = (
    steps: { type: string; options: Record<string, unknown> }[],
  ): ((value: unknown) => unknown) | null => {
    const order = ["sanitize", "redact", "project", "annotate"];
    const positions = steps.map((s) => order.indexOf(s.type));
    if (positions.some((p, i) => p < 0 || (i > 0 && p <= positions[i - 1]!))) return null;
    const project = steps.find((s) => s.type === "project")?.options as ProjectOptions | undefined;
    const keyOnly = (project?.exclude ?? []).map((glob) => /^\*\*\.([^.*]+)$/.exec(glob)?.[1]);
    if (project && (keyOnly.some((k) => k === undefined) || project.max_list !== undefined)) {
      return null;
    }
    const stages: StringStage[] = [];
    for (const step of steps) {
      if (step.type === "sanitize") {
        stages.push(sanitizeStage(sanitizer(step.options, cuts)));
      } else if (step.type === "redact") {
        const redactor = new Redactor(vault, {
          strategies: (step.options.strategies ?? {}) as Record<string, unknown>,
          disabled: document.disabled_detectors ?? [],
          extra: extraDetectors,
          names,
        });
        redactors.push(redactor);
        stages.push(redactStage(redactor));
      }
    }
    const walk = fusedWalk(stages, {
      excludedKeys: new Set(keyOnly as string[]),
      ...(project?.max_string !== undefined ? { maxString: project.max_string } : {}),
      ...(project?.max_chars !== undefined ? { project: { max_chars: project.max_chars } } : {}),
      cuts,
    });
    const annotate = steps.find((s) => s.type === "annotate");
    if (!annotate) return walk;
    const after = annotator(annotate.options);
    return (value) => after(walk(value));
  };
  const pipelineFor = (
    request: PolicyRequest,
    variant: PipelineVariant = "output",
  ): ((value: unknown) => unknown) | null => {
    const key = [
      variant,
      request.kind,
      request.name,
      request.category,
      request.sensitivity,
      rolesOf(request.principal).join(","),
    ].join("\x1f");
    if (!pipelineCache.has(key)) {
      if (pipelineCache.size > 5000) pipelineCache.clear();
      pipelineCache.set(key, buildPipeline(request, variant));
    }
    return pipelineCache.get(key) ?? null;
  };
  const exempt = new Set<string>();
  const transform = <T>(request: PolicyRequest, value: T): T => {
    // The reveal tool's own output is never pseudonymised again, nor an exempt tool's.
    if (request.effects.reveals) return value;
    if (request.kind === "tool" && exempt.has(request.name)) return value;
    if (request.contentAddressed && isResourceRead(request) && isContents(value)) {
      return exactContents(request, value) as T;
    }
    const pipeline = pipelineFor(request);
    if (!pipeline || value === null || value === undefined) return value;
    cuts.begin(request.source);
    return applyByKind(request, value, (v) => cuts.noted(pipeline(v)));
  };
  // Content-addressed contents are not rewritten silently: as they are when the pipeline (its
  // annotations aside, which only add) leaves them so; else their exact bytes as base64, kept
  // out of the model's text. When the exact bytes would show what the policy redacts, they are
  // withheld: the rewritten contents are served, saying that they no longer match their digest.
  const exactContents = (request: PolicyRequest, contents: TextContents): ResourceBytes => {
    const rewrite = pipelineFor(request, "exact");
    if (!rewrite || !rewrites(contents, rewrite)) return contents;
    const hide = pipelineFor(request, "hiding");
    if (hide && rewrites(contents, hide)) {
      const pipeline = pipelineFor(request)!;
      cuts.begin(request.source);
      const rewritten = applyByKind(request, contents, (v) => cuts.noted(pipeline(v)));
      return {
        ...rewritten,
        _meta: {
          [EXACT_BYTES_META]:
            `Rewritten by policy ${name}, which redacts or pseudonymises values in it: these bytes do not hash to the digest that names them, and the exact bytes are withheld under this policy.`,
        },
      };
    }
    return {
      uri: contents.uri,
      mimeType: contents.mimeType,
      blob: Buffer.from(contents.text, "utf8").toString("base64"),
      _meta: { [EXACT_BYTES_META]: EXACT_BYTES_NOTE },
    };
  };
  const hasOutput = (document.transforms ?? []).length > 0 ||
    rules.some((rule) => (rule.transforms ?? []).length > 0);
  const probe = new Redactor(vault, {
    strategies: Object.assign(
      {},
      ...[...(document.transforms ?? []), ...rules.flatMap((r) => r.transforms ?? [])]
        .map(stepOf).filter((s) => s.type === "redact").map((s) => s.options.strategies ?? {}),
      ...Object.values(document.roles ?? {}).map((r) =>
        (r.transform_options?.redact?.strategies ?? {}) as Record<string, unknown>
      ),
    ),
    disabled: document.disabled_detectors ?? [],
    extra: extraDetectors,
  });
  const pseudonymizes = probe.pseudonymizes;
  const fences = [...(document.transforms ?? [])].map(stepOf).some((s) =>
    s.type === "sanitize" && (s.options.on_suspicious ?? "fence") === "fence"
  );

  const reverseString = (text: string): string => {
    const plain = stripFences(text);
    const exact = vault.lookup(plain);
    if (exact) return exact.value;
    if (vault.size === 0) return plain;
    let out = plain;
    for (const detector of [...BUILTIN_DETECTORS, TOKEN_SHAPE]) {
      if (detector.hint && !detector.hint(out)) continue;
      detector.pattern.lastIndex = 0;
      out = out.replace(detector.pattern, (whole) => vault.lookup(whole)?.value ?? whole);
    }
    return out;
  };
  const reverse = <T>(value: T): T => walkStrings(value, reverseString) as T;

  const inputTransforms: PolicyInputTransform[] = [];
  const inputSteps = (document.input_transforms ?? []).map(stepOf);
  const guard = inputSteps.find((s) => s.type === "guard_secrets");
  if (guard) {
    const secretDetectors = BUILTIN_DETECTORS.filter((d) =>
      d.category === "secret" && d.confidence >= 0.8
    );
    inputTransforms.push((request, args) => {
      if (request.effects.reveals) return args;
      const found = new Set<string>();
      walkStrings(args, (text) => {
        for (const d of secretDetectors) {
          if (d.hint && !d.hint(text)) continue;
          d.pattern.lastIndex = 0;
          if (d.pattern.test(text)) found.add(d.entity);
        }
        return text;
      });
      if (found.size === 0) return args;
      const subject = subjectOf(request);
      audit.record({
        decision: "rejected",
        kind: request.kind,
        name: subject?.name ?? request.name,
        principal: request.principal?.id ?? "local",
        roles: rolesOf(request.principal),
        arguments: args,
        reason: "secret in arguments",
      });
      throw new ToolFailure(
        "invalid_request",
        `The arguments contain secret material (${
          [...found].join(", ")
        }); the policy refuses to pass secrets to tools.`,
        { action: "Remove the secret from the arguments.", details: { entities: [...found] } },
      );
    });
  }
  if (pseudonymizes || fences || inputSteps.some((s) => s.type === "depseudonymize")) {
    inputTransforms.push((request, args) => (request.effects.reveals ? args : reverse(args)));
  }

  return {
    name,
    document,
    rules: [accessRule],
    visibility,
    inputTransforms,
    outputTransforms: hasOutput ? [transform as PolicyTransform] : [],
    vault,
    names,
    audit,
    limiter,
    limits,
    decide,
    rolesOf,
    transform,
    reverse,
    detectors: () => probe.detectors,
    pseudonymizes,
    exemptFromOutput: (toolName) => void exempt.add(toolName),
    vaultFile,
  };
}

/** The `assembleServer` options that plug a compiled policy into the gate. */
export function gateOptions(policy: CompiledPolicy): {
  policyRules: PolicyRule[];
  policyVisibility: PolicyVisibilityRule[];
  policyInputTransforms: PolicyInputTransform[];
  policyTransforms: PolicyTransform[];
  policyNames: NameIndex;
  policyPseudonymizes: boolean;
} {
  return {
    policyRules: policy.rules,
    policyVisibility: policy.visibility,
    policyInputTransforms: policy.inputTransforms,
    policyTransforms: policy.outputTransforms,
    policyNames: policy.names,
    policyPseudonymizes: policy.pseudonymizes,
  };
}

/** Applies a pipeline to a gate value by the request's kind (resources by mime type, completions per value). */
function applyByKind<T>(
  request: PolicyRequest,
  value: T,
  pipeline: (value: unknown) => unknown,
): T {
  if (request.kind === "completion" && isCompletion(value)) {
    const argument = String((request.arguments as { argument?: unknown })?.argument ?? "value");
    const values = value.values.map((v) => {
      const out = pipeline({ [argument]: v }) as Record<string, unknown>;
      const next = out?.[argument];
      return typeof next === "string" ? next : DROP_TEXT;
    }).filter((v) => v !== DROP_TEXT);
    return { ...value, values } as T;
  }
  if (isResourceRead(request) && isContents(value)) {
    if (/json/.test(value.mimeType)) {
      try {
        const parsed = JSON.parse(value.text);
        const out = pipeline(parsed);
        const indented = value.text.startsWith("{\n") || value.text.startsWith("[\n");
        return { ...value, text: JSON.stringify(out, null, indented ? 2 : undefined) } as T;
      } catch { /* not JSON after all: treat as text */ }
    }
    const out = pipeline(value.text);
    return { ...value, text: typeof out === "string" ? out : "[REDACTED:content]" } as T;
  }
  return pipeline(value) as T;
}

/**
 * Which steps each pipeline variant keeps: `output` all; `exact` those that may rewrite
 * (annotations only add); `hiding` those that withhold values (redaction, pseudonyms).
 */
type PipelineVariant = "output" | "exact" | "hiding";
const VARIANT_STEPS: Record<Exclude<PipelineVariant, "output">, (type: string) => boolean> = {
  exact: (type) => type !== "annotate",
  hiding: (type) => type === "redact",
};

/** The `_meta` key of served-as-base64 content-addressed contents, and its sentence. */
export const EXACT_BYTES_META = "casefile/encoding";
/** Why content-addressed contents came as base64. */
export const EXACT_BYTES_NOTE =
  "Served as base64 because it holds text the output policy would otherwise rewrite; decode it to verify the digest.";

type TextContents = { uri: string; mimeType: string; text: string };
type ResourceBytes = TextContents | {
  uri: string;
  mimeType: string;
  text?: string;
  blob?: string;
  _meta: Record<string, string>;
};

function isResourceRead(request: PolicyRequest): boolean {
  return request.kind === "resource" || request.kind === "template";
}

/** Whether `pipeline` changes what `contents` hold (JSON compared as parsed values). */
function rewrites(contents: TextContents, pipeline: (value: unknown) => unknown): boolean {
  if (/json/.test(contents.mimeType)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(contents.text);
    } catch {
      return pipeline(contents.text) !== contents.text;
    }
    const out = pipeline(parsed);
    return out !== parsed && JSON.stringify(out) !== JSON.stringify(parsed);
  }
  return pipeline(contents.text) !== contents.text;
}

const DROP_TEXT = "\u0000drop";

function isCompletion(value: unknown): value is { values: string[] } {
  return typeof value === "object" && value !== null &&
    Array.isArray((value as { values?: unknown }).values);
}

function isContents(value: unknown): value is TextContents {
  return typeof value === "object" && value !== null &&
    typeof (value as { text?: unknown }).text === "string" &&
    typeof (value as { mimeType?: unknown }).mimeType === "string";
}

function walkStrings(value: unknown, fn: (text: string) => string): unknown {
  if (typeof value === "string") return fn(value);
  if (Array.isArray(value)) return value.map((item) => walkStrings(item, fn));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = walkStrings(v, fn);
    return out;
  }
  return value;
}

/** The generic `<prefix>-<hex>` token shape, for reversal inside free text. */
const TOKEN_SHAPE: Detector = {
  name: "token_shape",
  entity: "token",
  category: "identifier",
  confidence: 1,
  pattern: /\b[a-z][a-z0-9]{0,11}-[0-9a-f]{8,17}\b/g,
  description: "Tokens of the vault.",
};

/** The annotate transform: `inline` annotations and `label_findings` risk labels. */
function annotator(options: Record<string, unknown>): (value: unknown) => unknown {
  if (!options.inline && !options.label_findings) return (value) => value;
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (value !== null && typeof value === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = walk(v);
      if (options.label_findings && typeof out.severity === "string" && "finding_id" in out) {
        const score = out.risk_score ?? out.risk;
        out._risk = `${out.severity} risk${score !== undefined ? ` (${score})` : ""}`;
      }
      return out;
    }
    return value;
  };
  return (value) => {
    const out = walk(value);
    if (options.inline && out !== null && typeof out === "object" && !Array.isArray(out)) {
      return { ...(out as Record<string, unknown>), _annotations: { transformed: true } };
    }
    return out;
  };
}
