/**
 * The resource templates of the apps workbench: Evidence bundles, sections
 * of Evidence records, inventory collections and residual unknowns.
 *
 * @module
 */

import { EVIDENCE_ID_PATTERN } from "../core/evidence.ts";
import type { ResourceTemplateDefinition } from "../core/workbench.ts";
import { MANIFEST_ID_PATTERN } from "./artifacts/ids.ts";
import type { InventoryPage } from "./artifacts/model.ts";
import { manifestFamily } from "./completion_families.ts";
import type { AppsContext } from "./context/apps_context.ts";
import { validInventoryRecords } from "./context/artifact_access.ts";
import { MAX_UNKNOWN_CANDIDATES } from "./context/unknown_support.ts";
import { sectionOf, sectionsOf } from "./evidence_bundle/sections.ts";
import { bundleUri } from "./evidence_bundle/store.ts";
import { UNKNOWN_ID_PATTERN, type UnknownRegistry, unknownUri } from "./unknowns/registry.ts";

/** Every resource template of the apps workbench. */
export function appsResourceTemplates(context: AppsContext): ResourceTemplateDefinition[] {
  const { ledger, bundles } = context;
  return [
    unknownResourceTemplate(context.unknowns),
    {
      name: "evidence-bundle",
      title: "Evidence bundle",
      uriTemplate: "rea://evidence-bundle/{digest}",
      description:
        "A retained Evidence bundle v2, byte for byte as snapshot_evidence_bundle hashed it.",
      mimeType: "application/json",
      contentAddressed: true,
      variables: {
        digest: { source: () => bundles.list().map((b) => b.digest) },
      },
      list: () =>
        bundles.list().map((b) => ({
          uri: bundleUri(b.digest),
          name: `evidence bundle ${b.digest.slice(0, 12)}`,
          description: `${b.records} records, ${b.unknowns} unknown revisions, ${b.bytes} bytes`,
          mimeType: "application/json",
        })),
      read: (variables, uri) => {
        const bundle = bundles.get(variables.digest ?? "");
        return Promise.resolve(
          bundle ? { uri, mimeType: "application/json", text: bundle.text } : null,
        );
      },
    },
    {
      name: "evidence-section",
      title: "Evidence record section",
      uriTemplate: "rea://evidence/{evidenceId}/section/{section}",
      description:
        "One section of a retained Evidence record's result: a top-level key, or for captures the groups terminal, filesystem, process and protocol.",
      mimeType: "application/json",
      variables: {
        evidenceId: { source: () => ledger.list().map((r) => r.evidence_id) },
        section: {
          source: (context) => {
            const id = context.arguments.evidenceId;
            const record = typeof id === "string" && EVIDENCE_ID_PATTERN.test(id)
              ? ledger.get(id)
              : undefined;
            return record ? sectionsOf(record) : [];
          },
        },
      },
      read: (variables, uri) => {
        const id = variables.evidenceId ?? "";
        const record = EVIDENCE_ID_PATTERN.test(id) ? ledger.get(id) : undefined;
        const section = record ? sectionOf(record, variables.section ?? "") : undefined;
        return Promise.resolve(
          record && section !== undefined
            ? {
              uri,
              mimeType: "application/json",
              text: JSON.stringify({ evidence_id: id, section: variables.section, value: section }),
            }
            : null,
        );
      },
    },
    {
      name: "artifact-collection",
      title: "Inventory page",
      uriTemplate: "rea://artifact/{manifestId}/{collection}",
      description:
        "The nodes, occurrences or edges page of the first retained inventory record (in Evidence id order) with this manifest.",
      mimeType: "application/json",
      variables: {
        manifestId: manifestFamily(context),
        collection: { source: () => ["edges", "nodes", "occurrences"] },
      },
      read: (variables, uri) => {
        const collection = variables.collection ?? "";
        if (
          !MANIFEST_ID_PATTERN.test(variables.manifestId ?? "") ||
          !["nodes", "occurrences", "edges"].includes(collection)
        ) {
          return Promise.resolve(null);
        }
        const record = validInventoryRecords(ledger)
          .sort((a, b) => (a.evidence_id < b.evidence_id ? -1 : 1))
          .find((r) =>
            (r.normalized_result as InventoryPage).manifest.manifest_id === variables.manifestId
          );
        if (!record) return Promise.resolve(null);
        const page = record.normalized_result as InventoryPage;
        return Promise.resolve({
          uri,
          mimeType: "application/json",
          text: JSON.stringify({
            evidence_id: record.evidence_id,
            manifest_id: page.manifest.manifest_id,
            collection,
            page: page[collection as "nodes" | "occurrences" | "edges"],
            provider: record.provider,
            limitations: record.limitations,
          }),
        });
      },
    },
  ];
}

/** The `rea://unknown/{unknownId}` resource: `{current, history}` of one unknown. */
function unknownResourceTemplate(registry: UnknownRegistry): ResourceTemplateDefinition {
  return {
    name: "unknown",
    title: "Residual unknown",
    uriTemplate: "rea://unknown/{unknownId}",
    description:
      "A residual unknown of this session: {current, history}, the head and every revision oldest first.",
    mimeType: "application/json",
    // Its id is computed from the domain, question and scope it serves, and each revision
    // carries the digest of its own content: served exactly.
    contentAddressed: true,
    variables: {
      unknownId: {
        source: () => registry.heads().slice(0, MAX_UNKNOWN_CANDIDATES).map((h) => h.unknown_id),
      },
    },
    list: () =>
      registry.heads().slice(0, MAX_UNKNOWN_CANDIDATES).map((head) => ({
        uri: unknownUri(head.unknown_id),
        name: head.unknown_id,
        description: `${head.status} ${head.severity} unknown in ${head.domain}`,
        mimeType: "application/json",
      })),
    read: (variables, uri) => {
      const id = variables.unknownId ?? "";
      const current = UNKNOWN_ID_PATTERN.test(id) ? registry.get(id) : undefined;
      return Promise.resolve(
        current
          ? {
            uri,
            mimeType: "application/json",
            text: JSON.stringify({ current, history: registry.history(id) }),
          }
          : null,
      );
    },
  };
}
