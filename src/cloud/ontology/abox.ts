/**
 * The ontology's ABox: assets typed with their class and described by data
 * properties, tags, the inferred relations of edges and assets (with edge
 * metadata nodes), findings and the compliance frameworks they name.
 *
 * The input is plain data (structured-cloneable), so it can be sent to the
 * worker that holds the store.
 *
 * @module
 */

import type { Asset, ComplianceResult, Edge, Finding } from "../model/records.ts";
import { riskScore } from "../model/records.ts";
import type { DatasetView } from "../model/view.ts";
import { AssetReferenceIndex } from "./asset_references.ts";
import { assetClassName } from "./classes.ts";
import {
  classIri,
  CM,
  complianceIri,
  findingIri,
  iriSafe,
  propertyIri,
  resourceIri,
  tagIri,
  XSD,
} from "./namespaces.ts";
import { namedNode } from "./oxigraph.ts";
import { blank, iri, type IriTerm, lit, triple, type TripleTerm } from "./terms.ts";
import { inferAssetRelations, inferEdgeRelations } from "../model/relations.ts";
import { RDF_TYPE, RDFS_LABEL } from "./tbox.ts";

/** What the ontology is built from: a dataset's records, findings already mapped to assets. */
export interface OntologyInput {
  /** The assets. */
  assets: Asset[];
  /** The edges. */
  edges: Edge[];
  /** The findings, suppressed ones included. */
  findings: Finding[];
  /** The asset id each finding maps to (same order as `findings`), or null when none. */
  findingAssetIds: (string | null)[];
  /** The compliance results. */
  compliance: ComplianceResult[];
}

/**
 * The ontology input of a dataset: its records, each finding mapped to its
 * asset by the view's reference tiers.
 */
export function ontologyInputFromView(view: DatasetView): OntologyInput {
  const { assets, edges, findings, compliance } = view.records;
  const findingAssetIds = findings.map((f) => view.findingAsset(f)?.id ?? null);
  return { assets, edges, findings, findingAssetIds, compliance };
}

const XSD_BOOLEAN = iri(XSD + "boolean");
const XSD_FLOAT = iri(XSD + "float");
const CLOUD_RESOURCE = iri(classIri("CloudResource"));
const TAG_VALUE = iri(classIri("TagValue"));
const EDGE_METADATA = iri(classIri("EdgeMetadata"));
const FINDING_CLASS = iri(classIri("SecurityFinding"));
const COMPLIANCE_CLASS = iri(classIri("ComplianceControl"));
const FROM_NODE = iri(CM + "fromNode");
const TO_NODE = iri(CM + "toNode");

const PROPERTY_CACHE = new Map<string, IriTerm>();
/** The named node of a `cmp:` property, cached. */
function prop(name: string): IriTerm {
  let node = PROPERTY_CACHE.get(name);
  if (node === undefined) {
    node = iri(propertyIri(name));
    PROPERTY_CACHE.set(name, node);
  }
  return node;
}

/** A resource id that is itself an absolute IRI (an ARN, a URL) as a term, else null. */
function rawIri(text: string): IriTerm | null {
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\S/.test(text)) return null;
  const value = iriSafe(text);
  try {
    namedNode(value); // oxigraph's own check: the store would refuse what fails here
    return iri(value);
  } catch {
    return null;
  }
}

/**
 * Writes ABox quads for one input, unit by unit (an asset, an edge, a
 * finding), remembering which placeholder and tag nodes it already declared.
 */
export class AboxWriter {
  readonly #input: OntologyInput;
  readonly #assets = new Map<string, Asset>();
  readonly #declared = new Set<string>();
  readonly #references: AssetReferenceIndex;
  #blank = 0;

  /** Indexes the input's assets. */
  constructor(input: OntologyInput) {
    this.#input = input;
    for (const asset of input.assets) this.#assets.set(asset.id, asset);
    this.#references = new AssetReferenceIndex(input.assets);
  }

  /** How many units {@link unit} accepts: assets, then edges, then findings. */
  get units(): number {
    return this.#input.assets.length + this.#input.edges.length + this.#input.findings.length;
  }

  /** Appends the quads of unit `index` (see {@link units}) to `out`. */
  unit(index: number, out: TripleTerm[]): void {
    const { assets, edges, findings } = this.#input;
    if (index < assets.length) return this.#asset(assets[index]!, out);
    index -= assets.length;
    if (index < edges.length) return this.#edge(edges[index]!, out);
    index -= edges.length;
    if (index < findings.length) {
      return this.#finding(findings[index]!, this.#input.findingAssetIds[index] ?? null, out);
    }
    throw new RangeError(`ABox unit ${index} is out of range (there are ${this.units}).`);
  }

  #node(id: string): IriTerm {
    return iri(resourceIri(id));
  }

  /** The node of an edge endpoint, declaring a placeholder the first time it is seen. */
  #endpoint(id: string, out: TripleTerm[]): IriTerm {
    const node = this.#node(id);
    if (!this.#assets.has(id) && !this.#declared.has(node.value)) {
      this.#declared.add(node.value);
      out.push(triple(node, RDF_TYPE, CLOUD_RESOURCE));
      out.push(triple(node, prop("hasName"), lit(id)));
    }
    return node;
  }

  /** The node an asset-level reference stands for (an asset when it resolves). */
  #reference(ref: string): IriTerm {
    return this.#node(this.#references.resolve(ref));
  }

  #asset(asset: Asset, out: TripleTerm[]): void {
    const node = this.#node(asset.id);
    out.push(triple(node, RDF_TYPE, iri(classIri(assetClassName(asset.asset_type)))));
    out.push(triple(node, prop("hasName"), lit(asset.name)));
    out.push(triple(node, prop("hasProvider"), lit(asset.provider)));
    out.push(triple(node, prop("hasRegion"), lit(asset.region)));
    out.push(
      triple(
        node,
        prop("isInternetExposed"),
        lit(String(asset.is_internet_exposed), XSD_BOOLEAN),
      ),
    );
    if (asset.arn) out.push(triple(node, prop("hasARN"), lit(asset.arn)));
    if (asset.account_id) out.push(triple(node, prop("hasAccountId"), lit(asset.account_id)));
    for (const [key, value] of Object.entries(asset.tags ?? {})) {
      const tag = iri(tagIri(key, value));
      if (!this.#declared.has(tag.value)) {
        this.#declared.add(tag.value);
        out.push(triple(tag, RDF_TYPE, TAG_VALUE));
        out.push(triple(tag, RDFS_LABEL, lit(`${key}=${value}`)));
      }
      out.push(triple(node, prop("TAGGED_WITH"), tag));
    }
    for (const { subject, relation, object } of inferAssetRelations(asset)) {
      out.push(triple(this.#reference(subject), prop(relation), this.#reference(object)));
    }
  }

  #edge(edge: Edge, out: TripleTerm[]): void {
    const source = this.#endpoint(edge.source_id, out);
    const target = this.#endpoint(edge.target_id, out);
    const relations = inferEdgeRelations(
      edge,
      this.#assets.get(edge.source_id),
      this.#assets.get(edge.target_id),
    );
    for (const relation of relations) out.push(triple(source, prop(relation), target));
    if (edge.cidr || edge.port_range || edge.protocol) {
      const meta = blank(`m${this.#blank++}`);
      out.push(triple(meta, RDF_TYPE, EDGE_METADATA));
      out.push(triple(meta, FROM_NODE, source));
      out.push(triple(meta, TO_NODE, target));
      if (edge.cidr) out.push(triple(meta, prop("hasCIDR"), lit(edge.cidr)));
      if (edge.port_range) out.push(triple(meta, prop("hasPort"), lit(edge.port_range)));
      if (edge.protocol) out.push(triple(meta, prop("hasProtocol"), lit(edge.protocol)));
    }
  }

  #finding(finding: Finding, assetId: string | null, out: TripleTerm[]): void {
    const node = iri(findingIri(finding.id));
    out.push(triple(node, RDF_TYPE, FINDING_CLASS));
    out.push(triple(node, prop("hasName"), lit(finding.title)));
    out.push(triple(node, prop("hasSeverity"), lit(finding.severity)));
    out.push(triple(node, prop("hasRiskScore"), lit(String(riskScore(finding)), XSD_FLOAT)));
    const affected: IriTerm = assetId !== null
      ? this.#node(assetId)
      : rawIri(finding.resource_id) ?? this.#node(finding.resource_id);
    out.push(triple(node, prop("FINDING_AFFECTS"), affected));
    for (const framework of finding.compliance_frameworks ?? []) {
      const control = iri(complianceIri(framework));
      if (!this.#declared.has(control.value)) {
        this.#declared.add(control.value);
        out.push(triple(control, RDF_TYPE, COMPLIANCE_CLASS));
        out.push(triple(control, RDFS_LABEL, lit(framework)));
      }
      out.push(triple(control, prop("COMPLIANCE_GOVERNS"), affected));
    }
  }
}
