/**
 * The text of each documentation topic, as markdown, written for Casefile's
 * cloud workbench. Kept as TypeScript strings so the texts ship with the
 * package and need no file access.
 *
 * @module
 */

import { INTERNET_ENTRY_RULE } from "../graph/internet.ts";

/** Markdown per topic name. */
export const DOC_TEXTS: Readonly<Record<string, string>> = {
  mcp: `# Working with the cloud workbench

1. **Orient.** Read \`cloudg://workspace\` or call \`workspace_status\`: which datasets are
   loaded and which one is active. Load more with \`load_dataset(path=...)\`.
2. **Prioritise.** \`dataset_summary\`, \`findings_summary\` and \`top_risks\` show where the
   risk sits; \`internet_exposure\` lists what faces the internet.
3. **Drill down.** \`get_asset\`, \`neighbors\`, \`find_paths\`, \`depends_on\`, \`dependents\`
   and \`blast_radius\` explain one asset and what hangs on it.
4. **Compliance.** \`compliance_summary\`, \`list_controls\` and \`compliance_gaps\`.
5. **Change tracking.** \`snapshot_dataset\` before a change, \`diff_datasets\` after it.

References: an asset may be named by its id, ARN (or Azure/GCP id) or a name that only one
asset has. Lists are paginated: pass \`next_cursor\` back unchanged as \`cursor\`. Under a
privacy policy identifiers may come back as pseudonyms; pass them back as they are and the
server resolves them. The guided prompts (\`security_posture_review\`,
\`investigate_asset\`, …) lay out the calls for common jobs.`,

  pipeline: `# From input to answers

A dataset goes through four steps. **Load**: a file or directory is read (size-limited,
inside the allowed roots) and its kind recognised. **Normalise**: records are checked field
by field; unknown asset types are kept as \`OTHER\` and counted. **Index**: on first use the
workbench builds lookup tables, the relationship graph, the network-flow graph and the
dependency graph; each is cached until the dataset changes. **Query**: tools, resources and
prompts read those views.`,

  cli: `# Command line

The cloud workbench shares the server's flags. \`--dataset [KIND:][NAME=]PATH\` (repeatable) loads a
dataset at start, read as KIND when given; \`--demo\` loads the demo estate (\`sample\` and \`after\`); \`--toolsets\`
limits the tool groups served; \`--policy\` picks the privacy profile; \`--root\` adds an
allowed directory for loading.`,

  inputs: `# Inputs

Kinds recognised automatically: \`inventory\` (an \`inventory-map.json\`, or a directory
holding one, with a \`findings.json\` beside it merged in), \`report\` (a \`findings.json\`
report; edges are rebuilt from its D3 graph when absent) and \`generic\` (JSON with
\`assets\`, \`edges\` or \`findings\`, or a list of findings). Cloud exports:
\`terraform\` (state v4), \`terraform-plan\` (\`terraform show -json\` of a plan; diff it
against the state it changes with \`diff_datasets\`), \`aws-api\` (one account's AWS CLI
dump, a folder per region) and \`iam-authorization-details\`. Scanner reports:
\`prowler-asff\`, \`prowler-ocsf\` (JSON arrays or JSON Lines), \`prowler-csv\` (\`-M csv\`;
\`prowler\` takes any of the three by content), \`checkov\`, \`trivy\` and \`scoutsuite\` (\`scoutsuite_results*.js\`); merge
them into a loaded dataset with \`ingest_reports\`. Pass \`kind\` to force one; a file of
another kind is refused. Our own rule set runs on every load; findings that map to no asset
are counted. Files over 256 MiB are refused. Malformed JSON is reported with its line and
column.`,

  outputs: `# Outputs

Tools that write files put them under the configured output directory only, and never
outside it. The operator names it with \`--output-dir DIR\`, grants it with
\`--allow-write=DIR\` and allows writing with \`--allow-file-writes\`; under \`--read-only\`
the writing tools are not listed. A \`subdir\` is relative, without \`..\`, and may not pass
through a symbolic link; a \`filename\` is 1 to 100 of letters, digits, \`_\`, \`.\` and \`-\`.
Files are written to a temporary name and renamed, so a reader never sees half a file.

\`export_report\`: \`json\` (\`findings.json\`, which \`load_dataset\` reads back), \`html\`
(\`report.html\`, one self-contained page), \`inventory\` (five \`inventory-*\` files),
\`graphml\` (\`<dataset>.graphml\`) and \`asset_map\` (\`asset-map.json\`,
\`compliance-map.json\`). \`export_terraform\`: \`provider.tf.json\`, \`variables.tf.json\`,
\`main.tf.json\` (import skeletons) and \`import_commands.sh\`; \`terraform_preview\` shows
the mapping first. Graph exports come as D3 or Cytoscape JSON and GraphML; the ontology
(\`export_ontology\`) as Turtle, JSON-LD, RDF/XML or N-Triples.`,

  "data-models": `# Data models

**Asset**: \`id\` (internal join key), \`arn\` (ARN, Azure resource id or GCP full name, or
null), \`name\` (not unique), \`asset_type\`, \`provider\` (AWS, AZURE, GCP), \`region\`
(default \`global\`), \`account_id\`, \`tags\`, \`metadata\`, \`collected_at\`,
\`is_internet_exposed\`. Its display id is the ARN when present, else the id.

**Edge**: \`id\`, \`source_id\`, \`target_id\` (either may be a placeholder such as
\`0.0.0.0/0\`), \`edge_type\`, \`ports\`, \`port_range\`, \`protocol\`, \`cidr\`,
\`direction\`, \`description\`, \`relationship\`, \`properties\`.

**Finding**: \`id\`, \`resource_id\`, \`resource_arn\`, \`severity\` (CRITICAL, HIGH, MEDIUM,
LOW, INFO), \`title\`, \`description\`, \`evidence\`, \`remediation\`, \`source_tool\`,
\`compliance_frameworks\`, \`cvss_score\`, \`detected_at\`, \`is_suppressed\`. Its risk score
is the severity's base (9.5, 7.5, 5.0, 2.5, 0.5), averaged with the CVSS score when there is
one and rounded half to even to one decimal.

**Compliance result**: \`framework\`, \`control_id\`, \`control_title\`, \`status\` (PASS, FAIL,
NOT_APPLICABLE, MANUAL), \`finding_ids\`, \`resource_arn\`.`,

  configuration: `# Configuration

The workbench needs no configuration file. Limits: 16 datasets at once (the oldest
inactive one is dropped first), 256 MiB per input file, pages of 1 to 500 items.`,

  "python-api": `# Programmatic use

Casefile is TypeScript: import \`createServer\` from the package and connect any MCP
transport. The domain modules (workspace, importers, findings, compliance) are plain
TypeScript over plain data and can be used without MCP.`,

  recipes: `# Recipes

- **Before/after a change**: \`snapshot_dataset(new_name="before")\`, apply the change,
  reload, then \`diff_datasets(base="before")\`.
- **Triage a finding**: run the \`incident_triage\` prompt with its id.
- **Share safely**: serve under the \`strict\` policy so identifiers are pseudonymised.`,

  authentication: `# Authentication

This build reads exported files only and makes no cloud calls, so it needs no cloud
credentials. Produce the inputs with your usual tools and load them.`,

  identifiers: `# Identifier formats

- AWS: \`arn:<partition>:<service>:<region>:<account>:<resource>\`; the resource part may
  contain \`/\` or \`:\`.
- Azure: \`/subscriptions/<id>/resourceGroups/<group>/providers/<namespace>/<type>/<name>\`.
- GCP: \`//<service>.googleapis.com/projects/<project>/...\`.
- Placeholders: CIDR blocks such as \`0.0.0.0/0\` stand for outside parties in edges.

In resource URIs the whole id is percent-encoded (\`/\` as \`%2F\`, \`:\` as \`%3A\`).`,

  edges: `# Edges

An edge reads "source <verb> target". Network rules carry \`ports\`, \`port_range\`,
\`protocol\`, \`cidr\` and \`direction\` (ingress or egress). \`properties\` holds extra
facts such as \`hierarchy: true\` for organisation structure, \`cross_account\`,
\`conditional: true\` for a grant or trust a policy condition limits (on a grant to any
principal \`*\`, a condition limiting who may call), or \`public_access_blocked: true\` for
a grant to \`*\` into a bucket whose S3 public access block restricts public policies.

${INTERNET_ENTRY_RULE} Every tool that looks from the internet (get_edges with source
internet, find_paths and attack_paths from the internet, internet_exposure) uses this one
rule, and the target of an unconditional grant or trust to \`*\` counts as internet-exposed.`,

  "edge-types": `# Edge types and dependency direction

Each of the 20 edge types says whether one end depends on the other: **forward** (the source
depends on the target, e.g. ASSUMES_ROLE, REFERENCES, LOAD_BALANCER_TARGET), **reverse**
(the target depends on the source, e.g. CONTAINS, PROTECTS, INVOKES, MONITORS) or **none**
(network rules and internet exposure). The dependency graph follows these directions.`,

  relations: `# Semantic relations

Edges map to 64 relation types in seven groups (network, containment, IAM, data flow,
security, compute, governance). A relation declared on an edge wins; otherwise it is
inferred from the edge type, ports, CIDR and the types of both ends.`,

  "inventory-summary": `# Dataset summary

Totals of assets, edges and findings; open and suppressed findings; open findings by
severity; distinct accounts and regions; internet-exposed assets; cross-account edges
(organisation hierarchy excluded); assets without any edge; unresolved references;
compliance frameworks; the most common asset types; assets by provider; edges by type;
organisation facts when present.`,

  dependencies: `# Dependencies and blast radius

\`depends_on\` walks what an asset needs; \`dependents\` walks what needs it; a dependency
tree shows both as nested lists. The blast radius of an asset is everything that depends on
it, directly or transitively: what breaks if it fails or is compromised.`,

  "inventory-map": `# inventory-map.json

A JSON object with \`summary\`, \`providers\`, \`regions\`, \`assets\`, \`edges\` and
\`unresolved_references\`. Loading the directory that holds it also merges the findings and
compliance results of a \`findings.json\` beside it.`,

  organization: `# Organisation topology

Organisation data lists the organisation id, its accounts, organisational units, policies
and landing-zone facts (Control Tower, governed regions). Accounts outside the organisation
that appear in trust relationships are marked external.`,
};
