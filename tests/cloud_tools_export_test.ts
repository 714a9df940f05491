import assert from "node:assert/strict";
import { join, resolve } from "node:path";
import { XMLParser } from "fast-xml-parser";
// @ts-types="@types/n3"
import { Parser as N3Parser } from "n3";
import { call, connect, type Connected, fails, ok, withClient } from "./helpers/in_memory.ts";
import { outputDirWithEscapeLink } from "./helpers/escape_link.ts";
import { parseCli } from "../src/cli.ts";
import { cloudWorkbench, cloudWorkbenchWith } from "../src/cloud/workbench.ts";
import { relationshipGraph } from "../src/cloud/graph/relationship_graph.ts";
import { Workspace } from "../src/cloud/workspace/workspace.ts";
import { datasetSummary } from "../src/cloud/workspace/summary.ts";
import { addRuleFindings } from "../src/cloud/rules/rule_evaluate.ts";
import { demoWorkspace } from "./helpers/cloud_estate.ts";

const WRITERS = ["export_terraform", "export_report", "export_ontology"];

interface Session extends Connected {
  out: string;
}

async function session(
  options: { readOnly?: boolean; allowFileWrites?: boolean; outputDir?: string | null } = {},
): Promise<Session> {
  const out = options.outputDir === undefined ? await Deno.makeTempDir() : options.outputDir ?? "";
  const connected = await connect({
    workbenches: [cloudWorkbenchWith({ demo: true, outputDir: options.outputDir ?? out })],
    allowFileWrites: options.allowFileWrites ?? true,
    readOnly: options.readOnly ?? false,
    roots: out ? [out] : [],
  });
  const made = options.outputDir === undefined;
  return {
    ...connected,
    out,
    close: async () => {
      await connected.close();
      if (made) await Deno.remove(out, { recursive: true });
    },
  };
}

/** Runs `body` on a {@link session} with `options`, closing it afterwards, also when `body` throws. */
async function withSession(
  options: Parameters<typeof session>[0],
  body: (s: Session) => Promise<void>,
): Promise<void> {
  const s = await session(options);
  try {
    await body(s);
  } finally {
    await s.close();
  }
}

/** Every file under `dir`, relative, sorted. */
async function listing(dir: string, prefix = ""): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const rel = prefix + entry.name;
    if (entry.isDirectory && !entry.isSymlink) {
      names.push(...await listing(join(dir, entry.name), rel + "/"));
    } else names.push(rel);
  }
  return names.sort();
}

async function datasetNames(client: Session["client"]): Promise<string[]> {
  const listed = await ok(client, "list_datasets");
  return listed.result.datasets.map((d: { name: string }) => d.name);
}

Deno.test("export tools are listed with their effects, and --read-only hides the writers", async () => {
  const open = await session();
  const readOnly = await session({ readOnly: true });
  try {
    const tools = (await open.client.listTools()).tools;
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of [...WRITERS, "terraform_preview"]) assert.ok(byName.has(name), name);
    for (const name of WRITERS) assert.equal(byName.get(name)?.annotations?.readOnlyHint, false);
    assert.equal(byName.get("terraform_preview")?.annotations?.readOnlyHint, true);

    const hidden = new Set((await readOnly.client.listTools()).tools.map((t) => t.name));
    for (const name of WRITERS) assert.ok(!hidden.has(name), `${name} is hidden under read-only`);
    assert.ok(hidden.has("terraform_preview"));
    const refused = await call(readOnly.client, "export_report", {});
    assert.equal(refused.isError, true);
    assert.deepEqual(await listing(readOnly.out), []);
  } finally {
    await open.close();
    await readOnly.close();
  }
});

Deno.test("--output-dir configures the cloud workbench, its write need and workspace_status", async () => {
  const dir = await Deno.makeTempDir();
  const config = parseCli(["--output-dir", dir, "--demo", "--allow-file-writes"], [cloudWorkbench]);
  const cloud = config.workbenches.find((w) => w.name === "cloud")!;
  assert.deepEqual(cloud.permissionNeeds?.([]), [{
    name: "write",
    target: dir,
    purpose: `write exports under ${dir}`,
  }]);
  assert.match(cloud.cli?.help ?? "", /--output-dir DIR/);
  await withClient({ workbenches: [cloud], allowFileWrites: true }, async (client) => {
    const status = (await ok(client, "workspace_status")).result;
    assert.equal(status.output_dir, dir);
    await ok(client, "export_report", { format: "graphml" });
    assert.deepEqual(await listing(dir), ["sample.graphml"]);
  });
  const none = await connect({ workbenches: [cloudWorkbench] });
  try {
    assert.equal((await ok(none.client, "workspace_status")).result.output_dir, null);
  } finally {
    await none.close();
  }
});

Deno.test("export tools are refused without --allow-file-writes and write nothing", async () => {
  await withSession({ allowFileWrites: false }, async (s) => {
    for (const name of WRITERS) {
      const error = await fails(s.client, name, {});
      assert.equal(error.code, "permission_required", name);
      assert.match(error.remediation.action, /--allow-file-writes/);
    }
    assert.deepEqual(await listing(s.out), []);
  });
});

Deno.test("export tools without --output-dir say how to configure one", async () => {
  await withSession({ outputDir: null }, async (s) => {
    const error = await fails(s.client, "export_report", {});
    assert.equal(error.code, "permission_required");
    assert.match(error.remediation.action, /--output-dir DIR/);
    assert.deepEqual(await datasetNames(s.client), ["sample", "after"]);
  });
});

Deno.test("export_report(json) writes a findings.json that load_dataset reads back to the same dataset", async () => {
  await withSession({}, async (s) => {
    const written = await ok(s.client, "export_report", {});
    const file = join(s.out, "findings.json");
    assert.deepEqual(written.result.files, [{
      path: file,
      relative_path: "findings.json",
      bytes: (await Deno.stat(file)).size,
    }]);
    assert.equal(written.result.format, "json");
    assert.equal(written.result.dataset, "sample");

    const doc = JSON.parse(await Deno.readTextFile(file));
    for (
      const key of ["metadata", "summary", "assets", "findings", "compliance", "edges", "graph"]
    ) {
      assert.ok(key in doc, key);
    }
    const original = demoWorkspace().dataset("sample");
    assert.equal(doc.summary.total_assets, original.records.assets.length);
    assert.equal(doc.graph.nodes.length, relationshipGraph(original).order);

    const loaded = await ok(s.client, "load_dataset", { path: file, name: "roundtrip" });
    assert.equal(loaded.result.loaded, "roundtrip");
    // Every load evaluates our rule set: the loaded dataset is the exported one plus exactly
    // the rule findings (and compliance results) the rules add to the original records.
    const expected = structuredClone(original.records);
    const added = addRuleFindings(expected);
    assert.ok(added.findings > 0, "the demo estate trips some of our rules");
    assert.equal(loaded.result.notes.rule_findings, added.findings);
    const reference = new Workspace();
    reference.add("expected", expected);
    const before = datasetSummary(reference.dataset("expected")) as unknown as Record<
      string,
      unknown
    >;
    const after = loaded.result.summary;
    for (
      const key of [
        "total_assets",
        "total_edges",
        "total_findings",
        "open_findings",
        "suppressed_findings",
        "severity_breakdown",
        "accounts",
        "regions",
        "internet_exposed",
        "cross_account_edges",
        "unlinked_assets",
        "compliance_frameworks",
        "assets_by_type",
        "edges_by_type",
        "providers",
      ]
    ) {
      assert.deepEqual(after[key], before[key], key);
    }

    // The records themselves, as the workspace loads them.
    const workspace = new Workspace({ fence: (path) => Deno.realPath(path) });
    const back = (await workspace.load(file, { name: "back" })).dataset.records;
    const r = original.records;
    assert.deepEqual(back.assets, r.assets);
    assert.deepEqual(back.edges, r.edges);
    assert.deepEqual(back.findings, expected.findings);
    assert.deepEqual(back.compliance, expected.compliance);
    assert.deepEqual(
      back.findings.slice(0, r.findings.length),
      r.findings,
      "the exported findings come back first, unchanged",
    );
    assert.deepEqual(back.organization, r.organization);
    assert.deepEqual(back.suppression_reasons, r.suppression_reasons);
    assert.deepEqual(back.unresolved_references, r.unresolved_references);
  });
});

Deno.test("export_report writes the inventory, graphml and asset_map files into a subdir", async () => {
  await withSession({}, async (s) => {
    const inventory = await ok(s.client, "export_report", {
      format: "INVENTORY",
      subdir: "reports/inv",
    });
    assert.deepEqual(
      inventory.result.files.map((f: { relative_path: string }) => f.relative_path),
      [
        "reports/inv/inventory-map.json",
        "reports/inv/inventory-map.graphml",
        "reports/inv/inventory-graph.json",
        "reports/inv/inventory-dependencies.json",
        "reports/inv/inventory-organization.json",
      ],
    );
    const graphml = await ok(s.client, "export_report", { format: "graphml" });
    assert.deepEqual(graphml.result.files.map((f: { relative_path: string }) => f.relative_path), [
      "sample.graphml",
    ]);
    const maps = await ok(s.client, "export_report", { format: "asset_map", dataset: "after" });
    assert.deepEqual(maps.result.files.map((f: { relative_path: string }) => f.relative_path), [
      "asset-map.json",
      "compliance-map.json",
    ]);

    const demo = demoWorkspace();
    const original = demo.dataset("sample");
    const graph = relationshipGraph(original);
    const xml = new XMLParser({
      ignoreAttributes: false,
      isArray: (n) => n === "node" || n === "edge",
    })
      .parse(await Deno.readTextFile(join(s.out, "sample.graphml")));
    assert.equal(xml.graphml.graph.node.length, graph.order);
    assert.equal(xml.graphml.graph.edge.length, graph.size);

    const map = JSON.parse(await Deno.readTextFile(join(s.out, "reports/inv/inventory-map.json")));
    assert.equal(map.assets.length, original.records.assets.length);
    assert.equal(map.edges.length, original.records.edges.length);
    // The inventory directory loads back as an inventory dataset.
    const loaded = await ok(s.client, "load_dataset", { path: join(s.out, "reports/inv") });
    assert.equal(loaded.result.summary.kind, "inventory");
    assert.equal(loaded.result.summary.total_assets, original.records.assets.length);

    const after = demo.dataset("after");
    const assetMap = JSON.parse(await Deno.readTextFile(join(s.out, "asset-map.json")));
    assert.equal(assetMap.dataset, "after");
    assert.deepEqual(
      assetMap.assets.map((a: { id: string }) => a.id),
      after.records.assets.map((a) => a.id),
    );
    const web1 = assetMap.assets.find((a: { id: string }) => a.id === "web-1");
    assert.deepEqual(
      web1.finding_ids,
      after.findingsFor("web-1").filter((f) => !f.is_suppressed).map((f) => f.id),
    );
  });
});

Deno.test("export_report refuses subdirs that leave the output directory and writes nothing outside", async () => {
  const { out, outside } = await outputDirWithEscapeLink();
  await Deno.mkdir(join(out, "real"));
  await Deno.symlink(outside, join(out, "real", "inner"));
  await withSession({ outputDir: out }, async (s) => {
    const cases: [string, string][] = [
      ["../outside", "outside_approved_root"],
      ["a/../../outside", "outside_approved_root"],
      [outside, "outside_approved_root"],
      ["link", "outside_approved_root"],
      ["link/deeper", "outside_approved_root"],
      ["real/inner/x", "outside_approved_root"],
      ["bad name", "invalid_request"],
      ["x".repeat(201), "invalid_request"],
    ];
    for (const [subdir, code] of cases) {
      for (const tool of ["export_report", "export_terraform"]) {
        const error = await fails(s.client, tool, { subdir });
        assert.equal(error.code, code, `${tool} ${subdir.slice(0, 40)}`);
      }
    }
    assert.deepEqual(await listing(outside), []);
    assert.deepEqual(await listing(out), ["link", "real/inner"]);
    assert.deepEqual(await datasetNames(s.client), ["sample", "after"]);
    // A file that is a symbolic link is not written through either.
    await Deno.symlink(join(outside, "findings.json"), join(out, "findings.json"));
    const error = await fails(s.client, "export_report", {});
    assert.equal(error.code, "invalid_request");
    assert.deepEqual(await listing(outside), []);
  });
});

Deno.test("export_report refuses an unknown format and an unknown dataset", async () => {
  await withSession({}, async (s) => {
    const format = await fails(s.client, "export_report", { format: "pdf" });
    assert.equal(format.code, "invalid_request");
    assert.ok(format.details.valid.includes("html"));
    const dataset = await fails(s.client, "export_report", { dataset: "nope" });
    assert.equal(dataset.code, "not_found");
    assert.deepEqual(await listing(s.out), []);
  });
});

const DEMO_TERRAFORM_TYPES: Record<string, string> = {
  EC2: "aws_instance",
  VPC: "aws_vpc",
  SUBNET: "aws_subnet",
  SECURITY_GROUP: "aws_security_group",
  INTERNET_GATEWAY: "aws_internet_gateway",
  ROUTE_TABLE: "aws_route_table",
  LOAD_BALANCER: "aws_lb",
  TARGET_GROUP: "aws_lb_target_group",
  WAF_WEB_ACL: "aws_wafv2_web_acl",
  RDS_INSTANCE: "aws_db_instance",
  SECRET: "aws_secretsmanager_secret",
  KMS_KEY: "aws_kms_key",
  S3_BUCKET: "aws_s3_bucket",
  API_GATEWAY: "aws_api_gateway_rest_api",
  LAMBDA_FUNCTION: "aws_lambda_function",
  IAM_ROLE: "aws_iam_role",
  IAM_USER: "aws_iam_user",
  IAM_POLICY: "aws_iam_policy",
  INSTANCE_PROFILE: "aws_iam_instance_profile",
  CLOUDTRAIL: "aws_cloudtrail",
  FLOW_LOG: "aws_flow_log",
  THREAT_DETECTOR: "aws_guardduty_detector",
  NOTIFICATION_TOPIC: "aws_sns_topic",
  CLOUD_ACCOUNT: "aws_organizations_account",
  VNET: "azurerm_virtual_network",
  VIRTUAL_MACHINE: "azurerm_windows_virtual_machine",
  NSG: "azurerm_network_security_group",
  KEY_VAULT: "azurerm_key_vault",
  GCS_BUCKET: "google_storage_bucket",
  GCE_INSTANCE: "google_compute_instance",
  CLOUD_SQL: "google_sql_database_instance",
};

function expectedType(asset: { asset_type: string; provider: string }): string | undefined {
  if (asset.asset_type === "SUBNET" && asset.provider === "AZURE") return "azurerm_subnet";
  return DEMO_TERRAFORM_TYPES[asset.asset_type];
}

Deno.test("terraform_preview maps the demo estate to Terraform types with import ids", async () => {
  await withSession({}, async (s) => {
    const all = (await ok(s.client, "terraform_preview")).result;
    const sample = demoWorkspace().dataset("sample");
    const external = sample.records.assets.filter((a) => a.metadata["external"] === true);
    assert.deepEqual(external.map((a) => a.id), ["acct-vendor"]);
    assert.equal(all.selected, sample.records.assets.length);
    assert.equal(all.unmapped, 1);
    assert.deepEqual(all.unmapped_types, [{
      provider: "AWS",
      asset_type: "CLOUD_ACCOUNT",
      count: 1,
    }]);
    assert.equal(all.mapped, sample.records.assets.length - 1);
    assert.deepEqual(all.providers, ["aws", "azurerm", "google"]);
    assert.equal(all.truncated, false);
    for (const resource of all.resources) {
      const asset = sample.asset(resource.asset_id)!;
      assert.equal(resource.terraform_type, expectedType(asset), resource.asset_id);
    }
    const byId = new Map(all.resources.map((r: { asset_id: string }) => [r.asset_id, r]));
    assert.deepEqual(byId.get("web-1"), {
      asset_id: "web-1",
      display_id: "arn:aws:ec2:us-east-1:111111111111:instance/i-0a00000000000b001",
      name: "web-1",
      asset_type: "EC2",
      provider: "AWS",
      terraform_type: "aws_instance",
      address: "aws_instance.web_1",
      import_id: "i-0a00000000000b001",
    });
    assert.equal((byId.get("data-bucket") as { import_id: string }).import_id, "prod-data");
    assert.equal((byId.get("app-role") as { import_id: string }).import_id, "app-role");
    assert.equal(
      (byId.get("gcp-vm") as { import_id: string }).import_id,
      `projects/${sample.asset("gcp-vm")!.account_id}/zones/europe-west1-b/instances/etl-worker`,
    );
    assert.equal(
      (byId.get("waf-web") as { import_id: string }).import_id,
      "3f2e1d0c-5a6b-4c7d-8e9f-00000000a001/web-acl/REGIONAL",
    );
    const ec2 = all.by_type.find((t: { terraform_type: string }) =>
      t.terraform_type === "aws_instance"
    );
    assert.equal(ec2.count, 3);

    const picked = (await ok(s.client, "terraform_preview", {
      refs: ["web-1", "arn:aws:s3:::prod-data", "web-1"],
      asset_types: [],
    })).result;
    assert.deepEqual(picked.resources.map((r: { address: string }) => r.address), [
      "aws_instance.web_1",
      "aws_s3_bucket.prod_data",
    ]);
    const typed = (await ok(s.client, "terraform_preview", { asset_types: ["s3_bucket"] })).result;
    assert.equal(typed.mapped, 2);

    const unknown = await fails(s.client, "terraform_preview", { refs: ["web-9"] });
    assert.equal(unknown.code, "not_found");
    assert.ok(unknown.details.suggestions.length > 0);
    const badType = await fails(s.client, "terraform_preview", { asset_types: ["EC3"] });
    assert.equal(badType.code, "invalid_request");
    assert.ok(badType.details.close_matches.includes("EC2"));
  });
});

Deno.test("export_terraform writes *.tf.json files naming valid resource types, and an import script", async () => {
  await withSession({}, async (s) => {
    const written = await ok(s.client, "export_terraform", {});
    assert.deepEqual(written.result.files.map((f: { relative_path: string }) => f.relative_path), [
      "terraform/provider.tf.json",
      "terraform/variables.tf.json",
      "terraform/main.tf.json",
      "terraform/import_commands.sh",
    ]);
    const dir = join(s.out, "terraform");
    const sample = demoWorkspace().dataset("sample");
    const main = JSON.parse(await Deno.readTextFile(join(dir, "main.tf.json")));
    const provider = JSON.parse(await Deno.readTextFile(join(dir, "provider.tf.json")));
    const variables = JSON.parse(await Deno.readTextFile(join(dir, "variables.tf.json")));
    assert.deepEqual(Object.keys(provider.terraform.required_providers), [
      "aws",
      "azurerm",
      "google",
    ]);
    assert.equal(provider.terraform.required_providers.aws.source, "hashicorp/aws");
    assert.equal(variables.variable.aws_region.default, "us-east-1");

    const expected = new Set(
      sample.records.assets.filter((a) => a.metadata["external"] !== true).map(expectedType),
    );
    const types = Object.keys(main.resource);
    assert.deepEqual(new Set(types), expected);
    let count = 0;
    for (const type of types) {
      assert.match(type, /^(aws|azurerm|google)_[a-z0-9_]+$/);
      for (const [name, body] of Object.entries(main.resource[type])) {
        assert.match(name, /^[a-z_][a-z0-9_]*$/);
        assert.equal(typeof body, "object");
        count++;
      }
    }
    assert.equal(count, written.result.mapped);
    assert.equal(main.resource.aws_s3_bucket.prod_data.bucket, "prod-data");
    assert.deepEqual(main.resource.aws_s3_bucket.prod_data.tags, {
      env: "prod",
      owner: "platform",
      data: "confidential",
    });

    const script = await Deno.readTextFile(join(dir, "import_commands.sh"));
    const imports = script.split("\n").filter((l) => l.startsWith("terraform import "));
    assert.equal(imports.length, written.result.mapped);
    assert.ok(imports.includes("terraform import 'aws_instance.web_1' 'i-0a00000000000b001'"));
    const syntax = await new Deno.Command("sh", { args: ["-n", join(dir, "import_commands.sh")] })
      .output();
    assert.equal(syntax.code, 0);

    const only = await ok(s.client, "export_terraform", {
      subdir: "tf/web",
      refs: ["web-1", "web-2"],
    });
    assert.equal(only.result.mapped, 2);
    const webMain = JSON.parse(await Deno.readTextFile(join(s.out, "tf/web/main.tf.json")));
    assert.deepEqual(Object.keys(webMain.resource.aws_instance), ["web_1", "web_2"]);

    const none = await fails(s.client, "export_terraform", { refs: ["acct-vendor"], subdir: "x" });
    assert.equal(none.code, "invalid_request");
    assert.ok(!(await listing(s.out)).some((f) => f.startsWith("x/")));
  });
});

Deno.test("export_ontology writes turtle and N-Triples that n3 parses to the reported triple count", async () => {
  await withSession({}, async (s) => {
    const turtle = await ok(s.client, "export_ontology", {});
    assert.equal(turtle.result.format, "turtle");
    assert.equal(turtle.result.mime_type, "text/turtle");
    assert.deepEqual(turtle.result.files.map((f: { relative_path: string }) => f.relative_path), [
      "ontology.ttl",
    ]);
    const ttl = await Deno.readTextFile(join(s.out, "ontology.ttl"));
    assert.equal(new N3Parser().parse(ttl).length, turtle.result.triples);
    assert.ok(turtle.result.triples > 1000);

    const nt = await ok(s.client, "export_ontology", { format: "NT", filename: "estate.nt" });
    assert.deepEqual(nt.result.files.map((f: { relative_path: string }) => f.relative_path), [
      "estate.nt",
    ]);
    const text = await Deno.readTextFile(join(s.out, "estate.nt"));
    assert.equal(new N3Parser({ format: "N-Triples" }).parse(text).length, nt.result.triples);

    const xml = await ok(s.client, "export_ontology", { format: "xml", filename: "o" });
    assert.equal(xml.result.files[0].relative_path, "o.rdf");
    const jsonld = await ok(s.client, "export_ontology", { format: "json-ld", filename: "o" });
    assert.equal(jsonld.result.files[0].relative_path, "o.jsonld");
    assert.ok(Array.isArray(JSON.parse(await Deno.readTextFile(join(s.out, "o.jsonld")))));

    const before = await listing(s.out);
    for (const filename of ["../escape", "a/b", "..", "", "x".repeat(101), "bad name"]) {
      const error = await fails(s.client, "export_ontology", { filename });
      assert.equal(error.code, "invalid_request", JSON.stringify(filename));
    }
    const format = await fails(s.client, "export_ontology", { format: "rdfa" });
    assert.equal(format.code, "invalid_request");
    assert.deepEqual(await listing(s.out), before);
  });
});

Deno.test("an output directory without a Deno write grant gives an error naming --allow-write", async () => {
  const granted = await Deno.makeTempDir();
  const out = await Deno.makeTempDir();
  const script = join(granted, "probe.ts");
  const helper = new URL("./helpers/in_memory.ts", import.meta.url).href;
  const workbench = new URL("../src/cloud/workbench.ts", import.meta.url).href;
  await Deno.writeTextFile(
    script,
    `import { call, connect } from ${JSON.stringify(helper)};
import { cloudWorkbenchWith } from ${JSON.stringify(workbench)};
const { client, close } = await connect({
  workbenches: [cloudWorkbenchWith({ demo: true, outputDir: ${JSON.stringify(out)} })],
  allowFileWrites: true,
});
const result = await call(client, "export_report", {});
console.log(JSON.stringify(result.structured));
await close();
`,
  );
  const config = resolve(new URL("../deno.json", import.meta.url).pathname);
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      "--config",
      config,
      "--allow-read",
      "--allow-env",
      `--allow-write=${granted}`,
      script,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const body = JSON.parse(stdout.trim().split("\n").pop()!);
  assert.equal(body.error.code, "permission_required");
  assert.match(body.error.message, new RegExp(`--allow-write=${out}`));
  assert.equal(body.error.details.flag, `--allow-write=${await Deno.realPath(out)}`);
  assert.deepEqual(await listing(out), []);
});

const CHROMIUM = "/usr/bin/chromium";

function chromiumMissing(): string | null {
  try {
    if (Deno.permissions.querySync({ name: "run", command: CHROMIUM }).state !== "granted") {
      return "running chromium is not granted (--allow-run)";
    }
    if (Deno.permissions.querySync({ name: "net", host: "127.0.0.1" }).state !== "granted") {
      return "talking to chromium's DevTools endpoint needs --allow-net=127.0.0.1";
    }
    Deno.statSync(CHROMIUM);
    return null;
  } catch {
    return `${CHROMIUM} is not installed (apt-get install chromium)`;
  }
}

const chromiumReason = chromiumMissing();
if (chromiumReason) {
  console.log(`skipping the headless browser check of report.html: ${chromiumReason}`);
}

Deno.test({
  name:
    "export_report(html) opens in headless chromium: summary figures, graph, findings click through",
  ignore: chromiumReason !== null,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const { default: puppeteer } = await import("puppeteer-core");
    const s = await session();
    const profile = await Deno.makeTempDir();
    const browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        `--user-data-dir=${profile}`,
      ],
    });
    try {
      const written = await ok(s.client, "export_report", { format: "html", subdir: "html" });
      const file = written.result.files[0].path as string;
      assert.equal(written.result.files[0].relative_path, "html/report.html");
      const summary = (await ok(s.client, "dataset_summary")).result;

      const page = await browser.newPage();
      const problems: string[] = [];
      const requests: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error" || message.type() === "warn") {
          problems.push(`${message.type()}: ${message.text()}`);
        }
      });
      page.on("pageerror", (error) => problems.push(`pageerror: ${String(error)}`));
      page.on("request", (request) => requests.push(request.url()));
      await page.goto(new URL(`file://${file}`).href, { waitUntil: "load" });
      await page.waitForSelector("body[data-ready=true]", { timeout: 10_000 });

      const figures = await page.$$eval(
        "[data-figure]",
        (nodes) =>
          nodes.map((n) => [
            n.getAttribute("data-figure"),
            Number(n.querySelector(".value")?.textContent),
          ]),
      );
      assert.ok(figures.length >= 8);
      for (const [key, value] of figures) {
        assert.equal(value, summary[key as string], key as string);
      }
      const severities = await page.$$eval(
        "[data-severity-count]",
        (nodes) => nodes.map((n) => [n.getAttribute("data-severity-count"), Number(n.textContent)]),
      );
      for (const [level, count] of severities) {
        assert.equal(count, summary.severity_breakdown[level as string] ?? 0, level as string);
      }

      const sample = demoWorkspace().dataset("sample");
      const graph = relationshipGraph(sample);
      assert.equal(await page.$$eval("#graph circle.node", (n) => n.length), graph.order);
      assert.equal(await page.$$eval("#graph line.link", (n) => n.length), graph.size);
      const box = await page.$eval("#graph", (svg) => {
        const r = svg.getBoundingClientRect();
        return { width: r.width, height: r.height };
      });
      assert.ok(box.width > 100 && box.height > 100);

      const rows = await page.$$eval(
        "tr.finding",
        (nodes) => nodes.map((n) => n.getAttribute("data-finding-id")),
      );
      assert.equal(rows.length, sample.records.findings.length);
      assert.equal(await page.$eval("#finding-detail", (e) => e.hasAttribute("hidden")), true);
      const target = sample.records.findings.find((f) => f.title.length > 0)!;
      await page.click(`tr.finding[data-finding-id="${target.id}"]`);
      const detail = await page.$eval("#finding-detail", (e) => ({
        hidden: e.hasAttribute("hidden"),
        id: e.getAttribute("data-finding-id"),
        text: e.textContent ?? "",
      }));
      assert.equal(detail.hidden, false);
      assert.equal(detail.id, target.id);
      assert.ok(detail.text.includes(target.title));
      assert.ok(detail.text.includes(target.remediation.slice(0, 30)));

      // A severity filter hides the other rows; a graph node shows its own detail.
      await page.click('button.sev-filter[data-severity="CRITICAL"]');
      const visible = await page.$$eval(
        "tr.finding",
        (nodes) => nodes.filter((n) => !n.hasAttribute("hidden")).length,
      );
      assert.equal(
        visible,
        sample.records.findings.filter((f) => f.severity === "CRITICAL").length,
      );
      await page.click('#graph circle.node[data-id="web-1"]');
      assert.equal(
        await page.$eval("#node-detail", (e) => e.getAttribute("data-node-id")),
        "web-1",
      );
      const topRisk = await page.$eval("tr.risk", (e) => e.getAttribute("data-asset-id"));
      assert.ok(topRisk);
      await page.click("tr.risk");
      assert.equal(
        await page.$eval("#node-detail", (e) => e.getAttribute("data-node-id")),
        topRisk,
      );

      assert.deepEqual(problems, []);
      assert.ok(
        requests.every((url) => url.startsWith("file:") || url.startsWith("data:")),
        requests.join(" "),
      );
      const html = await Deno.readTextFile(file);
      assert.ok(!/(src|href)=["']?(https?:)?\/\//i.test(html), "no external URL is referenced");
    } finally {
      await browser.close();
      await s.close();
      await Deno.remove(profile, { recursive: true }).catch(() => undefined);
    }
  },
});
