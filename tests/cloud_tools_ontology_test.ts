import assert from "node:assert/strict";
// @ts-types="@types/n3"
import { Parser as N3Parser } from "n3";
// @ts-types="@types/jsonld"
import jsonld from "jsonld";
import { RdfXmlParser } from "rdfxml-streaming-parser";
import { call, fails, type Loose, ok } from "./helpers/in_memory.ts";
import { sampleRecords, WAF_ASSET_ID } from "../src/cloud/demo/estate.ts";
import {
  cursorPages,
  readTextContent,
  withDemoClient,
  workspaceListing,
} from "./helpers/cloud_client.ts";

/** A query that would run for hours: a property path over everything, joined three times. */
const FOREVER = `SELECT (COUNT(*) AS ?n) WHERE {
  ?a (cmp:hasName|!cmp:hasName)* ?b . ?c ?d ?e . ?f ?g ?h . ?i ?j ?k }`;

Deno.test("ontology_stats builds once with progress, then reuses the ontology; links the Turtle", async () => {
  await withDemoClient(async (client) => {
    const progress: { progress: number; total?: number }[] = [];
    const first = await client.callTool(
      { name: "ontology_stats", arguments: {} },
      undefined,
      { onprogress: (event) => progress.push(event) },
    );
    assert.equal(first.isError, undefined);
    const stats = (first.structuredContent as Loose).result;
    assert.equal(stats.dataset, "sample");
    assert.equal(stats.built_now, true);
    assert.equal(stats.isolated, true, "the test process may load the worker");
    assert.equal(stats.object_properties, 64);
    assert.equal(stats.classes_used, 30);
    // Every asset, plus tags, findings and compliance frameworks, is an individual.
    assert.ok(stats.individuals >= sampleRecords().assets.length);
    assert.equal(stats.relation_types.PROTECTED_BY_WAF, 1);
    assert.equal(
      Object.values(stats.relation_groups as Record<string, number>).reduce((a, b) => a + b, 0),
      stats.relation_triples,
    );
    // Progress went from 0 to the total, never backwards.
    assert.ok(progress.length >= 2, JSON.stringify(progress));
    assert.equal(progress[0]!.progress, 0);
    const last = progress[progress.length - 1]!;
    assert.equal(last.progress, last.total);
    for (let i = 1; i < progress.length; i++) {
      assert.ok(progress[i]!.progress >= progress[i - 1]!.progress);
    }
    const links = (first.content as Loose[]).filter((c) => c.type === "resource_link");
    assert.deepEqual(links.map((l) => [l.uri, l.mimeType]), [[
      "cloudg://ontology/turtle",
      "text/turtle",
    ]]);
    const turtle = await readTextContent(client, links[0].uri);
    assert.equal(new N3Parser({ format: "text/turtle" }).parse(turtle.text).length, stats.triples);

    const again: typeof progress = [];
    const second = await client.callTool(
      { name: "ontology_stats", arguments: { dataset: "sample" } },
      undefined,
      { onprogress: (event) => again.push(event) },
    );
    const reused = (second.structuredContent as Loose).result;
    assert.equal(reused.built_now, false);
    assert.equal(reused.triples, stats.triples);
    assert.deepEqual(again, [], "no progress when nothing is built");
    // The triple count agrees with SPARQL's.
    const counted = await ok(client, "sparql_query", {
      query: "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }",
    });
    assert.equal(counted.result.rows[0].n, stats.triples);
  });
});

Deno.test("sparql_query answers known questions about the demo estate", async () => {
  await withDemoClient(async (client) => {
    // Compute instances, by the spec's class map: EC2, VIRTUAL_MACHINE, GCE_INSTANCE.
    const compute = sampleRecords().assets.filter((a) =>
      ["EC2", "VIRTUAL_MACHINE", "GCE_INSTANCE"].includes(a.asset_type)
    );
    assert.equal(compute.length, 5);
    const counted = await ok(client, "sparql_query", {
      query: "SELECT (COUNT(?a) AS ?n) WHERE { ?a a cm:ComputeInstance }",
    });
    assert.equal(counted.result.kind, "select");
    assert.deepEqual(counted.result.rows, [{ n: 5 }]);
    assert.deepEqual(counted.result.variable_kinds, { n: "literal" });

    const listed = await ok(client, "sparql_query", {
      query: "SELECT ?a WHERE { ?a a cm:ComputeInstance } ORDER BY ?a",
    });
    assert.deepEqual(
      listed.result.rows.map((r: Loose) => r.a),
      compute.map((a) => `cmr:${a.id}`).sort(),
    );

    // The WAF web ACL protects the web load balancer, and only it.
    const waf = await ok(client, "sparql_query", {
      query: "SELECT ?waf ?name ?target WHERE { ?waf cmp:PROTECTED_BY_WAF ?target ; " +
        "cmp:hasName ?name }",
    });
    assert.deepEqual(waf.result.rows, [{
      waf: `cmr:${WAF_ASSET_ID}`,
      name: "web-acl",
      target: "cmr:alb-web",
    }]);
    const full = await ok(client, "sparql_query", {
      query: "SELECT ?waf WHERE { ?waf cmp:PROTECTED_BY_WAF ?target }",
      compact_uris: false,
    });
    assert.deepEqual(full.result.rows, [{ waf: `https://cloudg.io/resource/${WAF_ASSET_ID}` }]);

    // ASK on the estate without the WAF; CONSTRUCT returns triples.
    const asked = await ok(client, "sparql_query", {
      query: "ASK { ?w cmp:PROTECTED_BY_WAF ?t }",
      dataset: "after",
    });
    assert.deepEqual([asked.result.kind, asked.result.answer], ["ask", false]);
    const constructed = await ok(client, "sparql_query", {
      query: "CONSTRUCT { ?t cmp:guardedBy ?w } WHERE { ?w cmp:PROTECTED_BY_WAF ?t }",
    });
    assert.equal(constructed.result.kind, "graph");
    assert.deepEqual(constructed.result.triples, [{
      subject: "cmr:alb-web",
      predicate: "cmp:guardedBy",
      object: `cmr:${WAF_ASSET_ID}`,
    }]);
  });
});

Deno.test("sparql_query bounds rows by limit and reports truncation", async () => {
  await withDemoClient(async (client) => {
    const stats = await ok(client, "ontology_stats");
    const page = await ok(client, "sparql_query", {
      query: "SELECT ?s ?p ?o WHERE { ?s ?p ?o }",
      limit: 7,
    });
    assert.deepEqual([page.result.returned, page.result.rows.length], [7, 7]);
    assert.equal(page.result.truncated, true);
    const all = await ok(client, "sparql_query", {
      query: "SELECT ?s ?p ?o WHERE { ?s ?p ?o }",
      limit: 1000,
    });
    assert.equal(all.result.returned, 1000);
    assert.equal(all.result.truncated, stats.result.triples > 1000);
    const whole = await ok(client, "sparql_query", {
      query: "SELECT ?s WHERE { ?s cmp:PROTECTED_BY_WAF ?o }",
      limit: 1,
    });
    assert.deepEqual([whole.result.returned, whole.result.truncated], [1, false]);
    const before = await workspaceListing(client);
    for (const limit of [0, 1001, 2.5]) {
      await fails(client, "sparql_query", { query: "ASK { ?s ?p ?o }", limit });
    }
    assert.deepStrictEqual(await workspaceListing(client), before);
  });
});

Deno.test("sparql_query refuses updates, SERVICE and FROM before anything runs", async () => {
  await withDemoClient(async (client) => {
    const before = await workspaceListing(client);
    const refused: [string, string][] = [
      ["INSERT DATA { cmr:x cmp:hasName 'x' }", "update"],
      ["DELETE WHERE { ?s ?p ?o }", "update"],
      ["CLEAR DEFAULT", "update"],
      ["SELECT * WHERE { SERVICE <http://example.org/sparql> { ?s ?p ?o } }", "service"],
      ["SELECT * FROM <http://example.org/g> WHERE { ?s ?p ?o }", "dataset_clause"],
      [
        "SELECT * FROM NAMED <http://example.org/g> WHERE { GRAPH ?g { ?s ?p ?o } }",
        "dataset_clause",
      ],
    ];
    for (const [query, reason] of refused) {
      const error = await fails(client, "sparql_query", { query });
      assert.equal(error.code, "invalid_request", query);
      assert.equal(error.details.reason, reason, query);
    }
    // Nothing was built or run: the first stats call still builds.
    const stats = await ok(client, "ontology_stats");
    assert.equal(stats.result.built_now, true);
    // And nothing changed: the WAF's name is as it was.
    const name = await ok(client, "sparql_query", {
      query: `SELECT ?n WHERE { cmr:${WAF_ASSET_ID} cmp:hasName ?n }`,
    });
    assert.deepEqual(name.result.rows, [{ n: "web-acl" }]);
    assert.deepStrictEqual(await workspaceListing(client), before);
  });
});

Deno.test("sparql_query reports a syntax error with its line and column", async () => {
  await withDemoClient(async (client) => {
    const error = await fails(client, "sparql_query", {
      query: "SELECT ?s\nWHERE {\n  ?s ?p ?o .\n  FILTER(?o = )\n}",
    });
    assert.equal(error.code, "invalid_request");
    // The ")" in the fourth line, fifteenth column.
    assert.deepEqual([error.details.line, error.details.column], [4, 15]);
    assert.match(error.message, /line 4, column 15/);
    const prefix = await fails(client, "sparql_query", {
      query: "SELECT ?s WHERE { ?s nope:thing ?o }",
    });
    assert.equal(prefix.code, "invalid_request");
    assert.equal(prefix.details.line, 1);
    assert.match(prefix.message, /nope/);
    const empty = await fails(client, "sparql_query", { query: "   " });
    assert.equal(empty.details.reason, "empty");
    await fails(client, "sparql_query", { query: "ASK {}", dataset: "nope" });
  });
});

Deno.test("sparql_query stops a runaway query at its time limit while other calls are answered", async () => {
  await withDemoClient(async (client) => {
    await ok(client, "ontology_stats");
    const started = performance.now();
    let settled = false;
    const runaway = call(client, "sparql_query", { query: FOREVER, timeout_ms: 1500 })
      .finally(() => settled = true);
    // The server keeps answering while the query runs in its worker.
    const answered: number[] = [];
    for (let i = 0; i < 3; i++) {
      const status = await ok(client, "workspace_status");
      assert.equal(status.result.active_dataset, "sample");
      answered.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, 150));
    }
    assert.equal(settled, false, "the runaway query is still running");
    assert.ok(answered.every((ms) => ms < 1500), JSON.stringify(answered));
    const outcome = await runaway;
    const elapsed = performance.now() - started;
    assert.equal(outcome.isError, true);
    const error = outcome.structured.error;
    assert.equal(error.code, "limit_exceeded");
    assert.equal(error.category, "timeout");
    assert.equal(error.details.timeout_ms, 1500);
    assert.match(error.message, /1500 ms/);
    assert.ok(elapsed >= 1400 && elapsed < 15_000, `stopped after ${elapsed} ms`);
    // The engine recovers: the next query rebuilds the store and answers.
    const next = await ok(client, "sparql_query", {
      query: "SELECT (COUNT(?a) AS ?n) WHERE { ?a a cm:ComputeInstance }",
    });
    assert.deepEqual(next.result.rows, [{ n: 5 }]);
    await fails(client, "sparql_query", { query: "ASK {}", timeout_ms: 50 });
  });
});

/** Triples of each serialisation, as independent parsers read them. */
async function parsedCount(format: string, text: string): Promise<number> {
  switch (format) {
    case "turtle":
      return new N3Parser({ format: "text/turtle" }).parse(text).length;
    case "nt":
      return new N3Parser({ format: "N-Triples" }).parse(text).length;
    case "json-ld":
      return ((await jsonld.toRDF(JSON.parse(text))) as unknown as unknown[]).length;
    case "xml": {
      let n = 0;
      await new Promise<void>((resolve, reject) => {
        const parser = new RdfXmlParser();
        parser.on("data", () => n++);
        parser.on("error", reject);
        parser.on("end", () => resolve());
        parser.write(text);
        parser.end();
      });
      return n;
    }
  }
  throw new Error(`no parser for ${format}`);
}

Deno.test("cloudg://ontology/{format} serves four formats that independent parsers read back", async () => {
  await withDemoClient(async (client) => {
    const stats = await ok(client, "ontology_stats");
    const triples: number = stats.result.triples;
    const expected: [string, string][] = [
      ["turtle", "text/turtle"],
      ["json-ld", "application/ld+json"],
      ["xml", "application/rdf+xml"],
      ["nt", "application/n-triples"],
    ];
    for (const [format, mimeType] of expected) {
      const read = await readTextContent(client, `cloudg://ontology/${format}`);
      assert.equal(read.mimeType, mimeType, format);
      assert.equal(await parsedCount(format, read.text), triples, format);
    }
    const fixed = await readTextContent(client, "cloudg://ontology/turtle");
    assert.ok(fixed.text.includes(`cmr:${WAF_ASSET_ID}`) || fixed.text.includes(WAF_ASSET_ID));
    await assert.rejects(client.readResource({ uri: "cloudg://ontology/rdfa" }), /turtle, json-ld/);

    const listed = await client.listResources();
    const turtle = listed.resources.find((r) => r.uri === "cloudg://ontology/turtle");
    assert.equal(turtle?.mimeType, "text/turtle");
    const templates = await client.listResourceTemplates();
    const template = templates.resourceTemplates.find((t) =>
      t.uriTemplate === "cloudg://ontology/{format}"
    );
    assert.equal(template?.mimeType, "text/turtle");
    const completed = await client.complete({
      ref: { type: "ref/resource", uri: "cloudg://ontology/{format}" },
      argument: { name: "format", value: "" },
    });
    assert.deepEqual(completed.completion.values, ["turtle", "json-ld", "xml", "nt"]);
    const partial = await client.complete({
      ref: { type: "ref/resource", uri: "cloudg://ontology/{format}" },
      argument: { name: "format", value: "J" },
    });
    assert.deepEqual(partial.completion.values, ["json-ld"]);
  });
});

Deno.test("ontology resources read the active dataset and follow dataset changes", async () => {
  await withDemoClient(async (client) => {
    const sample = await readTextContent(client, "cloudg://ontology/nt");
    assert.ok(sample.text.includes(`/resource/${WAF_ASSET_ID}>`));
    await ok(client, "select_dataset", { name: "after" });
    const after = await readTextContent(client, "cloudg://ontology/nt");
    assert.ok(!after.text.includes(`/resource/${WAF_ASSET_ID}>`), "after has no WAF");
    await ok(client, "unload_dataset", { name: "after" });
    await ok(client, "unload_dataset", { name: "sample" });
    await assert.rejects(client.readResource({ uri: "cloudg://ontology/turtle" }), /load_dataset/);
    await fails(client, "ontology_stats");
  });
});

Deno.test("ontology_neighbourhood walks relations around an asset by any reference", async () => {
  await withDemoClient(async (client) => {
    const byName = await ok(client, "ontology_neighbourhood", { ref: "web-acl" });
    assert.equal(byName.result.asset_id, WAF_ASSET_ID);
    assert.equal(byName.result.center, `cmr:${WAF_ASSET_ID}`);
    assert.deepEqual(
      byName.result.triples.map((t: Loose) => [t.subject, t.relation, t.object, t.hop]),
      [[`cmr:${WAF_ASSET_ID}`, "PROTECTED_BY_WAF", "cmr:alb-web", 1]],
    );
    assert.deepEqual(byName.result.nodes[0], {
      iri: `cmr:${WAF_ASSET_ID}`,
      name: "web-acl",
      types: ["cm:WebApplicationFirewall"],
      hop: 0,
    });
    const wider = await ok(client, "ontology_neighbourhood", { ref: WAF_ASSET_ID, hops: 2 });
    assert.ok(wider.result.triples.length > 1);
    assert.ok(wider.result.triples.some((t: Loose) => t.hop === 2));
    const capped = await ok(client, "ontology_neighbourhood", {
      ref: WAF_ASSET_ID,
      hops: 3,
      limit: 2,
    });
    assert.deepEqual([capped.result.triples.length, capped.result.truncated], [2, true]);
    // A placeholder endpoint is a node but not an asset.
    const internet = await ok(client, "ontology_neighbourhood", { ref: "0.0.0.0/0" });
    assert.equal(internet.result.asset_id, null);
    assert.ok(internet.result.triples.length > 0);

    const before = await workspaceListing(client);
    const unknown = await fails(client, "ontology_neighbourhood", { ref: "web-acll" });
    assert.equal(unknown.code, "not_found");
    assert.ok(
      unknown.details.suggestions.some((s: Loose) => s.id === WAF_ASSET_ID),
      JSON.stringify(unknown.details),
    );
    await fails(client, "ontology_neighbourhood", { ref: "cmr:nothing-here" });
    await fails(client, "ontology_neighbourhood", { ref: WAF_ASSET_ID, hops: 4 });
    await fails(client, "ontology_neighbourhood", { ref: WAF_ASSET_ID, dataset: "nope" });
    assert.deepStrictEqual(await workspaceListing(client), before);
  });
});

Deno.test("relation_groups gives the overview, then a group's triples page by page", async () => {
  await withDemoClient(async (client) => {
    const stats = await ok(client, "ontology_stats");
    const overview = await ok(client, "relation_groups");
    assert.equal(overview.result.kind, "overview");
    assert.equal(overview.result.total, stats.result.relation_triples);
    assert.deepEqual(
      overview.result.groups.map((g: Loose) => g.group),
      ["NETWORK", "CONTAINMENT", "IAM", "DATA_FLOW", "SECURITY", "COMPUTE", "GOVERNANCE"],
    );
    const security = overview.result.groups.find((g: Loose) => g.group === "SECURITY");
    assert.equal(security.triples, stats.result.relation_groups.SECURITY);
    assert.equal(security.relation_types.PROTECTED_BY_WAF, 1);

    const seen: Loose[] = [];
    const pages = await cursorPages(client, "relation_groups", { group: "security", limit: 10 });
    for (const page of pages) {
      assert.equal(page.group, "SECURITY");
      assert.equal(page.total, security.triples);
      assert.equal(page.offset, seen.length);
      seen.push(...page.items);
      assert.equal(page.truncated, (page.next_cursor ?? undefined) !== undefined);
    }
    assert.equal(seen.length, security.triples);
    assert.equal(pages.length, Math.ceil(security.triples / 10));
    assert.equal(
      new Set(seen.map((t) => `${t.subject} ${t.relation} ${t.object}`)).size,
      seen.length,
    );
    assert.ok(
      seen.some((t) =>
        t.relation === "PROTECTED_BY_WAF" && t.subject_name === "web-acl" &&
        t.object === "cmr:alb-web"
      ),
    );

    const first = await ok(client, "relation_groups", { group: "SECURITY", limit: 10 });
    const before = await workspaceListing(client);
    const stale = await fails(client, "relation_groups", {
      group: "NETWORK",
      cursor: first.result.next_cursor,
    });
    assert.match(stale.message, /Stale cursor/);
    const forged = await fails(client, "relation_groups", { group: "SECURITY", cursor: "c5.zzz" });
    assert.match(forged.message, /Invalid cursor/);
    const unknown = await fails(client, "relation_groups", { group: "SECURTY" });
    assert.deepEqual(unknown.details.close_matches, ["SECURITY"]);
    await fails(client, "relation_groups", { limit: 501 });
    await fails(client, "relation_groups", { dataset: "nope" });
    assert.deepStrictEqual(await workspaceListing(client), before);
  });
});

Deno.test("rag_chunks pages entity, community and relation-group chunks with filters", async () => {
  await withDemoClient(async (client) => {
    const records = sampleRecords();
    const entities = await ok(client, "rag_chunks", { limit: 100 });
    assert.equal(entities.result.total, records.assets.length);
    assert.deepEqual(
      entities.result.items.map((c: Loose) => c.chunk_id),
      records.assets.map((a) => `entity::${a.id}`).sort(),
    );
    assert.equal(entities.result.next_cursor, null);

    const firstPage = await ok(client, "rag_chunks", { limit: 10 });
    const second = await ok(client, "rag_chunks", {
      limit: 10,
      cursor: firstPage.result.next_cursor,
    });
    assert.equal(second.result.offset, 10);
    assert.deepEqual(second.result.items, entities.result.items.slice(10, 20));

    const waf = await ok(client, "rag_chunks", { ref: "web-acl" });
    assert.deepEqual(waf.result.items.map((c: Loose) => c.chunk_id), [`entity::${WAF_ASSET_ID}`]);
    assert.match(waf.result.items[0].content, /PROTECTED_BY_WAF/);

    const groups = await ok(client, "rag_chunks", { chunk_type: "Relation-Group", limit: 100 });
    assert.equal(groups.result.chunk_type, "relation_group");
    assert.ok(groups.result.items.some((c: Loose) => c.chunk_id === "relation_group::SECURITY"));
    const communities = await ok(client, "rag_chunks", { chunk_type: "community", limit: 100 });
    assert.ok(communities.result.total >= 1);
    assert.ok(communities.result.items.every((c: Loose) => c.chunk_id.startsWith("community::")));

    const severe = await ok(client, "rag_chunks", { min_severity: "critical", limit: 100 });
    const critical = new Set(
      records.findings.filter((f) => f.severity === "CRITICAL").map((f) => f.resource_id),
    );
    assert.ok(severe.result.total >= 1 && severe.result.total <= critical.size + 1);

    const before = await workspaceListing(client);
    await fails(client, "rag_chunks", { chunk_type: "entities" });
    await fails(client, "rag_chunks", { min_severity: "urgent" });
    await fails(client, "rag_chunks", { limit: 101 });
    const unknown = await fails(client, "rag_chunks", { ref: "web-acll" });
    assert.ok(unknown.details.suggestions.length >= 1);
    const stale = await fails(client, "rag_chunks", {
      chunk_type: "community",
      cursor: firstPage.result.next_cursor,
    });
    assert.match(stale.message, /Stale cursor/);
    await fails(client, "rag_chunks", { dataset: "nope" });
    assert.deepStrictEqual(await workspaceListing(client), before);
  });
});

/** Runs the isolation helper in a process with only `flags`. */
async function isolationRun(flags: string[]): Promise<Loose> {
  const helper = new URL("./helpers/ontology_isolation.ts", import.meta.url);
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", ...flags, helper.pathname],
    cwd: new URL("../", import.meta.url).pathname,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stdout);
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  return JSON.parse(text.trim().split("\n").pop()!);
}

Deno.test("without read access to src the ontology runs in-process and says the time limit is not enforced", async () => {
  const { stats, query } = await isolationRun(["--allow-env"]);
  assert.equal(stats.isolated, false);
  assert.equal(query.isolated, false);
  assert.match(query.note, /time limit could not be enforced/);
  assert.deepEqual(query.rows, [{ n: 5 }]);
});

Deno.test("the start task's read grant on src is enough for the query worker", async () => {
  const config = JSON.parse(
    await Deno.readTextFile(new URL("../deno.json", import.meta.url)),
  ) as { tasks: Record<string, string> };
  const grant = /--allow-read=(\S+)/.exec(config.tasks.start!)![1]!;
  assert.ok(grant.split(",").includes("./src"), grant);
  const { stats, query } = await isolationRun(["--allow-env", "--allow-read=./src"]);
  assert.equal(stats.isolated, true);
  assert.equal(query.isolated, true);
  assert.equal(query.note, undefined);
});
