import assert from "node:assert/strict";
import { canonicalJson, sha256Hex, toHex } from "../src/core/canonical_json.ts";
import {
  analysisProfile,
  computeEvidenceId,
  EVIDENCE_ID_PATTERN,
  EvidenceLedger,
  type EvidenceRecord,
  type EvidenceSubject,
  NO_SUBJECT_LIMITATION,
} from "../src/core/evidence.ts";
import { type AppsEvidenceDraft, createEvidence } from "../src/apps/evidence.ts";
import { DEFAULT_EVIDENCE_URI_PREFIX } from "../src/server.ts";
import { ToolFailure } from "../src/core/errors.ts";

/** SHA-256 computed here, independently of the module under test. */
async function referenceSha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A number from its IEEE-754 bit pattern (RFC 8785 Appendix B lists inputs this way). */
function fromBits(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

function subject(overrides: Partial<EvidenceSubject> = {}): EvidenceSubject {
  return {
    name: "ls",
    digest: { sha256: "a".repeat(64) },
    format: "elf",
    architecture: "x86_64",
    local_path: "/usr/bin/ls",
    ...overrides,
  };
}

function draft(overrides: Partial<AppsEvidenceDraft> = {}): AppsEvidenceDraft {
  return {
    subject: subject(),
    provider: { id: "native", name: "Casefile native provider", version: "0.1.0" },
    operation: "list_procedures",
    parameters: { offset: 0, limit: 500, document: null },
    normalized_result: { items: [{ address: "0x1000", value: "main" }], has_more: false },
    ...overrides,
  };
}

async function failureCode(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ToolFailure, `expected ToolFailure, got ${String(error)}`);
    return error.code;
  }
  assert.fail("expected a ToolFailure");
}

function jsonBytes(record: EvidenceRecord): number {
  return new TextEncoder().encode(JSON.stringify(record)).length;
}

// ---------------------------------------------------------------------------
// canonicalJson (RFC 8785)

Deno.test("canonicalJson() sorts keys by UTF-16 code units as RFC 8785 §3.2.3 does", () => {
  const input = {
    "\u20ac": "Euro Sign",
    "\r": "Carriage Return",
    "\ufb33": "Hebrew Letter Dalet With Dagesh",
    "1": "One",
    "\u{1f600}": "Emoji: Grinning Face",
    "\u0080": "Control",
    "\u00f6": "Latin Small Letter O With Diaeresis",
  };
  assert.equal(
    canonicalJson(input),
    '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign","\u{1f600}":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
  );
});

Deno.test("canonicalJson() reproduces the RFC 8785 §3.2.2 sample", () => {
  const input = {
    numbers: [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
    string: "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"/",
    literals: [null, true, false],
  };
  assert.equal(
    canonicalJson(input),
    '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
      '"string":"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
  );
});

Deno.test("canonicalJson() serialises numbers as ECMAScript does (RFC 8785 §3.2.2.3)", () => {
  const vectors: [number, string][] = [
    [1e21, "1e+21"],
    [1e20, "100000000000000000000"],
    [1e-7, "1e-7"],
    [1e-6, "0.000001"],
    [-0, "0"],
    [0.1 + 0.2, "0.30000000000000004"],
    [333333333.33333329, "333333333.3333333"],
    [2 ** 53, "9007199254740992"],
    [-(2 ** 53) - 2, "-9007199254740994"],
    [fromBits("0000000000000001"), "5e-324"],
    [fromBits("8000000000000001"), "-5e-324"],
    [fromBits("7fefffffffffffff"), "1.7976931348623157e+308"],
    [fromBits("4430000000000000"), "295147905179352830000"],
    [fromBits("44b52d02c7e14af5"), "9.999999999999997e+22"],
    [fromBits("44b52d02c7e14af6"), "1e+23"],
    [fromBits("3eb0c6f7a0b5ed8c"), "9.999999999999997e-7"],
    [fromBits("3eb0c6f7a0b5ed8d"), "0.000001"],
  ];
  for (const [value, expected] of vectors) {
    assert.equal(canonicalJson(value), expected, `number ${expected}`);
    assert.equal(canonicalJson([value]), `[${expected}]`);
  }
});

Deno.test("canonicalJson() escapes strings as RFC 8785 §3.2.2.2 requires", () => {
  assert.equal(canonicalJson('"'), '"\\""');
  assert.equal(canonicalJson("\\"), '"\\\\"');
  assert.equal(canonicalJson("\b\f\n\r\t"), '"\\b\\f\\n\\r\\t"');
  assert.equal(canonicalJson("\u0000\u001f\u000b"), '"\\u0000\\u001f\\u000b"');
  // Not escaped: solidus, DEL, non-ASCII and astral characters.
  assert.equal(canonicalJson("/\u007f\u00e9\u{1f600}"), '"/\u007f\u00e9\u{1f600}"');
});

Deno.test("canonicalJson() throws on NaN and the infinities", () => {
  for (const value of [NaN, Infinity, -Infinity]) {
    assert.throws(() => canonicalJson(value), TypeError);
    assert.throws(() => canonicalJson({ a: [1, value] }), TypeError);
  }
});

Deno.test("canonicalJson() ignores the key order of its input", () => {
  const a = { z: 1, a: { y: [1, { c: 3, b: 2 }], x: null }, m: "m" };
  const b = { m: "m", a: { x: null, y: [1, { b: 2, c: 3 }] }, z: 1 };
  assert.equal(canonicalJson(a), canonicalJson(b));
  assert.equal(canonicalJson(a), '{"a":{"x":null,"y":[1,{"b":2,"c":3}]},"m":"m","z":1}');
});

Deno.test("canonicalJson() omits undefined members and writes undefined array items as null", () => {
  assert.equal(canonicalJson({ a: undefined, b: 1 }), '{"b":1}');
  assert.equal(canonicalJson([undefined, 1]), "[null,1]");
  assert.equal(canonicalJson({}), "{}");
  assert.equal(canonicalJson([]), "[]");
});

Deno.test("canonicalJson() refuses values JSON cannot hold", () => {
  assert.throws(() => canonicalJson(1n), TypeError);
  assert.throws(() => canonicalJson({ f: () => 1 }), TypeError);
  assert.throws(() => canonicalJson(Symbol("s")), TypeError);
});

Deno.test("canonicalJson() orders integer-like keys by code unit at every depth", () => {
  assert.equal(canonicalJson({ "9": 1, "10": 2, a: 3 }), '{"10":2,"9":1,"a":3}');
  assert.equal(
    canonicalJson({ z: [{ "2": "b", "1": "a", "10": "c" }], a: { "0": 0, "-1": -1 } }),
    '{"a":{"-1":-1,"0":0},"z":[{"1":"a","10":"c","2":"b"}]}',
  );
  // Keys past the array-index range keep insertion order in JS objects.
  assert.equal(
    canonicalJson({ b: 1, "4294967296": 2, "4294967294": 3 }),
    '{"4294967294":3,"4294967296":2,"b":1}',
  );
});

/** RFC 8785 written out naively: the reference for the property test below. */
function referenceCanonical(value: unknown): string {
  if (value === null || typeof value === "boolean") return String(value);
  if (typeof value === "number" || typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) {
    return `[${value.map((item) => referenceCanonical(item ?? null)).join(",")}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).filter((key) => record[key] !== undefined);
  keys.sort((a, b) => {
    // Explicit UTF-16 code-unit comparison.
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const d = a.charCodeAt(i) - b.charCodeAt(i);
      if (d !== 0) return d;
    }
    return a.length - b.length;
  });
  return `{${keys.map((key) => `${JSON.stringify(key)}:${referenceCanonical(record[key])}`)}}`;
}

Deno.test("canonicalJson() agrees with a naive RFC 8785 reference on random values", () => {
  let state = 0x85;
  const random = (): number => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const keys = [
    "a",
    "b",
    "B",
    "_",
    "",
    " ",
    "1",
    "10",
    "9",
    "0",
    "01",
    "-1",
    "1.5",
    "4294967294",
    "4294967295",
    "\u20ac",
    "\r",
    "\ufb33",
    "\u{1f600}",
    "\u0080",
    "\u00f6",
    "\ud7ff",
    "\ue000",
  ];
  const numbers = [0, -0, 1, -1, 0.5, 1e21, 1e-7, 2 ** 53, 5e-324, 0.1 + 0.2, 123456.789, -1e300];
  const strings = ["", "x", '"', "\\", "\n", "\u0000", "\u2028", "\u00e9", "\u{1f600}", "/"];
  const make = (depth: number): unknown => {
    const roll = random();
    if (depth > 3 || roll < 0.35) {
      return pick<unknown>([null, true, false, pick(numbers), pick(strings), undefined]);
    }
    if (roll < 0.6) return Array.from({ length: Math.floor(random() * 4) }, () => make(depth + 1));
    const object: Record<string, unknown> = {};
    const count = Math.floor(random() * 6);
    for (let i = 0; i < count; i++) object[pick(keys)] = make(depth + 1);
    return object;
  };
  let slow = 0;
  for (let i = 0; i < 600; i++) {
    const value = { root: make(0), [pick(keys)]: make(1) };
    const expected = referenceCanonical(value);
    if (/"(?:0|[1-9][0-9]*)":/.test(expected)) slow++;
    assert.equal(canonicalJson(value), expected, JSON.stringify(value));
    // Canonical text is valid JSON that round-trips to the same canonical text.
    assert.equal(canonicalJson(JSON.parse(expected)), expected);
  }
  assert.ok(slow > 50, "the sample includes integer-like keys");
});

Deno.test("canonicalJson() refuses nesting deeper than 256", () => {
  let deep: unknown = 1;
  for (let i = 0; i < 300; i++) deep = [deep];
  assert.throws(() => canonicalJson(deep), RangeError);
  let ok: unknown = 1;
  for (let i = 0; i < 200; i++) ok = [ok];
  assert.equal(canonicalJson(ok), "[".repeat(200) + "1" + "]".repeat(200));
});

Deno.test("sha256Hex() matches known SHA-256 vectors", async () => {
  assert.equal(
    await sha256Hex(""),
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  );
  assert.equal(
    await sha256Hex("abc"),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
  assert.equal(await sha256Hex(new TextEncoder().encode("abc")), await sha256Hex("abc"));
  // Strings are hashed as UTF-8.
  assert.equal(await sha256Hex("\u00e9"), await sha256Hex(new Uint8Array([0xc3, 0xa9])));
});

Deno.test("toHex() writes two lowercase digits per byte", () => {
  assert.equal(toHex(new Uint8Array([0, 1, 0xab, 0xff])), "0001abff");
});

// ---------------------------------------------------------------------------
// createEvidence and the id

Deno.test("createEvidence() fills the documented defaults", async () => {
  const record = await createEvidence(draft());
  assert.equal(record.schema_version, 2);
  assert.equal(record.predicate_type, "rea.analysis/v2");
  assert.equal(record.confidence, "observed");
  assert.equal(record.authority, "shipped-artifact");
  assert.equal(record.environment, null);
  assert.equal(record.raw_result, null);
  assert.deepEqual(record.limitations, []);
  assert.deepEqual(record.locations, []);
  assert.deepEqual(record.evidence_links, []);
  assert.deepEqual(Object.keys(record).sort(), [
    "authority",
    "confidence",
    "environment",
    "evidence_id",
    "evidence_links",
    "limitations",
    "locations",
    "normalized_result",
    "operation",
    "parameters",
    "predicate_type",
    "provider",
    "raw_result",
    "schema_version",
    "subject",
  ]);
});

Deno.test("createEvidence() keeps supplied values over the defaults", async () => {
  const record = await createEvidence(draft({
    predicate_type: "rea.process-capture/v4",
    confidence: "derived",
    authority: "controlled-replay",
    environment: { id: "local", platform: "linux", architecture: "x86_64", isolation: "process" },
    raw_result: { stdout: "ok" },
    limitations: ["bounded"],
    locations: [{ kind: "address", address: "0x1000" }],
    evidence_links: [`ev_${"b".repeat(64)}`],
  }));
  assert.equal(record.predicate_type, "rea.process-capture/v4");
  assert.equal(record.confidence, "derived");
  assert.equal(record.authority, "controlled-replay");
  assert.deepEqual(record.environment?.isolation, "process");
  assert.deepEqual(record.raw_result, { stdout: "ok" });
  assert.deepEqual(record.limitations, ["bounded"]);
  assert.deepEqual(record.locations, [{ kind: "address", address: "0x1000" }]);
  assert.deepEqual(record.evidence_links, [`ev_${"b".repeat(64)}`]);
});

Deno.test("createEvidence() without a subject prepends the no-subject limitation, which changes the id", async () => {
  const withSubject = await createEvidence(draft({ limitations: ["first page only"] }));
  const withoutSubject = await createEvidence(
    draft({ subject: null, limitations: ["first page only"] }),
  );
  assert.deepEqual(withoutSubject.limitations, [NO_SUBJECT_LIMITATION, "first page only"]);
  assert.deepEqual(withSubject.limitations, ["first page only"]);
  assert.notEqual(withoutSubject.evidence_id, withSubject.evidence_id);
  // The limitation takes part in the id: without it, the id would differ.
  const { evidence_id: _id, ...body } = withoutSubject;
  const stripped = await computeEvidenceId({ ...body, limitations: ["first page only"] });
  assert.notEqual(stripped, withoutSubject.evidence_id);
});

Deno.test("createEvidence() does not mutate the draft's limitations", async () => {
  const limitations = ["x"];
  await createEvidence(draft({ subject: null, limitations }));
  assert.deepEqual(limitations, ["x"]);
});

Deno.test("createEvidence() ids match ^ev_[0-9a-f]{64}$ and are stable", async () => {
  const a = await createEvidence(draft());
  const b = await createEvidence(draft());
  assert.match(a.evidence_id, /^ev_[0-9a-f]{64}$/);
  assert.ok(EVIDENCE_ID_PATTERN.test(a.evidence_id));
  assert.equal(a.evidence_id, b.evidence_id);
  assert.equal(`${DEFAULT_EVIDENCE_URI_PREFIX}${a.evidence_id}`, `rea://evidence/${a.evidence_id}`);
});

Deno.test("createEvidence() gives the same id for the same bytes opened at two paths", async () => {
  const here = await createEvidence(draft({ subject: subject() }));
  const there = await createEvidence(
    draft({ subject: subject({ name: "ls-copy", local_path: "/tmp/elsewhere/ls-copy" }) }),
  );
  assert.equal(here.evidence_id, there.evidence_id);
  assert.equal(there.subject?.local_path, "/tmp/elsewhere/ls-copy");
  assert.equal(there.subject?.name, "ls-copy");
});

Deno.test("createEvidence() gives a different id when any other field changes", async () => {
  const variants: [string, AppsEvidenceDraft][] = [
    ["base", draft()],
    ["parameters", draft({ parameters: { offset: 500, limit: 500, document: null } })],
    ["parameter null vs absent", draft({ parameters: { offset: 0, limit: 500 } })],
    ["normalized_result", draft({ normalized_result: { items: [], has_more: false } })],
    ["raw_result", draft({ raw_result: { text: "main" } })],
    ["limitations", draft({ limitations: ["bounded"] })],
    ["operation", draft({ operation: "list_documents" })],
    ["predicate_type", draft({ predicate_type: "rea.call-path/v1" })],
    ["provider", draft({ provider: { id: "objdump", name: "GNU objdump", version: "2.42" } })],
    [
      "provider version",
      draft({ provider: { id: "native", name: "Casefile native provider", version: null } }),
    ],
    ["confidence", draft({ confidence: "inferred" })],
    ["authority", draft({ authority: "analyst-inference" })],
    ["environment", draft({ environment: { id: "local" } })],
    ["locations", draft({ locations: [{ kind: "file-offset", offset: 64 }] })],
    ["evidence_links", draft({ evidence_links: [`ev_${"c".repeat(64)}`] })],
    ["subject digest", draft({ subject: subject({ digest: { sha256: "b".repeat(64) } }) })],
    ["subject format", draft({ subject: subject({ format: "file" }) })],
    ["subject architecture", draft({ subject: subject({ architecture: "arm64" }) })],
  ];
  const ids = new Map<string, string>();
  for (const [label, variant] of variants) {
    const { evidence_id } = await createEvidence(variant);
    const clash = [...ids].find(([, id]) => id === evidence_id);
    assert.equal(clash, undefined, `${label} has the same id as ${clash?.[0]}`);
    ids.set(label, evidence_id);
  }
});

Deno.test("createEvidence() ignores the key order of parameters and results", async () => {
  const a = await createEvidence(
    draft({ parameters: { a: 1, b: { d: 2, c: 3 } }, normalized_result: { x: 1, y: 2 } }),
  );
  const b = await createEvidence(
    draft({ parameters: { b: { c: 3, d: 2 }, a: 1 }, normalized_result: { y: 2, x: 1 } }),
  );
  assert.equal(a.evidence_id, b.evidence_id);
});

Deno.test("createEvidence() id is ev_ + SHA-256 of the canonical projection, written out by hand", async () => {
  const record = await createEvidence({
    subject: null,
    provider: { id: "p", name: "P", version: null },
    operation: "op",
    parameters: { b: 1, a: "x" },
    normalized_result: { ok: true },
  });
  const canonical = '{"authority":"shipped-artifact","confidence":"observed","environment":null,' +
    `"evidence_links":[],"limitations":[${JSON.stringify(NO_SUBJECT_LIMITATION)}],` +
    '"locations":[],"normalized_result":{"ok":true},"operation":"op",' +
    '"parameters":{"a":"x","b":1},"predicate_type":"rea.analysis/v2",' +
    '"provider":{"id":"p","name":"P","version":null},"raw_result":null,' +
    '"schema_version":2,"subject":null}';
  assert.equal(record.evidence_id, `ev_${await referenceSha256(canonical)}`);
});

Deno.test("createEvidence() id is ev_ + SHA-256 of canonicalJson of the projection without name and local_path", async () => {
  const record = await createEvidence(draft({
    raw_result: { bytes: 12 },
    locations: [{ kind: "address-range", start: "0x1000", end: "0x1010" }],
  }));
  const projection = {
    schema_version: 2,
    subject: { digest: { sha256: "a".repeat(64) }, format: "elf", architecture: "x86_64" },
    provider: { id: "native", name: "Casefile native provider", version: "0.1.0" },
    predicate_type: "rea.analysis/v2",
    operation: "list_procedures",
    parameters: { offset: 0, limit: 500, document: null },
    raw_result: { bytes: 12 },
    normalized_result: { items: [{ address: "0x1000", value: "main" }], has_more: false },
    confidence: "observed",
    authority: "shipped-artifact",
    environment: null,
    limitations: [],
    locations: [{ kind: "address-range", start: "0x1000", end: "0x1010" }],
    evidence_links: [],
  };
  assert.equal(record.evidence_id, `ev_${await referenceSha256(canonicalJson(projection))}`);
  const { evidence_id: _id, ...body } = record;
  assert.equal(await computeEvidenceId(body), record.evidence_id);
});

// ---------------------------------------------------------------------------
// EvidenceLedger

Deno.test("EvidenceLedger.record() adds a record, then reports it as a duplicate", async () => {
  const ledger = new EvidenceLedger();
  const record = await createEvidence(draft());
  const first = await ledger.record(record);
  assert.equal(first.status, "added");
  assert.equal(ledger.size, 1);
  const again = await ledger.record(await createEvidence(draft()));
  assert.equal(again.status, "duplicate");
  assert.deepEqual(again.record, record);
  assert.equal(ledger.size, 1);
  assert.equal(ledger.bytes, jsonBytes(record));
});

Deno.test("EvidenceLedger.record() refuses tampered content under the original id", async () => {
  const ledger = new EvidenceLedger();
  const record = await createEvidence(draft());
  const tampered: EvidenceRecord = {
    ...record,
    normalized_result: { items: [{ address: "0x1000", value: "evil" }], has_more: false },
  };
  assert.equal(await failureCode(ledger.record(tampered)), "evidence_integrity_mismatch");
  assert.equal(ledger.size, 0);
  // Also after the genuine record is retained.
  await ledger.record(record);
  assert.equal(await failureCode(ledger.record(tampered)), "evidence_integrity_mismatch");
  assert.deepEqual(ledger.get(record.evidence_id), record);
});

Deno.test("EvidenceLedger.record() refuses a record whose id was altered", async () => {
  const ledger = new EvidenceLedger();
  const record = await createEvidence(draft());
  const forged = { ...record, evidence_id: `ev_${"0".repeat(64)}` };
  assert.equal(await failureCode(ledger.record(forged)), "evidence_integrity_mismatch");
  assert.equal(ledger.get(forged.evidence_id), undefined);
});

Deno.test("EvidenceLedger.record() treats a different subject name and local_path as a duplicate", async () => {
  const ledger = new EvidenceLedger();
  const original = await createEvidence(draft());
  const moved = await createEvidence(
    draft({ subject: subject({ name: "ls.bak", local_path: "/srv/ls.bak" }) }),
  );
  assert.equal(original.evidence_id, moved.evidence_id);
  assert.equal((await ledger.record(original)).status, "added");
  const outcome = await ledger.record(moved);
  assert.equal(outcome.status, "duplicate");
  assert.equal(outcome.record.subject?.local_path, "/usr/bin/ls");
  assert.equal(ledger.size, 1);
});

Deno.test("EvidenceLedger with maxRecords 3 refuses the 4th record and keeps the first 3", async () => {
  const ledger = new EvidenceLedger({ maxRecords: 3 });
  const records = await Promise.all(
    [0, 1, 2, 3].map((i) => createEvidence(draft({ parameters: { offset: i * 500 } }))),
  );
  for (const record of records.slice(0, 3)) {
    assert.equal((await ledger.record(record)).status, "added");
  }
  let failure: unknown;
  try {
    await ledger.record(records[3] as EvidenceRecord);
  } catch (error) {
    failure = error;
  }
  assert.ok(failure instanceof ToolFailure);
  assert.equal(failure.code, "limit_exceeded");
  assert.equal(failure.body.details?.limit, "records");
  assert.equal(ledger.size, 3);
  assert.deepEqual(
    ledger.list().map((r) => r.evidence_id),
    records.slice(0, 3).map((r) => r.evidence_id).sort(),
  );
  assert.equal(ledger.get((records[3] as EvidenceRecord).evidence_id), undefined);
  // A duplicate of a retained record is still answered when the ledger is full.
  assert.equal((await ledger.record(records[0] as EvidenceRecord)).status, "duplicate");
});

Deno.test("EvidenceLedger with a maxBytes cap refuses the record that would pass it", async () => {
  const records = await Promise.all(
    [0, 1, 2].map((i) => createEvidence(draft({ parameters: { offset: i } }))),
  );
  const [a, b, c] = records as [EvidenceRecord, EvidenceRecord, EvidenceRecord];
  const cap = jsonBytes(a) + jsonBytes(b) + jsonBytes(c) - 1;
  const ledger = new EvidenceLedger({ maxBytes: cap });
  await ledger.record(a);
  await ledger.record(b);
  assert.equal(ledger.bytes, jsonBytes(a) + jsonBytes(b));
  let failure: unknown;
  try {
    await ledger.record(c);
  } catch (error) {
    failure = error;
  }
  assert.ok(failure instanceof ToolFailure);
  assert.equal(failure.code, "limit_exceeded");
  assert.equal(failure.body.details?.limit, "bytes");
  assert.equal(ledger.size, 2);
  assert.equal(ledger.bytes, jsonBytes(a) + jsonBytes(b));
  // Exactly at the cap is allowed.
  const exact = new EvidenceLedger({ maxBytes: jsonBytes(a) });
  assert.equal((await exact.record(a)).status, "added");
});

Deno.test("EvidenceLedger.list() returns records sorted by id", async () => {
  const ledger = new EvidenceLedger();
  const records = await Promise.all(
    Array.from({ length: 8 }, (_, i) => createEvidence(draft({ parameters: { page: i } }))),
  );
  for (const record of records) await ledger.record(record);
  const ids = ledger.list().map((r) => r.evidence_id);
  assert.deepEqual(ids, records.map((r) => r.evidence_id).sort());
  assert.notDeepEqual(ids, records.map((r) => r.evidence_id), "insertion order differs");
});

Deno.test("EvidenceLedger.clear() empties the ledger and resets the byte count", async () => {
  const ledger = new EvidenceLedger({ maxRecords: 1 });
  const record = await createEvidence(draft());
  await ledger.record(record);
  assert.ok(ledger.bytes > 0);
  ledger.clear();
  assert.equal(ledger.size, 0);
  assert.equal(ledger.bytes, 0);
  assert.deepEqual(ledger.list(), []);
  assert.equal(ledger.get(record.evidence_id), undefined);
  assert.equal((await ledger.record(record)).status, "added");
});

Deno.test("EvidenceLedger.onChange() fires on add and clear, not on a duplicate", async () => {
  const ledger = new EvidenceLedger();
  const seen: (string | null)[] = [];
  const off = ledger.onChange((record) => seen.push(record ? record.evidence_id : null));
  const record = await createEvidence(draft());
  await ledger.record(record);
  await ledger.record(record);
  ledger.clear();
  assert.deepEqual(seen, [record.evidence_id, null]);
  off();
  await ledger.record(record);
  assert.equal(seen.length, 2);
});

Deno.test("EvidenceLedger.record() succeeds when a listener throws, and other listeners still run", async () => {
  const ledger = new EvidenceLedger();
  let later = 0;
  ledger.onChange(() => {
    throw new Error("observer failure");
  });
  ledger.onChange(() => later++);
  const outcome = await ledger.record(await createEvidence(draft()));
  assert.equal(outcome.status, "added");
  assert.equal(ledger.size, 1);
  ledger.clear();
  assert.equal(later, 2);
});

Deno.test("EvidenceLedger.reserve() counts against the record cap", async () => {
  const ledger = new EvidenceLedger({ maxRecords: 3 });
  ledger.reserve(2, 0);
  assert.equal(ledger.size, 2);
  await ledger.record(await createEvidence(draft({ parameters: { n: 1 } })));
  assert.equal(
    await failureCode(ledger.record(await createEvidence(draft({ parameters: { n: 2 } })))),
    "limit_exceeded",
  );
  assert.throws(
    () => ledger.reserve(1, 0),
    (error: unknown) => error instanceof ToolFailure && error.code === "limit_exceeded",
  );
  ledger.clear();
  assert.equal(ledger.size, 0);
  ledger.reserve(3, 0);
});

Deno.test("EvidenceLedger.reserve() counts against the byte cap", async () => {
  const record = await createEvidence(draft());
  const ledger = new EvidenceLedger({ maxBytes: jsonBytes(record) + 10 });
  ledger.reserve(0, 11);
  assert.equal(ledger.bytes, 11);
  assert.equal(await failureCode(ledger.record(record)), "limit_exceeded");
  assert.equal(ledger.size, 0);
  ledger.clear();
  assert.equal(ledger.bytes, 0);
  assert.equal((await ledger.record(record)).status, "added");
});

Deno.test("EvidenceLedger keeps its own copy of each record", async () => {
  const ledger = new EvidenceLedger();
  const record = await createEvidence(draft());
  const pristine = structuredClone(record);
  await ledger.record(record);
  // The producer keeps using its object; a transform edits what a reader got.
  // Refusing the edit (a frozen record throws) protects the ledger just as well.
  const attempt = (edit: () => void): void => {
    try {
      edit();
    } catch (error) {
      assert.ok(error instanceof TypeError, `unexpected ${String(error)}`);
    }
  };
  attempt(() => {
    (record.normalized_result as { has_more: boolean }).has_more = true;
  });
  attempt(() => {
    (ledger.list()[0] as EvidenceRecord).limitations.push("added by a reader");
  });
  attempt(() => {
    (ledger.get(pristine.evidence_id) as EvidenceRecord).operation = "renamed";
  });
  const got = ledger.get(pristine.evidence_id) as EvidenceRecord;
  assert.deepEqual(got, pristine);
  assert.equal(await computeEvidenceId((({ evidence_id: _, ...b }) => b)(got)), got.evidence_id);
});

Deno.test("EvidenceLedger keeps its own copy of a record it did not create", async () => {
  const ledger = new EvidenceLedger();
  // A plain, mutable record with a valid id, as one parsed from a bundle would be.
  const parsed = JSON.parse(JSON.stringify(await createEvidence(draft()))) as EvidenceRecord;
  const pristine = structuredClone(parsed);
  assert.equal((await ledger.record(parsed)).status, "added");
  (parsed.normalized_result as { has_more: boolean }).has_more = true;
  parsed.limitations.push("edited after recording");
  assert.deepEqual(ledger.get(pristine.evidence_id), pristine);
  assert.deepEqual(ledger.list(), [pristine]);
});

Deno.test("EvidenceLedger counts each record's UTF-8 JSON size exactly, non-ASCII and astral text included", async () => {
  const ledger = new EvidenceLedger();
  let expected = 0;
  for (const text of ["plain", "café", "日本語", "😀 astral", "\ud800 lone"]) {
    const record = await createEvidence({
      subject: {
        name: `file-${text}`,
        digest: { sha256: "a".repeat(64) },
        format: "elf",
        architecture: "x86_64",
        local_path: `/tmp/${text}`,
      },
      provider: { id: "native", name: "n", version: null },
      operation: "probe",
      parameters: { text },
      normalized_result: { text, nested: [{ b: text, a: 1 }] },
    });
    expected += new TextEncoder().encode(JSON.stringify(record)).length;
    await ledger.record(record);
    assert.equal(ledger.bytes, expected, text);
  }
});

Deno.test("createEvidence() freezes a transferred plain result in place and gives the same id as a copy", async () => {
  const make = () => ({ items: [{ address: "0x10", value: "f" }], total: 1, note: "ü" });
  const base = {
    subject: null,
    provider: { id: "native", name: "n", version: null },
    operation: "probe",
    parameters: { offset: 0 },
  };
  const result = make();
  const moved = await createEvidence({ ...base, normalized_result: result, transferred: true });
  const copied = await createEvidence({ ...base, normalized_result: make() });
  assert.equal(moved.normalized_result, result, "kept in place");
  assert.ok(Object.isFrozen(result) && Object.isFrozen(result.items[0]));
  assert.equal(moved.evidence_id, copied.evidence_id);
  assert.deepEqual(moved, copied);
  const { evidence_id: _id, ...body } = moved;
  assert.equal(computeEvidenceId(body), moved.evidence_id);
  // A result that is not plain JSON is copied as before.
  const dated = await createEvidence({
    ...base,
    normalized_result: { when: new Date(0) },
    transferred: true,
  });
  assert.deepEqual(dated.normalized_result, { when: "1970-01-01T00:00:00.000Z" });
});

Deno.test("analysisProfile() digests the canonical JSON of its other four fields and enforces its bounds", async () => {
  const provider = { id: "native", name: "Casefile native provider", version: "0.1.0" };
  const profile = analysisProfile(provider, 1, { z: [1, "two"], a: { b: true } });
  // The canonical form written out by hand: sorted keys, no spaces.
  const expected =
    '{"parameters":{"a":{"b":true},"z":[1,"two"]},"provider":{"id":"native","name":"Casefile native provider","version":"0.1.0"},"provider_profile_schema_version":1,"schema_version":1}';
  const digest = toHex(
    new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(expected))),
  );
  assert.equal(profile.digest, digest);
  assert.ok(Object.isFrozen(profile));
  assert.throws(() => analysisProfile({ ...provider, version: null }, 1, {}), /needs the version/);
  let deep: Record<string, unknown> = {};
  const root = deep;
  for (let i = 0; i < 20; i++) deep = (deep.x = {}) as Record<string, unknown>;
  assert.throws(() => analysisProfile(provider, 1, root as never), /too deep/);
  assert.throws(
    () => analysisProfile(provider, 1, { many: Array.from({ length: 5000 }, (_, i) => i) }),
    /too many nodes/,
  );
  assert.throws(() => analysisProfile(provider, 1, { s: "x".repeat(20_000) }), /too long/);
  assert.throws(
    () => analysisProfile(provider, 1, { a: Array.from({ length: 4000 }, () => "y".repeat(30)) }),
    /64 KiB/,
  );
});

Deno.test("createEvidence() records the analysis profile in the id and refuses one of another provider", async () => {
  const provider = { id: "native", name: "Casefile native provider", version: "0.1.0" };
  const plain = await createEvidence(draft());
  const profiled = await createEvidence(
    draft({ analysis_profile: analysisProfile(provider, 1, { bound: 1 }) }),
  );
  const other = await createEvidence(
    draft({ analysis_profile: analysisProfile(provider, 1, { bound: 2 }) }),
  );
  assert.equal("analysis_profile" in plain, false);
  assert.equal(profiled.analysis_profile?.parameters.bound, 1);
  assert.notEqual(profiled.evidence_id, plain.evidence_id);
  assert.notEqual(profiled.evidence_id, other.evidence_id);
  const { evidence_id: _, ...body } = profiled;
  assert.equal(computeEvidenceId(body), profiled.evidence_id);
  assert.throws(
    () =>
      createEvidence(draft({
        analysis_profile: analysisProfile({ ...provider, version: "9.9" }, 1, {}),
      })),
    /not the record's provider/,
  );
});
