/**
 * The redact transform: content detectors inside strings and key rules for
 * whole values, each match handled by the strategy its entity, parent
 * entity, detector or category names (`redact`, `mask`, `hash`,
 * `pseudonymize`, `generalize`, `drop`, `keep`). Never mutates its input.
 *
 * @module
 */

import { BUILTIN_DETECTORS, type Detector, ENTITY_PARENTS } from "./detectors.ts";
import type { PseudonymVault } from "./vault.ts";
import { type NameIndex, replaceNameMentions } from "./names.ts";

/** A strategy with its options. */
export interface StrategySpec {
  strategy: string;
  keep_first?: number;
  keep_last?: number;
  char?: string;
  length?: number;
  template?: string;
}

const ALIASES: Record<string, string> = {
  pseudonymise: "pseudonymize",
  tokenize: "pseudonymize",
  tokenise: "pseudonymize",
  generalise: "generalize",
  bucket: "generalize",
  remove: "drop",
  replace: "redact",
  none: "keep",
  allow: "keep",
};
const STRATEGIES = new Set([
  "redact",
  "mask",
  "hash",
  "pseudonymize",
  "generalize",
  "drop",
  "keep",
]);

/** Normalises a strategy value from a policy (`true` → redact, aliases resolved). */
export function normalizeStrategy(value: unknown): StrategySpec {
  if (value === true) return { strategy: "redact" };
  if (value === false || value === null || value === undefined) return { strategy: "keep" };
  const spec = typeof value === "string" ? { strategy: value } : value as StrategySpec;
  const name = ALIASES[spec.strategy] ?? spec.strategy;
  if (!STRATEGIES.has(name)) {
    throw new RangeError(
      `Unknown redaction strategy ${JSON.stringify(spec.strategy)}; accepted: ${
        [...STRATEGIES].join(", ")
      } (and their aliases).`,
    );
  }
  return { ...spec, strategy: name };
}

/** Counts per strategy section and entity. */
export type RedactionReport = Record<string, Record<string, number>>;

/** Options of a redactor. */
export interface RedactorOptions {
  /** Strategy per entity, detector name or category (and `default`). */
  strategies: Record<string, unknown>;
  /** Detector names to leave out. @default [] */
  disabled?: readonly string[];
  /** Extra detectors. @default [] */
  extra?: readonly Detector[];
  /** Names the workbenches know as identifiers (pseudonymised as their entity). */
  names?: NameIndex;
}

const SECTION: Record<string, string> = {
  redact: "redacted",
  mask: "masked",
  hash: "hashed",
  pseudonymize: "pseudonymized",
  generalize: "generalized",
  drop: "dropped",
};
const SKIPPED_KEYS = new Set(["_meta", "_annotations", "cursor", "next_cursor"]);
const SECRET_KEY =
  /^(?:.*_)?(?:password|passwd|secret|secrets|secret_value|private_key|credential|credentials|api_key|access_token|auth_token|client_secret|user_data)$/i;
const ACCOUNT_KEY =
  /^(?:account|account_id|aws_account_id|owner_account|source_account|target_account|subscription_id)$/i;

const DROP = Symbol("drop");
/** The pseudo-detector of names a workbench knows (strategy lookup falls back to `identifier`). */
const KNOWN_NAME = { name: "known_name", category: "identifier" } as const;

/** Redacts strings inside a JSON value by policy strategies. */
export class Redactor {
  readonly #strategies = new Map<string, StrategySpec>();
  readonly #detectors: Detector[];
  readonly #vault: PseudonymVault;
  readonly #cache = new Map<string, string | typeof DROP>();
  readonly #keyKinds = new Map<string, number>();
  readonly #prefilter: RegExp | null;
  readonly #names: NameIndex | null;
  /** What the last runs did: section → entity → count. */
  readonly report: RedactionReport = {};

  /** A redactor using `vault` for pseudonyms and hashes. */
  constructor(vault: PseudonymVault, options: RedactorOptions) {
    this.#vault = vault;
    for (const [key, value] of Object.entries(options.strategies)) {
      this.#strategies.set(key, normalizeStrategy(value));
    }
    const disabled = new Set(options.disabled ?? []);
    this.#detectors = [...BUILTIN_DETECTORS, ...(options.extra ?? [])].filter((d) =>
      !disabled.has(d.name) && (!d.optIn || this.#strategies.has(d.category) ||
        this.#strategies.has(d.entity)) &&
      this.#activeFor(d)
    );
    this.#names = options.names &&
        ["resource_name", "dataset_name"].some((entity) =>
          this.strategyFor(entity, KNOWN_NAME).strategy !== "keep"
        )
      ? options.names
      : null;
    this.#prefilter = this.#detectors.every((d) => d.hintSource !== undefined)
      ? new RegExp(this.#detectors.map((d) => `(?:${d.hintSource})`).join("|"))
      : null;
  }

  /** Whether any match of this detector would be changed. */
  #activeFor(detector: Detector): boolean {
    const entities = detector.refine
      ? ["private_ip", "public_ip", "special_ip", "private_cidr", "public_cidr", "special_cidr"]
      : [detector.entity];
    return entities.some((e) => this.strategyFor(e, detector).strategy !== "keep");
  }

  /** Whether this redactor can emit pseudonyms (so input needs reversing). */
  get pseudonymizes(): boolean {
    return [...this.#strategies.values()].some((s) => s.strategy === "pseudonymize");
  }

  /** The detectors this redactor runs. */
  get detectors(): readonly Detector[] {
    return this.#detectors;
  }

  /** The strategy for a match: entity, parents, detector name, category, default. */
  strategyFor(entity: string, detector?: Pick<Detector, "name" | "category">): StrategySpec {
    const keys = [
      entity,
      ...(ENTITY_PARENTS[entity] ?? []),
      ...(detector ? [detector.name, detector.category] : []),
      "default",
    ];
    for (const key of keys) {
      const found = this.#strategies.get(key);
      if (found) return found;
    }
    return { strategy: "keep" };
  }

  #count(strategy: string, entity: string): void {
    const section = SECTION[strategy];
    if (!section) return;
    const bucket = (this.report[section] ??= {});
    bucket[entity] = (bucket[entity] ?? 0) + 1;
  }

  #apply(spec: StrategySpec, entity: string, value: string): string | typeof DROP {
    this.#count(spec.strategy, entity);
    switch (spec.strategy) {
      case "redact":
        return (spec.template ?? "[REDACTED:{entity}]").replaceAll("{entity}", entity)
          .replaceAll("{length}", String(value.length));
      case "mask":
        return mask(value, spec);
      case "hash":
        return `${entity}:${this.#vault.hash(entity, value, spec.length ?? 12)}`;
      case "pseudonymize":
        return this.#pseudonym(entity, value);
      case "generalize":
        return `<${entity}>`;
      case "drop":
        return DROP;
      default:
        return value;
    }
  }

  #pseudonym(entity: string, value: string): string {
    if (entity === "cloudg_uri") {
      let decoded = value;
      try {
        decoded = decodeURIComponent(value);
      } catch { /* keep as is */ }
      const inner = this.redactString(decoded);
      return inner === DROP ? value : encodeURIComponent(inner as string);
    }
    return this.#vault.token(entity, value);
  }

  /**
   * Whether {@linkcode redactString} returns `text` as it is because no detector would look
   * at it (too short, or the joined hint test fails): a verdict on the text alone, which
   * neither the vault nor the cache can change. False when in doubt.
   */
  quiet(text: string): boolean {
    return text.length < 3 || (this.#prefilter !== null && !this.#prefilter.test(text));
  }

  /**
   * Whether no key rule covers `key` (for good): then, while {@linkcode quietNow},
   * {@linkcode redactField} on a string under it is {@linkcode redactString} alone.
   */
  quietFor(key: string | undefined): boolean {
    return key === undefined || this.#keyKind(key) === 0;
  }

  /** Whether no known names are in play right now (names may be added later). */
  get quietNow(): boolean {
    return this.#names === null || this.#names.empty;
  }

  /** Redacts one string; DROP when a drop strategy hit. */
  redactString(text: string): string | typeof DROP {
    // Most strings interest no detector: answer them with one regex test, without the cache.
    if (this.quiet(text)) return text;
    const cached = this.#cache.get(text);
    if (cached !== undefined) return cached;
    let out = text;
    let dropped = false;
    for (const detector of this.#detectors) {
      if (detector.hint && !detector.hint(out)) continue;
      detector.pattern.lastIndex = 0;
      out = out.replace(detector.pattern, (whole: string, ...rest: unknown[]) => {
        if (dropped) return whole;
        const group = typeof rest[0] === "string" && detector.pattern.source.includes("(") &&
            !detector.refine && detector.name !== "mac_address"
          ? rest[0]
          : undefined;
        const target = group ?? whole;
        if (/^(?:\[REDACTED:|⟦)/.test(target)) return whole;
        const entity = detector.refine ? detector.refine(target) : detector.entity;
        if (entity === null) return whole;
        if (this.#vault.lookup(target) !== undefined) return whole;
        const spec = this.strategyFor(entity, detector);
        if (spec.strategy === "keep") return whole;
        const replaced = this.#apply(spec, entity, target);
        if (replaced === DROP) {
          dropped = true;
          return whole;
        }
        return group === undefined ? replaced : whole.replace(group, replaced);
      });
      if (dropped) break;
    }
    const result = dropped ? DROP : out;
    if (this.#cache.size > 200_000) this.#cache.clear();
    this.#cache.set(text, result);
    return result;
  }

  /** Redacts a whole JSON value (key rules, then content detectors). */
  redact<T>(value: T): T {
    const out = this.#walk(value, undefined);
    if (out === DROP) return (typeof value === "string" ? "[REDACTED:content]" : null) as T;
    return out as T;
  }

  /** 1 for a secret key, 2 for an account key, 0 for any other (remembered per key). */
  #keyKind(key: string): number {
    let kind = this.#keyKinds.get(key);
    if (kind === undefined) {
      kind = SECRET_KEY.test(key) ? 1 : ACCOUNT_KEY.test(key) ? 2 : 0;
      this.#keyKinds.set(key, kind);
    }
    return kind;
  }

  #keyRule(key: string, value: string): string | typeof DROP | undefined {
    const kind = this.#keyKind(key);
    if (kind === 0) return undefined;
    if (kind === 1 && value.length > 0 && !/^\[REDACTED:/.test(value)) {
      const spec = this.strategyFor("sensitive_field", { name: "key_rule", category: "secret" });
      return spec.strategy === "keep" ? undefined : this.#apply(spec, "sensitive_field", value);
    }
    if (kind === 2 && value.length > 0 && this.#vault.lookup(value) === undefined) {
      const spec = this.strategyFor("cloud_account", {
        name: "key_rule",
        category: "identifier",
      });
      if (spec.strategy === "keep") return undefined;
      return this.#apply(spec, "cloud_account", value);
    }
    return undefined;
  }

  /** Redacts one string found under `key` (key rules first, then content detectors). */
  redactField(text: string, key: string | undefined): string | typeof DROP {
    if (key !== undefined) {
      const ruled = this.#keyRule(key, text);
      if (ruled !== undefined) return ruled;
    }
    const names = this.#names;
    if (names === null || names.empty) return this.redactString(text);
    const entity = names.entityOf(text);
    if (entity !== undefined) {
      const spec = this.strategyFor(entity, KNOWN_NAME);
      if (spec.strategy !== "keep") return this.#apply(spec, entity, text);
    }
    const out = this.redactString(text);
    if (out === DROP || !/\s/.test(out)) return out;
    return replaceNameMentions(out, names, (name, found) => {
      const spec = this.strategyFor(found, KNOWN_NAME);
      if (spec.strategy === "keep") return name;
      const replaced = this.#apply(spec, found, name);
      return replaced === DROP ? `[REDACTED:${found}]` : replaced;
    });
  }

  #walk(value: unknown, key: string | undefined): unknown {
    if (typeof value === "string") return this.redactField(value, key);
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      for (const item of value) {
        const next = this.#walk(item, undefined);
        if (next !== DROP) out.push(next);
      }
      return out;
    }
    if (value !== null && typeof value === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        if (SKIPPED_KEYS.has(k)) {
          out[k] = v;
          continue;
        }
        const next = this.#walk(v, k);
        if (next !== DROP) out[k] = next;
      }
      return out;
    }
    return value;
  }
}

/** Masks all but the first `keep_first` and last `keep_last` characters. */
export function mask(value: string, spec: StrategySpec): string {
  const char = spec.char ?? "*";
  let first = spec.keep_first ?? 0;
  let last = spec.keep_last ?? 4;
  if (value.length <= 4) return char.repeat(value.length);
  if (first + last >= value.length) {
    first = 0;
    last = Math.min(last, Math.floor(value.length / 4));
  }
  return value.slice(0, first) + char.repeat(value.length - first - last) +
    value.slice(value.length - last);
}

export { DROP };
