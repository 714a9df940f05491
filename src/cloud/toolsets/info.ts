/**
 * The cloud workbench's toolsets, each with what it is for, in listing order:
 * light data the command line and the server's start need, kept apart from
 * the tools themselves.
 *
 * @module
 */

/** What the toolset is for. */
export const WORKSPACE_TOOLSET = {
  name: "workspace",
  description: "Named datasets: load, select, snapshot, compare, summarise.",
};

/** What the toolset is for. */
export const INVENTORY_TOOLSET = {
  name: "inventory",
  description:
    "Assets: search, detail, metadata, counts, accounts, regions, tags, coverage, organisation.",
};

/** What the toolset is for. */
export const GRAPH_TOOLSET = {
  name: "graph",
  description:
    "The asset graph: neighbours, edges, paths, exposure, dependencies, blast radius, centrality, exports.",
};

/** What the toolset is for. */
export const FINDINGS_TOOLSET = {
  name: "findings",
  description: "Findings: lists, detail, summaries, top risks, suppression.",
};

/** What the toolset is for. */
export const COMPLIANCE_TOOLSET = {
  name: "compliance",
  description: "Compliance: frameworks, rollups, controls, gaps.",
};

/** What the toolset is for. */
export const ONTOLOGY_TOOLSET = {
  name: "ontology",
  description:
    "The dataset as an RDF/OWL ontology: counts, read-only SPARQL, semantic neighbourhoods, relation groups, retrieval chunks.",
};

/** What the toolset is for. */
export const EXPORT_TOOLSET = {
  name: "export",
  description:
    "Files under the operator's output directory: reports (json, html, inventory, graphml, asset map), Terraform import skeletons, the ontology.",
};

/** What the toolset is for. */
export const META_TOOLSET = {
  name: "meta",
  description: "What the cloud workbench offers and what its vocabularies mean.",
};

/** The cloud toolsets, in listing order. */
export const CLOUD_TOOLSETS = [
  WORKSPACE_TOOLSET,
  INVENTORY_TOOLSET,
  GRAPH_TOOLSET,
  FINDINGS_TOOLSET,
  COMPLIANCE_TOOLSET,
  ONTOLOGY_TOOLSET,
  EXPORT_TOOLSET,
  META_TOOLSET,
] as const;
