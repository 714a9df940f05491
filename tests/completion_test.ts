import assert from "node:assert/strict";
import { mulberry32 } from "./helpers/random.ts";
import {
  type CandidateSource,
  compareCodePoints,
  complete,
  type CompletionAnswer,
  type CompletionContext,
  type CompletionOptions,
  discoverPaged,
  discoveryCandidates,
  type DiscoveryPage,
  emptyCompletion,
  match,
  MAX_CANDIDATES_SCANNED,
  MAX_COMPLETION_VALUE_LENGTH,
  MAX_COMPLETION_VALUES,
  normalizeForMatch,
} from "../src/core/completion.ts";

const EMPTY: CompletionAnswer = { values: [], total: 0, hasMore: false };

function context(signal?: AbortSignal): CompletionContext {
  return signal ? { arguments: {}, signal } : { arguments: {} };
}

/** A source that counts its calls. */
function counted(values: readonly unknown[]): { source: CandidateSource; calls: () => number } {
  let calls = 0;
  return {
    source: () => {
      calls++;
      return values;
    },
    calls: () => calls,
  };
}

/** Code-point order computed the slow, obvious way. */
function referenceCompare(a: string, b: string): number {
  const x = Array.from(a).map((c) => c.codePointAt(0) as number);
  const y = Array.from(b).map((c) => c.codePointAt(0) as number);
  const length = Math.min(x.length, y.length);
  for (let i = 0; i < length; i++) {
    if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
  }
  return x.length - y.length;
}

function hex64(n: number): string {
  // Distinct, well-mixed 64-hex strings without needing async hashing.
  const random = mulberry32(n + 1);
  let out = "";
  for (let i = 0; i < 64; i++) out += Math.floor(random() * 16).toString(16);
  return out;
}

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

// ---------------------------------------------------------------------------
// Input and candidate bounds

Deno.test("complete() drops input longer than 4,096 units without calling the source", async () => {
  const { source, calls } = counted(["a".repeat(10)]);
  const answer = await complete("a".repeat(MAX_COMPLETION_VALUE_LENGTH + 1), source, context());
  assert.deepEqual(answer, EMPTY);
  assert.equal(calls(), 0);
});

Deno.test("complete() counts the input bound in UTF-16 units, not code points", async () => {
  // 2,049 astral characters are 2,049 code points but 4,098 UTF-16 units.
  const { source, calls } = counted(["\u{1F600}"]);
  const answer = await complete("\u{1F600}".repeat(2049), source, context());
  assert.deepEqual(answer, EMPTY);
  assert.equal(calls(), 0);
});

Deno.test("complete() accepts input of exactly 4,096 units", async () => {
  const exact = "a".repeat(MAX_COMPLETION_VALUE_LENGTH);
  const { source, calls } = counted([exact, "b"]);
  const answer = await complete(exact, source, context());
  assert.equal(calls(), 1);
  assert.deepEqual(answer, { values: [exact], total: 1, hasMore: false });
});

Deno.test("complete() drops candidates of length 0 or longer than 4,096 units", async () => {
  const longest = "x".repeat(MAX_COMPLETION_VALUE_LENGTH);
  const tooLong = "x".repeat(MAX_COMPLETION_VALUE_LENGTH + 1);
  const answer = await complete("", () => ["", tooLong, longest, "x"], context());
  assert.deepEqual(answer, { values: ["x", longest], total: 2, hasMore: false });
});

Deno.test("complete() deduplicates by exact string before normalisation", async () => {
  const answer = await complete("", () => ["App", "Ａpp", "App", "app", "App"], context());
  assert.deepEqual(answer, { values: ["App", "app", "Ａpp"], total: 3, hasMore: false });
});

// ---------------------------------------------------------------------------
// Normalisation and prefix matching

Deno.test("complete() matches NFKC + toLowerCase prefixes and keeps exact identifiers", async () => {
  const answer = await complete("ＡＰ", () => ["Ａpp", "App", "app", "Zulu"], context());
  assert.deepEqual(answer, { values: ["App", "app", "Ａpp"], total: 3, hasMore: false });
});

Deno.test("complete() does not fold ß to ss", async () => {
  const source = (): string[] => ["straße", "strasse", "ßeta", "sseta"];
  assert.deepEqual((await complete("ss", source, context())).values, ["sseta"]);
  assert.deepEqual((await complete("ß", source, context())).values, ["ßeta"]);
  assert.deepEqual((await complete("strass", source, context())).values, ["strasse"]);
});

Deno.test("complete() with an empty prefix matches every valid candidate", async () => {
  const answer = await complete("", () => ["zeta", "Alpha", "ｂeta", "\u{1F600}"], context());
  assert.deepEqual(answer, {
    values: ["Alpha", "zeta", "ｂeta", "\u{1F600}"],
    total: 4,
    hasMore: false,
  });
});

Deno.test("normalizeForMatch() applies NFKC, then default lower-casing", () => {
  assert.equal(normalizeForMatch("ＡＰＰ"), "app");
  assert.equal(normalizeForMatch("\uFB01le"), "file"); // ﬁ ligature
  assert.equal(normalizeForMatch("\u2460"), "1"); // circled digit one
  assert.equal(normalizeForMatch("ß"), "ß"); // no full case folding
  assert.equal(normalizeForMatch("\u0130"), "i\u0307"); // İ lowercases to two units
  assert.equal(normalizeForMatch("e\u0301"), "\u00e9"); // composed by NFKC
});

Deno.test("match() applies NFKC to candidates as well as input", () => {
  assert.deepEqual(match("fi", ["\uFB01le", "fig", "f"]), ["fig", "\uFB01le"]);
  assert.deepEqual(match("\u00e9", ["e\u0301t\u00e9", "ete"]), ["e\u0301t\u00e9"]);
});

// ---------------------------------------------------------------------------
// Code-point order

Deno.test("compareCodePoints() sorts an astral character after U+FFFD", () => {
  assert.ok(compareCodePoints("\u{1F600}", "\uFFFD") > 0);
  assert.ok(compareCodePoints("\uFFFD", "\u{1F600}") < 0);
  assert.ok(compareCodePoints("\uE000", "\u{10000}") < 0);
  assert.ok(compareCodePoints("\uD7FF", "\uE000") < 0);
  assert.equal(compareCodePoints("a\u{1F600}", "a\u{1F600}"), 0);
  assert.ok(compareCodePoints("ab", "abc") < 0);
  // JavaScript's default sort (code units) puts them the other way round.
  assert.deepEqual(["\uFFFD", "\u{1F600}"].sort(), ["\u{1F600}", "\uFFFD"]);
});

Deno.test("complete() orders values by code point, not UTF-16 code unit", async () => {
  const answer = await complete("x", () => ["x\u{1F600}", "x\uFFFD", "x\uE000", "xz"], context());
  assert.deepEqual(answer.values, ["xz", "x\uE000", "x\uFFFD", "x\u{1F600}"]);
});

Deno.test("compareCodePoints() agrees with a reference comparator on random strings", () => {
  const random = mulberry32(0x5eed);
  const between = (lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));
  // A small alphabet drawn from each range, so strings share prefixes and the
  // comparison reaches later positions.
  const alphabet: string[] = [];
  for (let i = 0; i < 6; i++) {
    alphabet.push(String.fromCodePoint(between(0x20, 0x7e)));
    alphabet.push(String.fromCodePoint(between(0x80, 0xd7ff)));
    alphabet.push(String.fromCodePoint(between(0xe000, 0xffff)));
    alphabet.push(String.fromCodePoint(between(0x10000, 0x10ffff)));
  }
  alphabet.push("\uFFFD", "\uFFFF", "\uE000", "\u{10000}", "\u{1F600}", "\u{10FFFF}");
  const strings: string[] = [];
  for (let i = 0; i < 400; i++) {
    let s = "";
    const length = between(0, 5);
    for (let j = 0; j < length; j++) s += alphabet[between(0, alphabet.length - 1)];
    strings.push(s);
  }
  let unitOrderDisagrees = 0;
  for (const a of strings) {
    for (const b of strings) {
      const expected = Math.sign(referenceCompare(a, b));
      assert.equal(
        Math.sign(compareCodePoints(a, b)),
        expected,
        `compareCodePoints(${JSON.stringify(a)}, ${JSON.stringify(b)})`,
      );
      const unit = a < b ? -1 : a > b ? 1 : 0;
      if (unit !== expected) unitOrderDisagrees++;
    }
  }
  // The sample really exercises the difference between the two orders.
  assert.ok(unitOrderDisagrees > 0);
  const sorted = [...strings].sort(compareCodePoints);
  assert.deepEqual(sorted, [...strings].sort(referenceCompare));
});

Deno.test("complete() returns random candidates in reference code-point order", async () => {
  const random = mulberry32(42);
  const pool = [
    "\u0041",
    "\u00e9",
    "\ud7ff",
    "\ue000",
    "\uffee",
    "\ufffd",
    "\u{10000}",
    "\u{1F600}",
  ];
  const candidates = new Set<string>();
  while (candidates.size < 90) {
    let s = "";
    for (let j = 0; j < 3; j++) s += pool[Math.floor(random() * pool.length)];
    candidates.add(s);
  }
  const answer = await complete("", () => [...candidates], context());
  assert.deepEqual(answer.values, [...candidates].sort(referenceCompare));
});

// ---------------------------------------------------------------------------
// Scan and result bounds

Deno.test("complete() scans at most 10,000 candidates", async () => {
  const candidates = Array.from({ length: 12_000 }, (_, i) => `c${String(i).padStart(5, "0")}`);
  const answer = await complete("c", () => candidates, context());
  assert.equal(answer.total, MAX_CANDIDATES_SCANNED);
  assert.equal(answer.values.length, MAX_COMPLETION_VALUES);
  assert.equal(answer.hasMore, true);
  assert.deepEqual(answer.values, candidates.slice(0, 100));
});

Deno.test("complete() never sees a match beyond the 10,000th candidate", async () => {
  const candidates = Array.from({ length: 12_000 }, (_, i) => `other-${i}`);
  candidates[10_500] = "needle-late";
  candidates[9_999] = "needle-last-scanned";
  const answer = await complete("needle", () => candidates, context());
  assert.deepEqual(answer, { values: ["needle-last-scanned"], total: 1, hasMore: false });
});

Deno.test("complete() over 150 Evidence ids returns the first 100 in order and total 150", async () => {
  const ids = Array.from({ length: 150 }, (_, i) => `ev_${hex64(i)}`);
  assert.equal(new Set(ids).size, 150);
  const shuffled = [...ids].reverse();
  const answer = await complete("ev_", () => shuffled, context());
  assert.equal(answer.values.length, 100);
  assert.equal(answer.total, 150);
  assert.equal(answer.hasMore, true);
  assert.deepEqual(answer.values, [...ids].sort().slice(0, 100));
});

Deno.test("complete() reports hasMore false for exactly 100 matches and true for 101", async () => {
  const make = (n: number): string[] => Array.from({ length: n }, (_, i) => `m${1000 + i}`);
  const hundred = await complete("m", () => make(100), context());
  assert.deepEqual(hundred, { values: make(100), total: 100, hasMore: false });
  const hundredOne = await complete("m", () => make(101), context());
  assert.equal(hundredOne.total, 101);
  assert.equal(hundredOne.hasMore, true);
  assert.deepEqual(hundredOne.values, make(100));
});

Deno.test("complete() counts total after deduplication and length filtering", async () => {
  const candidates = [...Array(120).fill("dup"), "", "d".repeat(5000), "d1", "d2"];
  const answer = await complete("d", () => candidates, context());
  assert.deepEqual(answer, { values: ["d1", "d2", "dup"], total: 3, hasMore: false });
});

// ---------------------------------------------------------------------------
// Failing and malformed sources

Deno.test("complete() answers empty when the source throws", async () => {
  const answer = await complete("", () => {
    throw new Error("provider exploded");
  }, context());
  assert.deepEqual(answer, EMPTY);
});

Deno.test("complete() answers empty when the source rejects", async () => {
  const answer = await complete("", () => Promise.reject(new Error("offline")), context());
  assert.deepEqual(answer, EMPTY);
});

Deno.test("complete() answers empty when the source returns a non-array", async () => {
  const malformed: unknown[] = [null, undefined, "abc", 7, { length: 1, 0: "a" }, new Set(["a"])];
  for (const value of malformed) {
    const answer = await complete("", () => value as readonly unknown[], context());
    assert.deepEqual(answer, EMPTY, `source returned ${String(value)}`);
  }
});

Deno.test("complete() answers empty when the array holds any non-string", async () => {
  const malformed: unknown[][] = [["valid", 1], ["valid", null], ["a", { id: "b" }], [undefined]];
  for (const value of malformed) {
    assert.deepEqual(await complete("", () => value, context()), EMPTY);
    assert.deepEqual(await complete("", () => Promise.resolve(value), context()), EMPTY);
  }
  // The control: the same pool without the bad element is served.
  assert.deepEqual((await complete("", () => ["valid"], context())).values, ["valid"]);
});

Deno.test("emptyCompletion() returns a fresh empty answer each time", () => {
  const a = emptyCompletion();
  a.values.push("leak");
  assert.deepEqual(emptyCompletion(), EMPTY);
});

// ---------------------------------------------------------------------------
// Per-argument options

Deno.test("match() with prefix-then-substring lists sorted prefix matches before sorted substring matches", () => {
  const candidates = ["my-web", "web-2", "x", "aweb", "web-1", "WEB-acl", "cobweb"];
  assert.deepEqual(match("web", candidates, { match: "prefix-then-substring" }), [
    "WEB-acl",
    "web-1",
    "web-2",
    "aweb",
    "cobweb",
    "my-web",
  ]);
  // The default mode offers no substring matches.
  assert.deepEqual(match("web", candidates), ["WEB-acl", "web-1", "web-2"]);
});

Deno.test("complete() with prefix-then-substring bounds the combined list", async () => {
  const prefixed = Array.from({ length: 60 }, (_, i) => `ref-${String(i).padStart(2, "0")}`);
  const contained = Array.from({ length: 60 }, (_, i) => `x-ref-${String(i).padStart(2, "0")}`);
  const answer = await complete("ref", () => [...contained, ...prefixed], context(), {
    match: "prefix-then-substring",
  });
  assert.equal(answer.total, 120);
  assert.equal(answer.hasMore, true);
  assert.deepEqual(answer.values, [...prefixed, ...contained.slice(0, 40)]);
});

Deno.test("match() with order source keeps the source's order, stably", () => {
  // Highest risk first, as the source ranks it; not alphabetical.
  const ranked = ["f-rdp-open", "f-ssh-open", "f-rdp-admin", "f-rdp-open", "f-rb-weak"];
  assert.deepEqual(match("f-r", ranked, { order: "source" }), [
    "f-rdp-open",
    "f-rdp-admin",
    "f-rb-weak",
  ]);
  assert.deepEqual(match("f-r", ranked), ["f-rb-weak", "f-rdp-admin", "f-rdp-open"]);
});

Deno.test("match() with order source and prefix-then-substring keeps source order in each group", () => {
  const ranked = ["zz-web", "web-b", "a-web", "web-a"];
  assert.deepEqual(match("web", ranked, { order: "source", match: "prefix-then-substring" }), [
    "web-b",
    "web-a",
    "zz-web",
    "a-web",
  ]);
});

Deno.test("match() with normalize false is a case-sensitive startsWith without NFKC", () => {
  const candidates = ["App", "app", "Ａpp", "\uFB01le", "file"];
  assert.deepEqual(match("a", candidates, { normalize: false }), ["app"]);
  assert.deepEqual(match("A", candidates, { normalize: false }), ["App"]);
  assert.deepEqual(match("Ａ", candidates, { normalize: false }), ["Ａpp"]);
  assert.deepEqual(match("fi", candidates, { normalize: false }), ["file"]);
  // The control: normalised matching folds all three spellings together.
  assert.deepEqual(match("a", candidates), ["App", "app", "Ａpp"]);
});

Deno.test("match() with upperCaseInput matches enum values from lower-case input", () => {
  const severities = ["CRITICAL", "HIGH", "MEDIUM", "critical-note"];
  assert.deepEqual(match("cr", severities, { upperCaseInput: true, normalize: false }), [
    "CRITICAL",
  ]);
  assert.deepEqual(match("cr", severities, { normalize: false }), ["critical-note"]);
});

/** The engine's rules written out naively: the reference for the property test below. */
function referenceMatch(
  value: string,
  candidates: readonly string[],
  options: CompletionOptions,
): string[] {
  const norm = options.normalize === false
    ? (s: string): string => s
    : (s: string): string => s.normalize("NFKC").toLowerCase();
  const needle = norm(options.upperCaseInput ? value.toUpperCase() : value);
  const pool = [
    ...new Set(
      candidates.slice(0, MAX_CANDIDATES_SCANNED).filter((c) =>
        c.length > 0 && c.length <= MAX_COMPLETION_VALUE_LENGTH
      ),
    ),
  ];
  const prefixed = pool.filter((c) => norm(c).startsWith(needle));
  const contained = options.match === "prefix-then-substring"
    ? pool.filter((c) => !norm(c).startsWith(needle) && norm(c).includes(needle))
    : [];
  if ((options.order ?? "code-point") === "code-point") {
    prefixed.sort(referenceCompare);
    contained.sort(referenceCompare);
  }
  return [...prefixed, ...contained];
}

Deno.test("match() agrees with a naive reference on random mixed-script candidates", () => {
  const random = mulberry32(0xc0ffee);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  // ASCII (printable and control), letters whose NFKC or case mapping is
  // special, combining marks, private use, and astral characters.
  const pieces = [
    "a",
    "A",
    "b",
    "B",
    "z",
    "-",
    "_",
    "0",
    "1",
    " ",
    "\t",
    "\u0000",
    "\u007f",
    "\u00e9",
    "e\u0301",
    "\u0301",
    "\uff21",
    "\uff41",
    "\ufb01",
    "\u00df",
    "SS",
    "\u0130",
    "i",
    "\u212a",
    "k",
    "\ufffd",
    "\ue000",
    "\u{1f600}",
    "\u{1d400}",
    "\u2460",
    "\u03a3",
  ];
  const word = (max: number): string => {
    let s = "";
    const length = 1 + Math.floor(random() * max);
    for (let i = 0; i < length; i++) s += pick(pieces);
    return s;
  };
  const optionSets: CompletionOptions[] = [
    {},
    { match: "prefix-then-substring" },
    { order: "source" },
    { order: "source", match: "prefix-then-substring" },
    { normalize: false },
    { normalize: false, match: "prefix-then-substring" },
    { upperCaseInput: true },
    { upperCaseInput: true, normalize: false },
  ];
  let nonEmpty = 0;
  for (let trial = 0; trial < 300; trial++) {
    const candidates: string[] = [];
    for (let i = 0; i < 60; i++) {
      candidates.push(i > 0 && random() < 0.15 ? pick(candidates) : word(5));
    }
    // An all-ASCII pool half of the time, which the engine may treat specially.
    const pool = trial % 2 === 0
      ? candidates.map((c) => Array.from(c, (ch) => (ch.charCodeAt(0) < 0x80 ? ch : "a")).join(""))
      : candidates;
    const value = random() < 0.5 ? pick(pool).slice(0, Math.floor(random() * 3)) : word(2);
    for (const options of optionSets) {
      const expected = referenceMatch(value, pool, options);
      if (expected.length > 0) nonEmpty++;
      assert.deepEqual(
        match(value, pool, options),
        expected,
        `match(${JSON.stringify(value)}, ${JSON.stringify(pool)}, ${JSON.stringify(options)})`,
      );
    }
  }
  assert.ok(nonEmpty > 500, "the sample produces real matches");
});

Deno.test("match() returns null for a non-string candidate inside the scan window", () => {
  assert.equal(match("", ["a", 1]), null);
  assert.deepEqual(match("", ["a", "b"]), ["a", "b"]);
});

// ---------------------------------------------------------------------------
// Procedure discovery (spec §2.4)

interface FakeProcedure {
  key: string;
  name: string;
}

/** A paged provider over a fixed list, recording each requested window. */
function pagedProvider(items: readonly FakeProcedure[]): {
  fetch: (offset: number, limit: number) => Promise<DiscoveryPage>;
  requests: [number, number][];
} {
  const requests: [number, number][] = [];
  return {
    requests,
    fetch: (offset, limit) => {
      requests.push([offset, limit]);
      const slice = items.slice(offset, offset + limit);
      const end = offset + slice.length;
      const hasMore = end < items.length;
      return Promise.resolve({ items: slice, hasMore, nextOffset: hasMore ? end : null });
    },
  };
}

function addressOf(i: number): string {
  return `0x${(0x1000 + i).toString(16)}`;
}

Deno.test("discoverPaged() stops at 5,000 unique addresses after exactly 10 pages of 500", async () => {
  const items = Array.from({ length: 6000 }, (_, i) => ({ key: addressOf(i), name: `fn_${i}` }));
  const provider = pagedProvider(items);
  const result = await discoverPaged(provider.fetch);
  assert.deepEqual(
    provider.requests,
    Array.from({ length: 10 }, (_, i) => [i * 500, 500]),
  );
  assert.equal(result.exhaustive, false);
  const candidates = discoveryCandidates(result);
  assert.equal(candidates.length, 5000);
  assert.deepEqual(candidates, items.slice(0, 5000).map((item) => item.key));
  assert.ok(candidates.every((c) => c.startsWith("0x")), "no names offered");
});

Deno.test("complete() over a bounded procedure discovery offers 5,000 addresses and no names", async () => {
  const items = Array.from({ length: 6000 }, (_, i) => ({ key: addressOf(i), name: `fn_${i}` }));
  const provider = pagedProvider(items);
  const answer = await complete(
    "",
    async () => discoveryCandidates(await discoverPaged(provider.fetch)),
    context(),
  );
  assert.equal(provider.requests.length, 10);
  assert.equal(answer.total, 5000);
  assert.equal(answer.hasMore, true);
  const named = await complete(
    "fn_",
    async () => discoveryCandidates(await discoverPaged(pagedProvider(items).fetch)),
    context(),
  );
  assert.deepEqual(named, EMPTY);
});

Deno.test("discoverPaged() makes one call when nextOffset does not advance, and offers addresses only", async () => {
  const requests: number[] = [];
  const result = await discoverPaged((offset) => {
    requests.push(offset);
    // Were the walk to ask again, it would hear of a last page and turn exhaustive.
    if (requests.length > 1) {
      return Promise.resolve({
        items: [{ key: "0x3000", name: "gamma" }],
        hasMore: false,
        nextOffset: null,
      });
    }
    return Promise.resolve({
      items: [{ key: "0x1000", name: "alpha" }, { key: "0x2000", name: "beta" }],
      hasMore: true,
      nextOffset: offset,
    });
  });
  assert.deepEqual(requests, [0]);
  assert.equal(result.exhaustive, false);
  assert.deepEqual(discoveryCandidates(result), ["0x1000", "0x2000"]);
});

Deno.test("discoverPaged() stops when nextOffset goes backwards", async () => {
  const requests: number[] = [];
  const result = await discoverPaged((offset) => {
    requests.push(offset);
    return Promise.resolve(
      offset === 0
        ? { items: [{ key: "0x1", name: "a" }], hasMore: true, nextOffset: 10 }
        : { items: [{ key: "0x2", name: "b" }], hasMore: true, nextOffset: 5 },
    );
  });
  assert.deepEqual(requests, [0, 10]);
  assert.equal(result.exhaustive, false);
  assert.deepEqual(discoveryCandidates(result), ["0x1", "0x2"]);
});

Deno.test("discoverPaged() keeps the first page's addresses, but no names, when the second page throws", async () => {
  for (const failure of ["throw", "reject"] as const) {
    let calls = 0;
    const result = await discoverPaged((offset) => {
      calls++;
      if (offset === 0) {
        return Promise.resolve({
          items: [{ key: "0x1000", name: "only_here" }, { key: "0x2000", name: "also_here" }],
          hasMore: true,
          nextOffset: 2,
        });
      }
      if (failure === "throw") throw new Error("provider crashed");
      return Promise.reject(new Error("provider crashed"));
    });
    assert.equal(calls, 2);
    assert.equal(result.exhaustive, false);
    assert.deepEqual(discoveryCandidates(result), ["0x1000", "0x2000"], failure);
  }
});

Deno.test("discoverPaged() keeps the first page's addresses, but no names, when the second page is malformed", async () => {
  const malformedPages: [string, unknown][] = [
    ["hasMore true with nextOffset null", { items: [], hasMore: true, nextOffset: null }],
    [
      "hasMore false with a nextOffset",
      { items: [{ key: "0x9000", name: "late" }], hasMore: false, nextOffset: 3 },
    ],
    [
      "an item without a name",
      { items: [{ key: "0x9000" }], hasMore: false, nextOffset: null },
    ],
    [
      "an item with a numeric key",
      { items: [{ key: 0x9000, name: "late" }], hasMore: false, nextOffset: null },
    ],
    ["items not an array", { items: "0x9000", hasMore: false, nextOffset: null }],
    ["hasMore not a boolean", { items: [], hasMore: "no", nextOffset: null }],
    ["a fractional nextOffset", { items: [], hasMore: true, nextOffset: 4.5 }],
    ["null", null],
  ];
  for (const [label, second] of malformedPages) {
    const result = await discoverPaged((offset) =>
      Promise.resolve(
        offset === 0
          ? {
            items: [{ key: "0x1000", name: "first" }, { key: "0x2000", name: "second" }],
            hasMore: true,
            nextOffset: 2,
          }
          : second as DiscoveryPage,
      )
    );
    assert.equal(result.exhaustive, false, label);
    assert.deepEqual(discoveryCandidates(result), ["0x1000", "0x2000"], label);
  }
});

Deno.test("discoveryCandidates() after an exhaustive walk offers only names held by exactly one address", async () => {
  const requests: [number, number][] = [];
  const pages: Record<number, DiscoveryPage> = {
    0: {
      items: [{ key: "0x1000", name: "dup" }, { key: "0x2000", name: "dup" }],
      hasMore: true,
      nextOffset: 2,
    },
    2: {
      items: [{ key: "0x3000", name: "tail" }, { key: "0x4000", name: "unique" }],
      hasMore: false,
      nextOffset: null,
    },
  };
  const result = await discoverPaged((offset, limit) => {
    requests.push([offset, limit]);
    return Promise.resolve(pages[offset] as DiscoveryPage);
  });
  assert.deepEqual(requests, [[0, 500], [2, 500]]);
  assert.equal(result.exhaustive, true);
  const candidates = discoveryCandidates(result);
  assert.deepEqual([...candidates].sort(), [
    "0x1000",
    "0x2000",
    "0x3000",
    "0x4000",
    "tail",
    "unique",
  ]);
  const answer = await complete("", () => candidates, context());
  assert.deepEqual(answer.values, ["0x1000", "0x2000", "0x3000", "0x4000", "tail", "unique"]);
});

Deno.test("discoverPaged() keeps the first name seen at a repeated address", async () => {
  const provider = pagedProvider([
    { key: "0x1", name: "first" },
    { key: "0x2", name: "twice" },
    { key: "0x1", name: "second" },
    { key: "0x2", name: "twice" },
    { key: "0x3", name: "" },
    { key: "0x4", name: "first" },
  ]);
  const result = await discoverPaged(provider.fetch, { pageSize: 2 });
  assert.deepEqual(provider.requests, [[0, 2], [2, 2], [4, 2]]);
  assert.equal(result.exhaustive, true);
  assert.deepEqual(result.keys, ["0x1", "0x2", "0x3", "0x4"]);
  assert.equal(result.firstNames.get("0x1"), "first");
  // "first" now names two addresses; "second" was never a first name; "" is never offered.
  assert.deepEqual(discoveryCandidates(result), ["0x1", "0x2", "0x3", "0x4", "twice"]);
});

Deno.test("discoverPaged() reaching exactly 5,000 addresses on the last page is exhaustive", async () => {
  const items = Array.from({ length: 5000 }, (_, i) => ({ key: addressOf(i), name: `fn_${i}` }));
  const provider = pagedProvider(items);
  const result = await discoverPaged(provider.fetch);
  assert.equal(provider.requests.length, 10);
  assert.equal(result.exhaustive, true);
  const candidates = discoveryCandidates(result);
  assert.equal(candidates.length, 10_000);
  assert.ok(candidates.includes("fn_4999"));
});

Deno.test("discoverPaged() is not exhaustive when the page crossing 5,000 says hasMore false but items were dropped", async () => {
  // The first page repeats one address ten times, so after ten pages only
  // 4,990 addresses are held; the eleventh and last page crosses the bound.
  const items: FakeProcedure[] = [];
  for (let i = 0; i < 490; i++) items.push({ key: addressOf(i), name: `fn_${i}` });
  for (let i = 0; i < 10; i++) items.push({ key: addressOf(0), name: `again_${i}` });
  for (let i = 490; i < 5490; i++) items.push({ key: addressOf(i), name: `fn_${i}` });
  assert.equal(items.length, 5500);
  const provider = pagedProvider(items);
  const result = await discoverPaged(provider.fetch);
  assert.equal(provider.requests.length, 11);
  assert.deepEqual(provider.requests.at(-1), [5000, 500]);
  assert.equal(result.keys.length, 5000);
  assert.equal(result.exhaustive, false);
  const candidates = discoveryCandidates(result);
  assert.equal(candidates.length, 5000);
  assert.ok(candidates.every((c) => c.startsWith("0x")), "no names offered");
});

Deno.test("discoverPaged() makes no call when the signal is already aborted", async () => {
  const controller = new AbortController();
  controller.abort();
  const provider = pagedProvider([{ key: "0x1", name: "a" }]);
  const result = await discoverPaged(provider.fetch, { signal: controller.signal });
  assert.deepEqual(provider.requests, []);
  assert.deepEqual(result.keys, []);
  assert.equal(result.exhaustive, false);
});

Deno.test("discoverPaged() stops the walk when the signal aborts between pages", async () => {
  const controller = new AbortController();
  const items = Array.from({ length: 2000 }, (_, i) => ({ key: addressOf(i), name: `fn_${i}` }));
  const provider = pagedProvider(items);
  const result = await discoverPaged((offset, limit) => {
    if (offset === 500) controller.abort();
    return provider.fetch(offset, limit);
  }, { signal: controller.signal });
  assert.deepEqual(provider.requests, [[0, 500], [500, 500]]);
  assert.equal(result.exhaustive, false);
  assert.equal(result.keys.length, 1000);
  assert.ok(discoveryCandidates(result).every((c) => c.startsWith("0x")));
});

// ---------------------------------------------------------------------------
// Cancellation, freshness and concurrency (spec §2.6)

Deno.test("complete() answers empty when the request is aborted while the source is blocked", async () => {
  const late = deferred<string[]>();
  let staleCalls = 0;
  const controller = new AbortController();
  const pending = complete("", async () => {
    staleCalls++;
    return await late.promise;
  }, context(controller.signal));
  controller.abort();
  late.resolve(["stale-1", "stale-2"]);
  assert.deepEqual(await pending, EMPTY);
  assert.equal(staleCalls, 1);

  let freshCalls = 0;
  const fresh = await complete("", () => {
    freshCalls++;
    return Promise.resolve(["fresh-1"]);
  }, context(new AbortController().signal));
  assert.deepEqual(fresh, { values: ["fresh-1"], total: 1, hasMore: false });
  assert.equal(freshCalls, 1);
});

Deno.test("complete() reads the source on every request (no cache)", async () => {
  let generation = 0;
  const source: CandidateSource = () => Promise.resolve([`gen-${++generation}`]);
  assert.deepEqual((await complete("gen", source, context())).values, ["gen-1"]);
  assert.deepEqual((await complete("gen", source, context())).values, ["gen-2"]);
  assert.equal(generation, 2);
});

Deno.test("complete() gives 16 concurrent requests over one async source identical answers", async () => {
  const pool = Array.from({ length: 250 }, (_, i) => `0x${(0x4000 + i * 16).toString(16)}`);
  let calls = 0;
  const source: CandidateSource = async () => {
    calls++;
    await new Promise((resolve) => setTimeout(resolve, calls % 4));
    return [...pool].reverse();
  };
  const answers = await Promise.all(
    Array.from({ length: 16 }, () => complete("0x4", source, context())),
  );
  assert.equal(calls, 16);
  const expected = pool.filter((p) => p.startsWith("0x4")).sort();
  for (const answer of answers) {
    assert.deepEqual(answer, {
      values: expected.slice(0, 100),
      total: expected.length,
      hasMore: expected.length > 100,
    });
  }
});

Deno.test("complete() ends an aborted request even when its source never settles", async () => {
  const controller = new AbortController();
  const pending = complete("a", () => new Promise<string[]>(() => {}), {
    arguments: {},
    signal: controller.signal,
  });
  setTimeout(() => controller.abort(), 10);
  assert.deepEqual(await pending, { values: [], total: 0, hasMore: false });
});
