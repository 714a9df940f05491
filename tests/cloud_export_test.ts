import assert from "node:assert/strict";
import { join } from "node:path";
import { HTML_SUMMARY_FIGURES, htmlReport } from "../src/cloud/export/html_report.ts";
import { ontologyFileName } from "../src/cloud/export/ontology_file.ts";
import {
  checkFilename,
  ExportPathError,
  OutputDirectoryError,
  subdirComponents,
  writeExportFiles,
} from "../src/cloud/export/output_dir.ts";
import { reportDocument, reportFiles } from "../src/cloud/export/report.ts";
import {
  requireMapped,
  shellQuote,
  terraformFiles,
  terraformPlan,
  terraformType,
} from "../src/cloud/export/terraform.ts";
import { InvalidArgumentError } from "../src/cloud/model/errors.ts";
import type { Asset } from "../src/cloud/model/records.ts";
import { emptyRecords } from "../src/cloud/model/records.ts";
import { parseReportDocument } from "../src/cloud/importers/report.ts";
import { datasetSummary } from "../src/cloud/workspace/summary.ts";
import { Workspace } from "../src/cloud/workspace/workspace.ts";
import { asset as sharedAsset, demoWorkspace } from "./helpers/cloud_estate.ts";
import { outputDirWithEscapeLink } from "./helpers/escape_link.ts";

function asset(id: string, spec: Partial<Asset> = {}): Asset {
  return sharedAsset(id, "OTHER", { arn: null, collected_at: "", ...spec });
}

async function files(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  return names.sort();
}

Deno.test("checkFilename() accepts the pattern and refuses dots-only, slashes and long names", () => {
  for (const ok of ["ontology", "a.b-c_d", "x".repeat(100), ".hidden"]) {
    assert.equal(checkFilename(ok), ok);
  }
  for (const bad of ["", ".", "..", "...", "a/b", "../x", "a b", "x".repeat(101), "é"]) {
    assert.throws(() => checkFilename(bad), ExportPathError, JSON.stringify(bad));
  }
});

Deno.test("subdirComponents() drops empty and '.' parts and refuses '..' and absolute paths", () => {
  assert.deepEqual(subdirComponents(""), []);
  assert.deepEqual(subdirComponents("a//b/./c/"), ["a", "b", "c"]);
  for (const bad of ["..", "a/..", "a/../b", "/abs", "a b", "x".repeat(201), "a\\b"]) {
    assert.throws(() => subdirComponents(bad), ExportPathError, bad);
  }
  const error = (() => {
    try {
      subdirComponents("../x");
    } catch (e) {
      return e as ExportPathError;
    }
  })();
  assert.equal(error?.data["leaves_output_dir"], true);
  assert.ok(error instanceof InvalidArgumentError);
});

Deno.test("writeExportFiles() makes the subdir, replaces a file atomically and leaves no temporary file", async () => {
  const out = join(await Deno.makeTempDir(), "out");
  const first = await writeExportFiles(out, "a/b", [{ name: "x.json", content: "one" }]);
  assert.deepEqual(first, [{
    path: join(await Deno.realPath(out), "a/b/x.json"),
    relative_path: "a/b/x.json",
    bytes: 3,
  }]);
  const second = await writeExportFiles(out, "a/b", [
    { name: "x.json", content: "two!" },
    { name: "run.sh", content: "#!/bin/sh\n", mode: 0o755 },
  ]);
  assert.equal(second[0]?.bytes, 4);
  assert.equal(await Deno.readTextFile(join(out, "a/b/x.json")), "two!");
  assert.deepEqual(await files(join(out, "a/b")), ["run.sh", "x.json"]);
  assert.equal(((await Deno.stat(join(out, "a/b/run.sh"))).mode ?? 0) & 0o111, 0o111);
});

Deno.test("writeExportFiles() refuses symlinked components and link targets, writing nothing through them", async () => {
  const { out, outside } = await outputDirWithEscapeLink();
  await Deno.mkdir(join(out, "d"));
  await Deno.symlink(join(outside, "f.txt"), join(out, "d", "f.txt"));
  await assert.rejects(
    writeExportFiles(out, "link", [{ name: "f.txt", content: "x" }]),
    ExportPathError,
  );
  await assert.rejects(
    writeExportFiles(out, "link/new", [{ name: "f.txt", content: "x" }]),
    ExportPathError,
  );
  await assert.rejects(
    writeExportFiles(out, "d", [{ name: "f.txt", content: "x" }]),
    /not a regular file/,
  );
  await assert.rejects(
    writeExportFiles(out, "", [{ name: "d", content: "x" }]),
    /not a regular file/,
  );
  await assert.rejects(writeExportFiles(out, "", [{ name: "..", content: "x" }]), ExportPathError);
  assert.deepEqual(await files(outside), []);
  assert.deepEqual(await files(join(out, "d")), ["f.txt"]);
});

Deno.test("writeExportFiles() refuses an output directory whose path crosses a symbolic link", async () => {
  const parent = await Deno.makeTempDir();
  const outside = join(parent, "outside");
  await Deno.mkdir(join(outside, "sub"), { recursive: true });
  await Deno.symlink(outside, join(parent, "link"));
  for (const dir of [join(parent, "link"), join(parent, "link", "sub")]) {
    await assert.rejects(
      writeExportFiles(dir, "", [{ name: "a.json", content: "{}" }]),
      (error: unknown) =>
        error instanceof OutputDirectoryError && /symbolic link/.test(error.message),
    );
  }
  assert.deepEqual(await files(outside), ["sub"]);
  assert.deepEqual(await files(join(outside, "sub")), []);
  await Deno.remove(parent, { recursive: true });
});

Deno.test("writeExportFiles() refuses an output directory that is a file", async () => {
  const parent = await Deno.makeTempDir();
  const file = join(parent, "file");
  await Deno.writeTextFile(file, "");
  await assert.rejects(
    writeExportFiles(file, "", [{ name: "a", content: "" }]),
    OutputDirectoryError,
  );
});

Deno.test("reportDocument() parses back through the report importer to the same records", () => {
  const dataset = demoWorkspace().dataset("sample");
  const doc = reportDocument(dataset, { generatedAt: "2026-01-01T00:00:00Z" });
  assert.equal(doc.metadata.completed_at, "2026-01-01T00:00:00Z");
  assert.equal(doc.metadata.provider, "multi");
  assert.equal(doc.metadata.account_id, "111111111111");
  assert.deepEqual(doc.summary.severity_breakdown, datasetSummary(dataset).severity_breakdown);
  const parsed = parseReportDocument(JSON.parse(JSON.stringify(doc)), "findings.json").records;
  const r = dataset.records;
  assert.deepEqual(parsed.assets, r.assets);
  assert.deepEqual(parsed.edges, r.edges);
  assert.deepEqual(parsed.findings, r.findings);
  assert.deepEqual(parsed.compliance, r.compliance);
  assert.deepEqual(parsed.providers, r.providers);
  assert.deepEqual(parsed.regions, r.regions);
});

Deno.test("reportFiles() names each format's files", () => {
  const dataset = demoWorkspace().dataset("sample");
  const names = (format: Parameters<typeof reportFiles>[1]): string[] =>
    reportFiles(dataset, format).map((f) => f.name);
  assert.deepEqual(names("json"), ["findings.json"]);
  assert.deepEqual(names("html"), ["report.html"]);
  assert.deepEqual(names("graphml"), ["sample.graphml"]);
  assert.deepEqual(names("asset_map"), ["asset-map.json", "compliance-map.json"]);
  assert.equal(names("inventory").length, 5);
});

Deno.test("htmlReport() escapes hostile text, embeds its data safely and references no URL", () => {
  const workspace = new Workspace();
  const records = emptyRecords();
  records.assets = [asset("a1", { name: "<img src=x onerror=alert(1)>" })];
  records.findings = [{
    id: "f1",
    resource_id: "a1",
    resource_arn: null,
    severity: "HIGH",
    title: "</script><script>alert(1)</script>",
    description: "d",
    evidence: "",
    remediation: "",
    source_tool: "t",
    source_finding_id: null,
    compliance_frameworks: [],
    cvss_score: null,
    detected_at: "",
    is_suppressed: false,
  }];
  workspace.add("hostile", records, { kind: "generic", source: "test" });
  const page = htmlReport(workspace.dataset("hostile"));
  assert.ok(!page.includes("<img src=x"));
  assert.equal(page.split("</script>").length - 1, 2, "only the two script elements close");
  assert.ok(page.includes("&lt;/script&gt;&lt;script&gt;"));
  assert.ok(!/(src|href)=["']?(https?:)?\/\//i.test(page));
  for (const [key] of HTML_SUMMARY_FIGURES) assert.ok(page.includes(`data-figure="${key}"`), key);
});

Deno.test("htmlReport() draws at most graphNodeCap nodes, the riskiest first", () => {
  const dataset = demoWorkspace().dataset("sample");
  const page = htmlReport(dataset, { graphNodeCap: 5 });
  const data = JSON.parse(
    /<script type="application\/json" id="report-data">(.*?)<\/script>/s.exec(page)![1]!,
  );
  assert.equal(data.graph.nodes.length, 5);
  assert.ok(data.graph.total_nodes > 5);
  assert.ok(data.graph.nodes.every((n: { worst: string | null }) => n.worst !== null));
  assert.ok(page.includes(`Showing the 5 riskiest of ${data.graph.total_nodes} nodes.`));
});

Deno.test("terraformPlan() counts unmapped types and names resources uniquely", () => {
  const workspace = new Workspace();
  const records = emptyRecords();
  records.assets = [
    asset("i-1", { name: "web", asset_type: "EC2", arn: "arn:aws:ec2:us-east-1:1:instance/i-1" }),
    asset("i-2", { name: "web", asset_type: "EC2", arn: "arn:aws:ec2:us-east-1:1:instance/i-2" }),
    asset("o-1", { name: "thing" }),
    asset("vm", {
      name: "9lives",
      asset_type: "VIRTUAL_MACHINE",
      provider: "AZURE",
      arn: "/subscriptions/s/resourceGroups/rg1/providers/Microsoft.Compute/virtualMachines/9lives",
    }),
  ];
  workspace.add("t", records, { kind: "generic", source: "test" });
  const view = workspace.dataset("t");
  const plan = terraformPlan(view);
  assert.equal(plan.mapped, 3);
  assert.deepEqual(plan.unmapped_types, [{ provider: "AWS", asset_type: "OTHER", count: 1 }]);
  assert.deepEqual(plan.resources.map((r) => r.address), [
    "aws_instance.web",
    "aws_instance.web_2",
    "azurerm_linux_virtual_machine.r_9lives",
  ]);
  assert.deepEqual(plan.resources.map((r) => r.import_id), [
    "i-1",
    "i-2",
    "/subscriptions/s/resourceGroups/rg1/providers/Microsoft.Compute/virtualMachines/9lives",
  ]);
  assert.equal(
    terraformType({
      provider: "AZURE",
      asset_type: "VIRTUAL_MACHINE",
      metadata: { os: "Windows" },
    }),
    "azurerm_windows_virtual_machine",
  );
  const main = JSON.parse(
    terraformFiles(view, plan).find((f) => f.name === "main.tf.json")!.content as string,
  );
  assert.equal(main.resource.azurerm_linux_virtual_machine.r_9lives.resource_group_name, "rg1");
  assert.throws(
    () => requireMapped(terraformPlan(view, { assetTypes: ["other"] })),
    InvalidArgumentError,
  );
});

Deno.test("shellQuote() keeps quotes and shell syntax inert", async () => {
  const hostile = `a'b"$(touch x); \`y\``;
  const out = await new Deno.Command("sh", { args: ["-c", `printf %s ${shellQuote(hostile)}`] })
    .output();
  assert.equal(new TextDecoder().decode(out.stdout), hostile);
});

Deno.test("ontologyFileName() adds the format's extension once", () => {
  assert.equal(ontologyFileName("ontology", "turtle"), "ontology.ttl");
  assert.equal(ontologyFileName("x.TTL", "turtle"), "x.TTL");
  assert.equal(ontologyFileName("x", "json-ld"), "x.jsonld");
  assert.equal(ontologyFileName("x", "xml"), "x.rdf");
  assert.throws(() => ontologyFileName("x".repeat(99), "nt"), ExportPathError);
});
