import assert, { deepStrictEqual, rejects, strictEqual } from "node:assert/strict";
import { OntologyEngine } from "../src/cloud/ontology/engine.ts";
import {
  OntologyArgumentError,
  SparqlRefusedError,
  SparqlSyntaxError,
  SparqlTimeoutError,
} from "../src/cloud/ontology/errors.ts";
import { makeView, smallEstate } from "./helpers/cloud_estate.ts";

const view = makeView(smallEstate());

/** A query that would run for hours: a property path under a cartesian product. */
const FOREVER = `SELECT (COUNT(*) AS ?n) WHERE {
  ?a (cmp:hasName|!cmp:hasName)* ?b . ?c ?d ?e . ?f ?g ?h . ?i ?j ?k }`;

Deno.test("OntologyEngine builds once per dataset version in a worker", async () => {
  const engine = new OntologyEngine({ batchSize: 5 });
  try {
    strictEqual(engine.isolated, true);
    const progress: number[] = [];
    const first = await engine.ensureView(view, { onProgress: (done) => progress.push(done) });
    strictEqual(first.built_now, true);
    strictEqual(first.key, "0123456789abcdef:1");
    assert(progress.length >= 8, `progress came in batches (${progress.length} calls)`);
    strictEqual(progress[0], 0);
    strictEqual(progress.at(-1), 39);
    let inputs = 0;
    const again = await engine.ensure(first.key, () => {
      inputs++;
      throw new Error("not needed");
    });
    deepStrictEqual([again.built_now, again.triples, inputs], [false, first.triples, 0]);
    const stats = await engine.stats();
    strictEqual(stats.triples, first.triples);
    strictEqual(stats.individuals, 28);
    // A new version of the dataset is a new build.
    const next = await engine.ensureView(makeView(smallEstate(), { version: 2 }));
    deepStrictEqual([next.built_now, next.key], [true, "0123456789abcdef:2"]);
  } finally {
    engine.close();
  }
});

Deno.test("OntologyEngine.query() answers from the worker and refuses before sending", async () => {
  const engine = new OntologyEngine();
  try {
    await rejects(engine.query("ASK { ?s ?p ?o }"), OntologyArgumentError);
    await engine.ensureView(view);
    const result = await engine.query(
      "SELECT ?name WHERE { ?x cmp:ROLE_ASSUMES_ROLE ?r . ?r cmp:hasName ?name }",
    );
    assert(result.kind === "select");
    deepStrictEqual(result.rows, [{ name: "deploy-role" }]);
    assert(result.elapsed_ms >= 0);
    await rejects(engine.query("DROP ALL"), SparqlRefusedError);
    await rejects(
      engine.query("SELECT * WHERE { SERVICE <http://x> { ?s ?p ?o } }"),
      SparqlRefusedError,
    );
    await rejects(engine.query("SELECT * WHERE { ?s ?p }"), SparqlSyntaxError);
    const limited = await engine.query("SELECT * WHERE { ?s ?p ?o }", { limit: 10 });
    assert(limited.kind === "select");
    deepStrictEqual([limited.returned, limited.truncated], [10, true]);
  } finally {
    engine.close();
  }
});

Deno.test("OntologyEngine.query() stops a runaway query at its time limit; the event loop stays free", async () => {
  const engine = new OntologyEngine();
  try {
    await engine.ensureView(view);
    const before = await engine.query("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }");
    let ticks = 0;
    const timer = setInterval(() => ticks++, 20);
    const started = performance.now();
    try {
      await rejects(
        engine.query(FOREVER, { timeoutMs: 1000 }),
        (e: unknown) => e instanceof SparqlTimeoutError && e.timeoutMs === 1000,
      );
    } finally {
      clearInterval(timer);
    }
    const elapsed = performance.now() - started;
    assert(elapsed >= 1000 && elapsed < 6000, `stopped after ${Math.round(elapsed)} ms`);
    // A 20 ms timer over ~1 s (up to 50 ticks): it kept firing while the query ran in the
    // worker (the margin allows for a busy machine).
    assert(ticks >= 15, `the main thread timer fired ${ticks} times`);
    // The next request starts a new worker and rebuilds the store.
    const after = await engine.query("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }");
    deepStrictEqual(after.kind === "select" && after.rows, before.kind === "select" && before.rows);
    const stats = await engine.stats();
    strictEqual(stats.object_properties, 64);
  } finally {
    engine.close();
  }
});

Deno.test("OntologyEngine answers neighbourhoods, groups, dumps and chunks from the worker", async () => {
  const engine = new OntologyEngine();
  try {
    await engine.ensureView(view);
    const around = await engine.neighbourhood("sg-admin", { hops: 1 });
    deepStrictEqual(
      around.triples.map((t) => `${t.subject} ${t.relation} ${t.object}`).sort(),
      [
        "cmr:0.0.0.0/0 INGRESS_ALLOWED cmr:sg-admin",
        "cmr:0.0.0.0/0 INTERNET_REACHABLE cmr:sg-admin",
        "cmr:0.0.0.0/0 ONLY_SSH cmr:sg-admin",
        "cmr:bastion PROTECTED_BY_SG cmr:sg-admin",
        "cmr:compliance_CIS-AWS COMPLIANCE_GOVERNS cmr:sg-admin",
        "cmr:compliance_PCI-DSS COMPLIANCE_GOVERNS cmr:sg-admin",
        "cmr:finding_f-ssh-open FINDING_AFFECTS cmr:sg-admin",
      ],
    );
    await rejects(engine.neighbourhood("nope"), OntologyArgumentError);
    const groups = await engine.relationGroups();
    assert(groups.kind === "overview");
    strictEqual(groups.total, 43);
    const dump = await engine.dump("nt");
    strictEqual(dump.text.trim().split("\n").length, (await engine.stats()).triples);
    const chunks = await engine.ragChunks({ chunkType: "relation_group" });
    strictEqual(chunks.total, 7);
  } finally {
    engine.close();
  }
});

Deno.test("OntologyEngine runs in-process when asked, with the same answers", async () => {
  const inline = new OntologyEngine({ isolation: "inline" });
  try {
    strictEqual(inline.isolated, false);
    await inline.ensureView(view);
    const result = await inline.query("SELECT (COUNT(*) AS ?n) WHERE { ?a a cm:ComputeInstance }");
    assert(result.kind === "select");
    deepStrictEqual(result.rows, [{ n: 3 }]);
    // The control for the worker test: in-process, a heavy query holds the event loop.
    let ticks = 0;
    const timer = setInterval(() => ticks++, 20);
    const started = performance.now();
    try {
      const heavy = await inline.query("SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f }");
      assert(heavy.kind === "select");
      deepStrictEqual(heavy.rows, [{ n: 1075 * 1075 }]);
    } finally {
      clearInterval(timer);
    }
    const elapsed = performance.now() - started;
    assert(elapsed > 100 && ticks <= 1, `${ticks} ticks in ${Math.round(elapsed)} ms`);
  } finally {
    inline.close();
  }
  await rejects(inline.stats(), /closed/);
});

Deno.test("OntologyEngine without read permission runs in-process, or says which flag a worker needs", async () => {
  const probe = new URL("./fixtures/ontology_engine_probe.ts", import.meta.url);
  const run = async (mode: string): Promise<Record<string, unknown>> => {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-prompt", "--quiet", probe.pathname, mode],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(output.stdout).trim();
    assert(text !== "", new TextDecoder().decode(output.stderr));
    return JSON.parse(text.split("\n").at(-1)!);
  };
  const auto = await run("auto");
  strictEqual(auto.isolated, false);
  deepStrictEqual((auto.result as { rows: unknown[] }).rows, [{ n: 23 }]);
  const forced = await run("worker");
  strictEqual(forced.isolated, true);
  assert(
    /needs --allow-read=\S*\/src\/|Start the process with --allow-read=\S*\/src\//
      .test(
        String(forced.error),
      ),
    String(forced.error),
  );
});
