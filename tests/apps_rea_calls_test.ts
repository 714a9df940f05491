/**
 * Calls in REA 3.1.0's shape, generated from its published tool inputs
 * (`shared/docs/rea-tool-inputs.jsonl`: names, families and input schemas),
 * replayed against the apps workbench: every REA argument of a tool we also
 * have is declared by our schema, a call built from REA's argument names and
 * defaults (with values taken from a live session on a real binary) is
 * accepted, and REA's meaning takes effect where the result can show it.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { APPS_TOOLSETS } from "../src/apps/workbench.ts";
import { call, connect, type Loose, withClient } from "./helpers/in_memory.ts";

const REA_INPUTS = fileURLToPath(
  new URL("../../shared/docs/rea-tool-inputs.jsonl", import.meta.url),
);
const TRUE = "/usr/bin/true";
const HAVE_INPUTS = (() => {
  try {
    return Deno.statSync(REA_INPUTS).isFile && Deno.statSync(TRUE).isFile;
  } catch {
    return false;
  }
})();
const SKIP = HAVE_INPUTS ? false : `${REA_INPUTS} or ${TRUE} is missing`;
if (SKIP) console.log(`apps_rea_calls_test: skipping, ${SKIP}`);

type Schema = Record<string, Loose>;

interface ReaTool {
  name: string;
  family: string;
  inputSchema: Schema;
}

function reaTools(): ReaTool[] {
  return Deno.readTextFileSync(REA_INPUTS).split("\n").filter((line) => line.trim()).map((line) =>
    JSON.parse(line)
  ).filter((entry) => typeof entry.name === "string");
}

/** The property schemas of an object schema, union branches included (first branch wins). */
function propertiesOf(schema: Schema): Record<string, Schema> {
  const found: Record<string, Schema> = {};
  for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])] as Schema[]) {
    for (const [key, value] of Object.entries(propertiesOf(branch))) found[key] ??= value;
  }
  return { ...found, ...(schema.properties ?? {}) };
}

/** REA's call with nothing but its defaults (and the registry opt-in where REA has it). */
function reaDefaults(schema: Schema): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(propertiesOf(schema))) {
    if ("default" in property) args[key] = structuredClone(property.default);
    else if (key === "unknown_registry_approved") args[key] = true;
  }
  return args;
}

/** What the session built so far, for later calls' arguments. */
interface Session {
  dir: string;
  document: string;
  entry: string;
  callee: string;
  dossier: Loose;
  fullDossier: Loose;
  dossierId: string;
  inventoryId: string;
  otherInventoryId: string;
  occurrenceId: string;
  artifactComparisonId: string;
  unknownId: string;
  unknownHead: Loose;
  bundleDigest: string;
}

const FAKE_EVIDENCE = `ev_${"0".repeat(64)}`;

/**
 * REA-shaped arguments per tool, by REA's argument names only, with values
 * from the session. A tool both catalogs have and this table lacks fails the test.
 */
const BUILDERS: Record<string, (s: Session) => Record<string, unknown>> = {
  binary_session: () => ({
    detail: "full",
    capability_family: "session",
    cursor: 0,
    limit: 1,
    expected_package_version: "3.1.0",
    expected_server_path: "/nonexistent/rea-server",
    expected_catalog_digest: "0".repeat(64),
  }),
  open_binary: () => ({ path: TRUE, provider_id: "auto" }),
  list_documents: () => ({}),
  set_current_document: (s) => ({ document: s.document }),
  list_procedures: (s) => ({ document: s.document, limit: 3, offset: 1 }),
  binary_overview: () => ({ detail: "detailed", limit: 2 }),
  search_strings: (s) => ({ pattern: "GNU", document: s.document, limit: 5 }),
  search_procedures: (s) => ({ pattern: ".", mode: "regex", document: s.document, limit: 2 }),
  procedure_address: (s) => ({ procedure: s.entry, document: s.document }),
  resolve_containing_procedure: (s) => ({ address: s.entry, document: s.document }),
  analyze_function: (s) => ({
    procedure: s.entry,
    limit: 1,
    max_instructions: 400,
    include_assembly: true,
    collection_offset: { callees: 1 },
    max_pseudocode_chars: 1000,
  }),
  xrefs: (s) => ({ address: s.entry, document: s.document }),
  procedure_callers: (s) => ({ procedure: s.entry, document: s.document }),
  procedure_callees: (s) => ({ procedure: s.entry, document: s.document }),
  build_call_path: (s) => ({
    functions: [s.fullDossier],
    start: { address: s.entry },
    goal: { address: s.callee },
    max_depth: 4,
    max_paths: 5,
  }),
  trace_feature: () => ({ query: "gnu", case_sensitive: false, limit: 3, max_operations: 1 }),
  compare_functions: (s) => ({
    left_evidence_ids: [s.dossierId],
    right_evidence_ids: [s.dossierId],
  }),
  capture_process_scenario: (s) => ({
    approved: true,
    executable: TRUE,
    working_directory: s.dir,
    arguments: [],
  }),
  compare_process_captures: () => ({
    left_evidence_id: FAKE_EVIDENCE,
    right_evidence_id: `ev_${"1".repeat(64)}`,
    max_capture_age_ms: 0,
    trace_spec: {
      events: [{ id: "start", source: "lifecycle", exact: { kind: "spawn" } }],
      language: { kind: "partial_order" },
    },
  }),
  correlate_static_and_runtime: (s) => ({
    static_comparisons: [s.dossier],
    runtime_comparisons: [s.dossier],
    mappings: [{
      static: {
        comparison_evidence_id: s.dossierId,
        selector: { kind: "function", dimension: "calls" },
      },
      runtime: { comparison_evidence_id: s.dossierId, dimension: "exit" },
      side_alignment: "left_to_left",
      hypothesis: {
        statement: "The change in calls changes the exit.",
        expected_pattern: "cochanged",
      },
    }],
  }),
  find_changed_behavior: () => ({ comparisons: [] }),
  record_unknown: () => ({
    approved: true,
    question: "Does true read a locale file?",
    domain: "process-file",
    severity: "low",
    required_authority: null,
    required_confidence: "observed",
    required_environment: null,
    recommended_probes: [],
    relationships: [],
  }),
  update_unknown: (s) => ({
    approved: true,
    unknown_id: s.unknownId,
    expected_revision: 1,
    status: "investigating",
    severity: "low",
    contradicting_evidence_ids: [],
    recommended_probes: [],
    relationships: [],
    required_authority: null,
    required_confidence: "observed",
    required_environment: null,
    resolution: null,
    supporting_evidence_ids: [],
  }),
  list_unknowns: () => ({ status: "investigating" }),
  verify_unknown_resolution: (s) => ({ unknown_id: s.unknownId }),
  inventory_artifact: () => ({ integrity_policy: "fail", integrity_continue_approved: false }),
  compare_artifacts: (s) => ({
    left_evidence_ids: [s.inventoryId],
    right_evidence_ids: [s.otherInventoryId],
  }),
  extract_artifact: (s) => ({
    approved: true,
    output_root: join(s.dir, "extracted"),
    occurrence_ids: [s.occurrenceId],
  }),
  snapshot_evidence_bundle: () => ({}),
  release_evidence_bundle: (s) => ({ bundle_digest: s.bundleDigest }),
  verify_reconstruction: (s) => ({
    specification: {
      schema_version: 1,
      name: "artifact unchanged",
      claims: [{
        claim_id: "same",
        title: "The artifact is unchanged",
        comparison_evidence_id: s.artifactComparisonId,
        kind: "structural-artifact",
        dimension: "overall",
      }],
    },
    coverage: {
      workspace_id: `rcw_${"a".repeat(64)}`,
      revision: 1,
      revision_sha256: "b".repeat(64),
      boundary_id: "cli",
    },
  }),
  close_binary: (s) => ({ snapshot_path: join(s.dir, "session.snapshot.json"), overwrite: false }),
};

/** The call order (each step may use what earlier ones put in the session). */
const ORDER = `
  binary_session open_binary list_documents set_current_document list_procedures binary_overview
  search_strings search_procedures procedure_address resolve_containing_procedure
  analyze_function xrefs procedure_callers procedure_callees build_call_path trace_feature
  compare_functions capture_process_scenario compare_process_captures
  correlate_static_and_runtime find_changed_behavior record_unknown update_unknown list_unknowns
  verify_unknown_resolution inventory_artifact compare_artifacts extract_artifact
  verify_reconstruction snapshot_evidence_bundle release_evidence_bundle close_binary
`.trim().split(/\s+/);

async function appsToolNames(): Promise<Set<string>> {
  const { casefile, close } = await connect();
  try {
    const toolsets = new Set(APPS_TOOLSETS.map((toolset) => toolset.name));
    return new Set(
      casefile.catalog.list().filter((tool) => toolsets.has(tool.toolset ?? "")).map((t) => t.name),
    );
  } finally {
    await close();
  }
}

Deno.test({
  name: "every REA argument of a tool both catalogs have is declared by our input schema",
  ignore: SKIP !== false,
  fn: async () => {
    const ours = await appsToolNames();
    await withClient({}, async (client) => {
      const { tools } = await client.listTools();
      const schemas = new Map(tools.map((tool) => [tool.name, tool.inputSchema as Schema]));
      const missing: string[] = [];
      for (const rea of reaTools().filter((tool) => ours.has(tool.name))) {
        const declared = propertiesOf(schemas.get(rea.name)!);
        for (const key of Object.keys(propertiesOf(rea.inputSchema))) {
          if (!(key in declared)) missing.push(`${rea.name}.${key}`);
        }
      }
      assert.deepEqual(missing, []);
    });
  },
});

Deno.test({
  name: "a REA-shaped call of every tool both catalogs have is accepted, with REA's meaning",
  ignore: SKIP !== false,
  fn: async () => {
    const ours = await appsToolNames();
    const common = reaTools().filter((tool) => ours.has(tool.name));
    assert.ok(common.length >= 30, `REA and Casefile share ${common.length} tools`);
    assert.deepEqual(
      common.map((tool) => tool.name).filter((name) => !ORDER.includes(name)),
      [],
      "every shared tool has a REA-shaped call",
    );
    const dir = await Deno.makeTempDir({ prefix: "casefile-rea-calls-" });
    const { client, close } = await connect({
      roots: ["/usr/bin", dir],
      allowFileWrites: true,
    });
    const session = { dir } as Session;
    const results = new Map<string, Loose>();
    const refused: string[] = [];
    try {
      for (const name of ORDER) {
        const rea = common.find((tool) => tool.name === name);
        if (!rea) continue;
        if (name === "inventory_artifact") {
          // A second version to compare with, then the artifact target of the artifact tools.
          const other = join(dir, "other");
          await Deno.mkdir(other);
          await Deno.writeTextFile(join(other, "notes.txt"), "another version\n");
          assert.equal((await call(client, "open_binary", { path: other })).isError, false);
          const right = await call(client, "inventory_artifact", {});
          session.otherInventoryId = right.structured.evidence_id;
          await Deno.mkdir(join(dir, "artifact"));
          await Deno.writeTextFile(join(dir, "artifact", "notes.txt"), "the first version\n");
          const opened = await call(client, "open_binary", { path: join(dir, "artifact") });
          assert.equal(opened.isError, false, JSON.stringify(opened.structured));
        }
        if (name === "close_binary") {
          await call(client, "open_binary", { path: TRUE });
        }
        const args = { ...reaDefaults(rea.inputSchema), ...BUILDERS[name]!(session) };
        const outcome = await call(client, name, args);
        const message = String(outcome.structured?.error?.message ?? "");
        if (outcome.isError && message.startsWith("Invalid arguments")) {
          refused.push(`${name}: ${message.slice(0, 300)}`);
        }
        results.set(name, outcome);
        if (Deno.env.get("REA_DEBUG") && outcome.isError) console.log(name, message.slice(0, 300));
        const result = outcome.structured?.result;
        if (outcome.isError) continue;
        if (name === "list_documents") session.document = result.documents[0];
        if (name === "list_procedures") session.entry ??= result.items[0]?.address;
        if (name === "binary_overview") {
          const overview = await call(client, "binary_overview", {});
          session.entry = overview.structured.result.entry ?? session.entry;
        }
        if (name === "analyze_function") {
          session.dossierId = outcome.structured.evidence_id;
          const read = await client.readResource({ uri: outcome.structured.evidence_uri });
          session.dossier = JSON.parse(String((read.contents[0] as Loose).text));
          const full = await call(client, "analyze_function", { procedure: session.entry });
          session.callee = full.structured.result.callees.items[0]?.address ?? session.entry;
          const fullRead = await client.readResource({ uri: full.structured.evidence_uri });
          session.fullDossier = JSON.parse(String((fullRead.contents[0] as Loose).text));
        }
        if (name === "record_unknown") {
          session.unknownId = result.unknown_id;
          session.unknownHead = result;
        }
        if (name === "inventory_artifact") {
          session.inventoryId = outcome.structured.evidence_id;
          session.occurrenceId = result.occurrences.items.find((o: Loose) =>
            o.logical_path.endsWith("notes.txt")
          )?.occurrence_id;
        }
        if (name === "compare_artifacts") {
          session.artifactComparisonId = outcome.structured.evidence_id;
        }
        if (name === "snapshot_evidence_bundle") session.bundleDigest = result.bundle_digest;
      }
      assert.deepEqual(refused, [], "REA-shaped calls refused as invalid arguments");

      // REA's meaning, where the result shows it.
      const status = results.get("binary_session").structured.result;
      assert.deepEqual(
        status.alignment.find((check: Loose) => check.check === "package_version"),
        {
          check: "package_version",
          expected: "3.1.0",
          actual: status.server.version,
          matches: false,
        },
      );
      assert.ok(status.capabilities.length <= 1);
      assert.equal(status.capabilities_page.family, "session");
      const procedures = results.get("list_procedures").structured.result;
      assert.equal(procedures.offset, 1);
      assert.ok(procedures.items.length <= 3);
      const overview = results.get("binary_overview").structured.result;
      assert.ok(overview.sections.length <= 2 && Array.isArray(overview.imports));
      const strings = results.get("search_strings").structured.result;
      assert.equal(strings.query, "GNU");
      assert.ok(strings.total > 0, "true carries the string GNU");
      for (const item of strings.items) assert.match(item.value, /gnu/i);
      const dossier = results.get("analyze_function").structured.result;
      assert.equal(
        dossier.callees.items.length,
        Math.min(1, Math.max(0, dossier.callees.total - 1)),
      );
      const traced = results.get("trace_feature");
      assert.equal(traced.isError, false, JSON.stringify(traced.structured));
      const path = results.get("build_call_path");
      assert.equal(path.isError, false, JSON.stringify(path.structured));
      assert.equal(path.structured.result.found, true, JSON.stringify(path.structured.result));
      assert.deepEqual(
        path.structured.result.paths.items[0].procedures.map((p: Loose) => p.address),
        session.callee === session.entry ? [session.entry] : [session.entry, session.callee],
      );
      const compared = results.get("compare_functions");
      assert.equal(compared.isError, false, JSON.stringify(compared.structured));
      const closed = results.get("close_binary");
      assert.equal(closed.isError, false, JSON.stringify(closed.structured));
      const saved = closed.structured.result.snapshot;
      assert.ok(saved.records > 0);
      const reopened = await call(client, "open_binary", {
        path: TRUE,
        snapshot_path: saved.path,
      });
      assert.equal(reopened.isError, false, JSON.stringify(reopened.structured));
      assert.equal(reopened.structured.result.snapshot.new_records, saved.records);
      assert.equal(reopened.structured.result.snapshot.bundle_digest, saved.bundle_digest);
      const unknowns = await call(client, "list_unknowns", { limit: 500 });
      const domains = new Set(unknowns.structured.result.items.map((i: Loose) => i.unknown.domain));
      assert.ok(
        domains.has("analysis-capability") || domains.has("trace"),
        "unknown_registry_approved recorded what the calls left unknown, and the snapshot kept it",
      );
    } finally {
      await close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
