/**
 * The cloud workbench's resources: the static `cloudg://` resources and the
 * resource templates, each reading the workspace live. Asset, finding and
 * compliance resources read the active dataset; the summary template names
 * its dataset.
 *
 * @module
 */

import type { ResourceContents } from "../../core/workbench.ts";
import type {
  CompletionFamily,
  ResourceTemplateDefinition,
  StaticResourceDefinition,
} from "../../core/workbench.ts";
import { type CloudContext, translated } from "../context/cloud_context.ts";
import { complianceRollup, frameworkDetail } from "../compliance/rollup.ts";
import { DOC_TOPIC_NAMES, docTopicIndex, readDocTopic } from "../docs/topics.ts";
import { findingDetail, findingsBySeverity, findingsOverview } from "../findings/detail.ts";
import { assetDetail, assetFindings, assetNeighbors } from "../inventory/asset_detail.ts";
import { ASSET_TYPE_FAMILIES, EDGE_TYPE_INFO, RELATION_GROUPS } from "../model/enums.ts";
import { NotFoundError } from "../model/errors.ts";
import { exportGraph, type GraphFormat, toD3 } from "../graph/exports.ts";
import { relationshipGraph } from "../graph/relationship_graph.ts";
import { URI_SCHEME } from "../model/briefs.ts";
import { ONTOLOGY_FORMAT_INFO, ONTOLOGY_FORMATS } from "../ontology/formats.ts";
import {
  ONTOLOGY_TURTLE_URI,
  ontologyTranslated,
  readOntology,
} from "../context/ontology_support.ts";
import { datasetSummary } from "../workspace/summary.ts";
import { DATASETS_URI, WORKSPACE_URI } from "../workspace/workspace.ts";

const JSON_MIME = "application/json";
const GRAPHML_MIME = "application/graphml+xml";
const GRAPH_FORMATS: readonly GraphFormat[] = ["d3", "cytoscape", "graphml"];

/** A JSON resource's contents, indented as the reference renders them. */
function json(uri: string, value: unknown): ResourceContents {
  return { uri, mimeType: JSON_MIME, text: JSON.stringify(value, null, 2) };
}

/** The asset type's family heading. */
function familyOf(type: string): string | null {
  for (const [family, types] of Object.entries(ASSET_TYPE_FAMILIES)) {
    if ((types as readonly string[]).includes(type)) return family;
  }
  return null;
}

/** The static resources. */
export function cloudResources(ctx: CloudContext): StaticResourceDefinition[] {
  const active = () => ctx.dataset("");
  const fixed = (
    uri: string,
    name: string,
    description: string,
    category: string,
    sensitivity: StaticResourceDefinition["sensitivity"],
    read: () => unknown,
  ): StaticResourceDefinition => ({
    uri,
    name,
    description,
    mimeType: JSON_MIME,
    category,
    sensitivity,
    read: (requested) =>
      translated(async () => {
        await ctx.preloaded;
        return json(requested, read());
      }),
  });
  return [
    fixed(
      WORKSPACE_URI,
      "workspace_resource",
      "The workspace: the active dataset, every dataset's listing entry and the allowed roots.",
      "workspace",
      "internal",
      () => {
        const listing = ctx.workspace.list();
        return {
          active_dataset: listing.active_dataset,
          datasets: listing.datasets,
          allowed_roots: ctx.services.roots.map((root) => root.path),
        };
      },
    ),
    fixed(
      DATASETS_URI,
      "datasets_resource",
      "The loaded datasets and the active one.",
      "workspace",
      "internal",
      () => {
        const { active_dataset, datasets } = ctx.workspace.list();
        return { active_dataset, datasets };
      },
    ),
    fixed(
      `${URI_SCHEME}findings/summary`,
      "Findings summary",
      "Open and suppressed findings of the active dataset, by severity and by tool.",
      "findings",
      "internal",
      () => findingsOverview(active()),
    ),
    fixed(
      `${URI_SCHEME}compliance`,
      "Compliance posture",
      "One rollup row per framework of the active dataset, most open findings first.",
      "compliance",
      "internal",
      () => {
        const dataset = active();
        return { dataset: dataset.name, frameworks: complianceRollup(dataset) };
      },
    ),
    fixed(
      `${URI_SCHEME}schema/asset-types`,
      "Asset types",
      "Every asset type, by family.",
      "meta",
      "public",
      () => ASSET_TYPE_FAMILIES,
    ),
    fixed(
      `${URI_SCHEME}schema/edge-types`,
      "Edge types",
      "Every edge type: how it reads, its typical endpoints and its dependency direction.",
      "meta",
      "public",
      () =>
        Object.fromEntries(
          Object.entries(EDGE_TYPE_INFO).map(([type, info]) => [type, {
            reads_as: info.reads,
            typical: info.typical,
            dependency_direction: info.dependency,
          }]),
        ),
    ),
    fixed(
      `${URI_SCHEME}schema/relation-types`,
      "Ontology relation types",
      "The semantic relation types, by relation group.",
      "meta",
      "public",
      () => RELATION_GROUPS,
    ),
    fixed(
      `${URI_SCHEME}docs`,
      "Documentation topics",
      "The documentation topics cloudg://docs/{topic} serves, each with one line.",
      "meta",
      "public",
      () => ({ available: true, topics: docTopicIndex() }),
    ),
    fixed(
      `${URI_SCHEME}graph/d3`,
      "Graph (D3)",
      "The whole relationship graph of the active dataset as D3 {nodes, links}.",
      "graph",
      "confidential",
      () => toD3(relationshipGraph(active())),
    ),
    {
      uri: ONTOLOGY_TURTLE_URI,
      name: "Ontology (Turtle)",
      description:
        "The active dataset's RDF/OWL ontology as Turtle (built on first read, then cached).",
      mimeType: ONTOLOGY_FORMAT_INFO.turtle.mimeType,
      category: "ontology",
      sensitivity: "restricted",
      read: (requested) => ontologyTranslated(() => readOntology(ctx, "turtle", requested)),
    },
  ];
}

/** The resource templates, their variables completed by the given families. */
export function cloudTemplates(
  ctx: CloudContext,
  families: Readonly<Record<string, CompletionFamily>>,
): ResourceTemplateDefinition[] {
  const family = (name: string): CompletionFamily => families[name]!;
  const template = (
    uriTemplate: string,
    name: string,
    title: string,
    description: string,
    variables: Record<string, CompletionFamily>,
    read: (variables: Record<string, string>, uri: string) => ResourceContents,
    mimeType = JSON_MIME,
  ): ResourceTemplateDefinition => ({
    name,
    title,
    uriTemplate: `${URI_SCHEME}${uriTemplate}`,
    description,
    mimeType,
    variables,
    read: (values, uri) =>
      translated(async () => {
        await ctx.preloaded;
        return read(values, uri);
      }),
  });
  const active = () => ctx.dataset("");
  return [
    template(
      "datasets/{dataset}/summary",
      "dataset_summary",
      "Dataset summary",
      "The summary of the named dataset.",
      { dataset: family("dataset") },
      ({ dataset }, uri) => {
        if (!ctx.workspace.has(dataset ?? "")) {
          throw new NotFoundError("No dataset of that name is loaded.", { value: dataset });
        }
        return json(uri, datasetSummary(ctx.dataset(dataset)));
      },
    ),
    template(
      "assets/{+ref}",
      "asset",
      "Asset",
      "An asset of the active dataset by id, ARN or unique name: its brief, tags, relation counts, open findings, metadata keys and direct dependencies.",
      { ref: family("asset") },
      ({ ref }, uri) => json(uri, assetDetail(active(), ref ?? "")),
    ),
    template(
      "assets/{+ref}/neighbors",
      "asset_neighbors",
      "Asset neighbours",
      "The edges touching an asset of the active dataset (both directions, at most 500) and the assets at their other ends.",
      { ref: family("asset") },
      ({ ref }, uri) => json(uri, assetNeighbors(active(), ref ?? "")),
    ),
    template(
      "assets/{+ref}/findings",
      "asset_findings",
      "Asset findings",
      "Every open finding of an asset of the active dataset, highest risk first.",
      { ref: family("asset") },
      ({ ref }, uri) => json(uri, assetFindings(active(), ref ?? "")),
    ),
    template(
      "findings/{finding_id}",
      "finding",
      "Finding",
      "A finding of the active dataset with its description, evidence and remediation.",
      { finding_id: family("finding") },
      ({ finding_id }, uri) => json(uri, findingDetail(active(), finding_id ?? "")),
    ),
    template(
      "findings/severity/{severity}",
      "findings_by_severity",
      "Findings by severity",
      "The open findings of one severity in the active dataset, highest risk first (at most 200).",
      { severity: family("severity") },
      ({ severity }, uri) => json(uri, findingsBySeverity(active(), severity ?? "")),
    ),
    template(
      "compliance/{framework}",
      "framework_posture",
      "Framework posture",
      "A framework's rollup and failing controls in the active dataset.",
      { framework: family("framework") },
      ({ framework }, uri) => json(uri, frameworkDetail(active(), framework ?? "")),
    ),
    template(
      "schema/asset-types/{asset_type}",
      "asset_type",
      "Asset type",
      "One asset type: its family and its ontology class.",
      { asset_type: family("asset_type") },
      ({ asset_type }, uri) => {
        const type = (asset_type ?? "").toUpperCase();
        const family = familyOf(type);
        if (family === null) {
          throw new NotFoundError("No asset type of that name.", { value: asset_type });
        }
        return json(uri, {
          asset_type: type,
          family,
          ontology_class: `cm:${
            type.toLowerCase().split("_").map((w) => w.charAt(0).toUpperCase() + w.slice(1))
              .join("")
          }`,
        });
      },
    ),
    template(
      "docs/{topic}",
      "documentation",
      "Documentation",
      `A documentation topic as Markdown: ${DOC_TOPIC_NAMES.join(", ")}.`,
      { topic: family("topic") },
      ({ topic }, uri) => ({ uri, mimeType: "text/markdown", text: readDocTopic(topic ?? "") }),
      "text/markdown",
    ),
    template(
      "graph/{format}",
      "graph_export",
      "Graph export",
      `The whole relationship graph of the active dataset: ${
        GRAPH_FORMATS.join(", ")
      } (d3 and cytoscape as JSON, graphml as ${GRAPHML_MIME}).`,
      { format: family("graph_format") },
      ({ format }, uri) => {
        const wanted = (format ?? "").toLowerCase();
        if (!(GRAPH_FORMATS as readonly string[]).includes(wanted)) {
          throw new NotFoundError(
            `No graph export in that format; the formats are ${GRAPH_FORMATS.join(", ")}.`,
            { value: format, valid: GRAPH_FORMATS },
          );
        }
        const graph = exportGraph(relationshipGraph(active()), wanted as GraphFormat);
        return typeof graph === "string"
          ? { uri, mimeType: GRAPHML_MIME, text: graph }
          : json(uri, graph);
      },
    ),
    {
      name: "ontology",
      title: "Ontology export",
      uriTemplate: `${URI_SCHEME}ontology/{format}`,
      description: `The active dataset's RDF/OWL ontology in one format: ${
        ONTOLOGY_FORMATS.map((f) => `${f} (${ONTOLOGY_FORMAT_INFO[f].mimeType})`).join(", ")
      }.`,
      mimeType: ONTOLOGY_FORMAT_INFO.turtle.mimeType,
      variables: { format: family("ontology_format") },
      read: ({ format }, uri) =>
        ontologyTranslated(() => {
          const name = format ?? "";
          if (!(ONTOLOGY_FORMATS as readonly string[]).includes(name)) {
            throw new NotFoundError(
              `No such ontology format: use one of ${ONTOLOGY_FORMATS.join(", ")}.`,
              { value: name, valid: [...ONTOLOGY_FORMATS] },
            );
          }
          return readOntology(ctx, name as (typeof ONTOLOGY_FORMATS)[number], uri);
        }),
    },
  ];
}
