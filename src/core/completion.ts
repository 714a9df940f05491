/**
 * The one completion engine. Every `completion/complete` answer, for every
 * workbench, prompt argument and resource-template variable, is computed here
 * from a candidate source read live from the session.
 *
 * @module
 */

/** Longest input value, and longest candidate, in UTF-16 code units. */
export const MAX_COMPLETION_VALUE_LENGTH = 4096;
/** Most candidates scanned from one source per request. */
export const MAX_CANDIDATES_SCANNED = 10_000;
/** Most values returned in one completion result. */
export const MAX_COMPLETION_VALUES = 100;

/** The answer in MCP's `completion` shape. */
export type CompletionAnswer = {
  values: string[];
  total: number;
  hasMore: boolean;
};

/** The request context a source may read: the other arguments the client sent. */
export interface CompletionContext {
  /** `params.context.arguments`, as sent (untrusted). */
  arguments: Readonly<Record<string, string>>;
  /** Aborted when the client cancels the request. */
  signal?: AbortSignal;
}

/**
 * A candidate matched on other strings than the one it completes to: a cloud
 * asset completes to its name but matches on its name, ARN and id.
 */
export interface KeyedCandidate {
  /** What the completion offers. */
  value: string;
  /** What the input is matched against. */
  keys: readonly string[];
}

/**
 * A live source of candidates: strings, or {@linkcode KeyedCandidate}s. It
 * may throw; the engine then answers empty.
 */
export type CandidateSource = (
  context: CompletionContext,
) => readonly unknown[] | Promise<readonly unknown[]>;

/** How one argument matches and orders its candidates. */
export interface CompletionOptions {
  /**
   * `prefix`: candidates whose normalised form starts with the input.
   * `prefix-then-substring`: prefix matches first, then candidates containing the input.
   * `substring`: candidates containing the input, in one group.
   * @default "prefix"
   */
  match?: "prefix" | "prefix-then-substring" | "substring";
  /**
   * `code-point`: Unicode code-point order. `source`: the source's own order
   * (a domain rank such as highest risk first), kept stable.
   * @default "code-point"
   */
  order?: "code-point" | "source";
  /**
   * Apply NFKC and `toLowerCase()` to input and candidates before matching.
   * When false, matching is a plain case-sensitive `startsWith`.
   * @default true
   */
  normalize?: boolean;
  /** Upper-case the input before matching (enum arguments). @default false */
  upperCaseInput?: boolean;
}

/** The empty answer: also what any failure of a source produces. */
export function emptyCompletion(): CompletionAnswer {
  return { values: [], total: 0, hasMore: false };
}

/** NFKC, then default-locale `toLowerCase()`. */
export function normalizeForMatch(text: string): string {
  // Printable ASCII is its own NFKC form; skip the costlier normalisation for it.
  return (PRINTABLE_ASCII.test(text) ? text : text.normalize("NFKC")).toLowerCase();
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
// deno-lint-ignore no-control-regex -- the class is "not ASCII", control characters included
const NON_ASCII = /[^\x00-\x7f]/;
const AT_OR_ABOVE_SURROGATES = /[\ud800-\uffff]/;

/**
 * Compares two strings by Unicode code point (not UTF-16 code unit): a
 * supplementary-plane character sorts after every BMP character. Defined for
 * well-formed strings; a lone surrogate ranks with the supplementary plane.
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

// Moves surrogates (0xD800–0xDFFF) above 0xE000–0xFFFF so unit order becomes code-point order.
function codePointRank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  if (unit >= 0xe000) return unit - 0x800;
  return unit;
}

/**
 * Runs one completion: reads the source, cleans, matches, orders and bounds it.
 * Never throws; a failing or malformed source gives the empty answer.
 *
 * @example
 * ```ts
 * import { complete } from "./completion.ts";
 * const answer = await complete("ＡＰ", () => ["Ａpp", "App", "app", "Zulu"], { arguments: {} });
 * // answer.values: ["App", "app", "Ａpp"]
 * ```
 */
export async function complete(
  value: string,
  source: CandidateSource,
  context: CompletionContext,
  options: CompletionOptions = {},
): Promise<CompletionAnswer> {
  if (typeof value !== "string" || value.length > MAX_COMPLETION_VALUE_LENGTH) {
    return emptyCompletion();
  }
  let raw: readonly unknown[];
  try {
    raw = await untilAborted(Promise.resolve(source(context)), context.signal);
  } catch {
    return emptyCompletion();
  }
  if (!Array.isArray(raw) || context.signal?.aborted) return emptyCompletion();
  const matches = match(value, raw, options);
  if (matches === null) return emptyCompletion();
  return {
    values: matches.slice(0, MAX_COMPLETION_VALUES),
    total: matches.length,
    hasMore: matches.length > MAX_COMPLETION_VALUES,
  };
}

/** Settles with the promise, or rejects as soon as the signal aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** The matching step alone: every match within the scan bound, ordered; null if malformed. */
export function match(
  value: string,
  candidates: readonly unknown[],
  options: CompletionOptions = {},
): string[] | null {
  if (
    options.match === "substring" || candidates.some((c) => typeof c === "object" && c !== null)
  ) {
    return matchKeyed(value, candidates, options);
  }
  const normalize = options.normalize ?? true;
  const substring = options.match === "prefix-then-substring";
  const input = options.upperCaseInput ? value.toUpperCase() : value;
  const needle = normalize ? normalizeForMatch(input) : input;
  let prefixed: string[] = [];
  let contained: string[] = [];
  // Code-unit order equals code-point order unless a string holds a unit ≥ U+D800.
  let unitOrderIsCodePointOrder = true;
  const scanned = Math.min(candidates.length, MAX_CANDIDATES_SCANNED);
  for (let i = 0; i < scanned; i++) {
    const candidate = candidates[i];
    if (typeof candidate !== "string") return null;
    if (candidate.length === 0 || candidate.length > MAX_COMPLETION_VALUE_LENGTH) continue;
    let isPrefix: boolean;
    let haystack: string | undefined;
    if (!normalize) {
      isPrefix = candidate.startsWith(needle);
      if (unitOrderIsCodePointOrder && AT_OR_ABOVE_SURROGATES.test(candidate)) {
        unitOrderIsCodePointOrder = false;
      }
    } else if (!NON_ASCII.test(candidate)) {
      // ASCII is its own NFKC form and lower-cases unit by unit: compare the prefix only.
      isPrefix = candidate.length >= needle.length &&
        candidate.slice(0, needle.length).toLowerCase() === needle;
    } else {
      if (unitOrderIsCodePointOrder && AT_OR_ABOVE_SURROGATES.test(candidate)) {
        unitOrderIsCodePointOrder = false;
      }
      haystack = normalizeForMatch(candidate);
      isPrefix = haystack.startsWith(needle);
    }
    if (isPrefix) prefixed.push(candidate);
    else if (substring) {
      haystack ??= normalize ? candidate.toLowerCase() : candidate;
      if (haystack.includes(needle)) contained.push(candidate);
    }
  }
  // Exact duplicates match alike, so removing them from the matches is enough.
  if ((options.order ?? "code-point") === "code-point") {
    const compare = unitOrderIsCodePointOrder ? undefined : compareCodePoints;
    prefixed = withoutAdjacentDuplicates(prefixed.sort(compare));
    contained = withoutAdjacentDuplicates(contained.sort(compare));
  } else {
    prefixed = [...new Set(prefixed)];
    contained = [...new Set(contained)];
  }
  return contained.length === 0 ? prefixed : prefixed.concat(contained);
}

function isKeyed(candidate: unknown): candidate is KeyedCandidate {
  if (typeof candidate !== "object" || candidate === null) return false;
  const { value, keys } = candidate as Record<string, unknown>;
  return typeof value === "string" && Array.isArray(keys) &&
    keys.every((key) => typeof key === "string");
}

/** The general matcher: keyed candidates, and the `substring` mode. */
function matchKeyed(
  value: string,
  candidates: readonly unknown[],
  options: CompletionOptions,
): string[] | null {
  const normalize = options.normalize ?? true;
  const fold = (text: string): string => (normalize ? normalizeForMatch(text) : text);
  const input = options.upperCaseInput ? value.toUpperCase() : value;
  const needle = fold(input);
  const mode = options.match ?? "prefix";
  const prefixed: string[] = [];
  const contained: string[] = [];
  const scanned = Math.min(candidates.length, MAX_CANDIDATES_SCANNED);
  for (let i = 0; i < scanned; i++) {
    const candidate = candidates[i];
    const entry = typeof candidate === "string"
      ? { value: candidate, keys: [candidate] }
      : isKeyed(candidate)
      ? candidate
      : null;
    if (entry === null) return null;
    if (entry.value.length === 0 || entry.value.length > MAX_COMPLETION_VALUE_LENGTH) continue;
    const keys = entry.keys.filter((key) => key.length <= MAX_COMPLETION_VALUE_LENGTH).map(fold);
    if (mode === "substring") {
      if (keys.some((key) => key.includes(needle))) contained.push(entry.value);
    } else if (keys.some((key) => key.startsWith(needle))) prefixed.push(entry.value);
    else if (mode === "prefix-then-substring" && keys.some((key) => key.includes(needle))) {
      contained.push(entry.value);
    }
  }
  const order = (list: string[]): string[] =>
    (options.order ?? "code-point") === "code-point"
      ? withoutAdjacentDuplicates(list.sort(compareCodePoints))
      : [...new Set(list)];
  const first = order(prefixed);
  const seen = new Set(first);
  return first.concat(order(contained).filter((entry) => !seen.has(entry)));
}

function withoutAdjacentDuplicates(sorted: string[]): string[] {
  let kept = 0;
  for (let i = 0; i < sorted.length; i++) {
    if (i === 0 || sorted[i] !== sorted[kept - 1]) sorted[kept++] = sorted[i]!;
  }
  sorted.length = kept;
  return sorted;
}

/** One page of a paged listing, as discovery expects it. */
export interface DiscoveryPage {
  items: readonly { key: string; name: string }[];
  hasMore: boolean;
  nextOffset: number | null;
}

/** Bounds of {@linkcode discoverPaged}. */
export interface DiscoveryOptions {
  /** Items asked for per page. @default 500 */
  pageSize?: number;
  /** Most unique keys collected. @default 5000 */
  maxKeys?: number;
  /** Aborts the walk. */
  signal?: AbortSignal;
}

/** What a bounded walk observed. */
export interface DiscoveryResult {
  /** Unique keys (addresses), in the order first seen. */
  keys: string[];
  /** First name seen for each key. */
  firstNames: Map<string, string>;
  /** True only when the listing ended (`hasMore: false`) and nothing was dropped. */
  exhaustive: boolean;
}

/**
 * Walks a paged listing (such as `list_procedures`) within bounds. A failing or
 * malformed page, a cursor that does not advance, or the key bound ends the
 * walk as non-exhaustive while keeping everything already observed.
 */
export async function discoverPaged(
  fetchPage: (offset: number, limit: number) => Promise<DiscoveryPage>,
  options: DiscoveryOptions = {},
): Promise<DiscoveryResult> {
  const pageSize = options.pageSize ?? 500;
  const maxKeys = options.maxKeys ?? 5000;
  const firstNames = new Map<string, string>();
  const keys: string[] = [];
  let offset = 0;
  let exhaustive = false;
  let dropped = false;
  while (keys.length < maxKeys && !options.signal?.aborted) {
    let page: DiscoveryPage;
    try {
      page = await fetchPage(offset, pageSize);
    } catch {
      break;
    }
    if (!isDiscoveryPage(page)) break;
    for (const item of page.items) {
      if (firstNames.has(item.key)) continue;
      if (keys.length >= maxKeys) {
        dropped = true;
        break;
      }
      keys.push(item.key);
      firstNames.set(item.key, item.name);
    }
    if (!page.hasMore) {
      exhaustive = !dropped;
      break;
    }
    if (page.nextOffset === null || page.nextOffset <= offset) break;
    offset = page.nextOffset;
  }
  return { keys, firstNames, exhaustive };
}

function isDiscoveryPage(page: unknown): page is DiscoveryPage {
  if (typeof page !== "object" || page === null) return false;
  const p = page as Record<string, unknown>;
  if (!Array.isArray(p.items) || typeof p.hasMore !== "boolean") return false;
  if (p.hasMore && !Number.isSafeInteger(p.nextOffset)) return false;
  if (!p.hasMore && p.nextOffset !== null) return false;
  return p.items.every((item: unknown) =>
    typeof item === "object" && item !== null &&
    typeof (item as Record<string, unknown>).key === "string" &&
    typeof (item as Record<string, unknown>).name === "string"
  );
}

/**
 * Candidates from a discovery: every key, plus — only when the walk was
 * exhaustive — each non-empty name held by exactly one key.
 */
export function discoveryCandidates(result: DiscoveryResult): string[] {
  const candidates = [...result.keys];
  if (!result.exhaustive) return candidates;
  for (const [name, count] of nameHolders(result)) if (count === 1) candidates.push(name);
  return candidates;
}

/**
 * The non-empty names of an exhaustive discovery that more than one key holds (the ones
 * {@linkcode discoveryCandidates} leaves out); none when the walk was not exhaustive.
 */
export function sharedDiscoveryNames(result: DiscoveryResult): string[] {
  if (!result.exhaustive) return [];
  return [...nameHolders(result)].filter(([, count]) => count > 1).map(([name]) => name);
}

/** How many keys hold each non-empty name. */
function nameHolders(result: DiscoveryResult): Map<string, number> {
  const holders = new Map<string, number>();
  for (const name of result.firstNames.values()) {
    if (name.length > 0) holders.set(name, (holders.get(name) ?? 0) + 1);
  }
  return holders;
}
