/**
 * The graph digest of a snapshot (`graph_sha256`: SHA-256 of the canonical
 * JSON of `{nodes, occurrences, edges, integrity_contradictions}`), hashed
 * item by item instead of as one string of the whole graph, and the size of
 * each item's JSON, which pages are then bounded by without serialising
 * their items again.
 *
 * Items whose keys the scan already wrote in code-unit order are frozen as
 * canonical, so core `canonicalJson` writes each in one native pass; any
 * other item still gets its canonical JSON, only more slowly.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { canonicalJson, freezeCanonical } from "../../core/canonical_json.ts";
import type {
  ArtifactEdge,
  ArtifactNode,
  ArtifactOccurrence,
  IntegrityContradiction,
} from "./model.ts";

/** The four collections a graph digest covers, each already in its canonical order. */
export interface DigestedGraph {
  nodes: readonly ArtifactNode[];
  occurrences: readonly ArtifactOccurrence[];
  edges: readonly ArtifactEdge[];
  integrity_contradictions: readonly IntegrityContradiction[];
}

/** UTF-16 code units of each item's JSON, by collection and position. */
export interface ItemChars {
  nodes: Uint32Array;
  occurrences: Uint32Array;
  edges: Uint32Array;
}

/** Characters hashed at once: large enough to amortise each update, small enough to stay young. */
const BATCH_CHARS = 64 * 1024;

/**
 * Freezes every item of `graph` (a snapshot never changes once made) and
 * returns its graph digest with the JSON size of each node, occurrence and
 * edge. The digest equals `sha256Hex(canonicalJson(graph))`.
 */
export function graphDigest(graph: DigestedGraph): { sha256: string; chars: ItemChars } {
  const hash = createHash("sha256");
  let batch = "";
  const put = (text: string): void => {
    batch += text;
    if (batch.length >= BATCH_CHARS) {
      hash.update(batch);
      batch = "";
    }
  };
  const collection = (items: readonly object[], sizes: Uint32Array | null): void => {
    put("[");
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      freezeCanonical(item);
      const json = canonicalJson(item);
      if (sizes) sizes[i] = json.length;
      put(i === 0 ? json : "," + json);
    }
    put("]");
  };
  const chars: ItemChars = {
    nodes: new Uint32Array(graph.nodes.length),
    occurrences: new Uint32Array(graph.occurrences.length),
    edges: new Uint32Array(graph.edges.length),
  };
  // Keys in code-unit order, as canonical JSON writes them.
  put('{"edges":');
  collection(graph.edges, chars.edges);
  put(',"integrity_contradictions":');
  collection(graph.integrity_contradictions, null);
  put(',"nodes":');
  collection(graph.nodes, chars.nodes);
  put(',"occurrences":');
  collection(graph.occurrences, chars.occurrences);
  put("}");
  hash.update(batch);
  return { sha256: hash.digest("hex"), chars };
}
