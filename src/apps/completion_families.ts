/**
 * The completion families of the apps workbench: documents, procedures,
 * providers, captures, unknowns, inventory manifests and occurrences.
 *
 * @module
 */

import {
  discoverPaged,
  discoveryCandidates,
  MAX_COMPLETION_VALUE_LENGTH,
  sharedDiscoveryNames,
} from "../core/completion.ts";
import type { CompletionFamily } from "../core/workbench.ts";
import type { InventoryPage } from "./artifacts/model.ts";
import type { AppsContext } from "./context/apps_context.ts";
import { validInventoryRecords } from "./context/artifact_access.ts";
import { captureCandidates } from "./context/capture_support.ts";
import { MAX_UNKNOWN_CANDIDATES } from "./context/unknown_support.ts";
import { usableProviderIds } from "./providers/provider.ts";
import { LIST_DOCUMENTS, LIST_PROCEDURES } from "./tool_names.ts";
import { MAX_PROCEDURE_PAGE } from "./tools/list_procedures.ts";

/** Most inventory manifests or occurrences offered. */
const MAX_INVENTORY_CANDIDATES = 10_000;

/** The `manifest` family: manifest ids of retained inventory pages. */
export function manifestFamily(context: AppsContext): CompletionFamily {
  return {
    source: () => {
      const values: string[] = [];
      for (const record of validInventoryRecords(context.ledger)) {
        if (values.length >= MAX_INVENTORY_CANDIDATES) break;
        values.push((record.normalized_result as InventoryPage).manifest.manifest_id);
      }
      return values;
    },
  };
}

/** Every completion family of the apps workbench, by name. */
export function appsCompletionFamilies(context: AppsContext): Record<string, CompletionFamily> {
  const { session, ledger, unknowns } = context;
  return {
    document: {
      source: () => {
        const { target, provider } = session.requireProvider(LIST_DOCUMENTS);
        const documents: unknown[] = provider.listDocuments(target);
        return documents.every((d) => typeof d === "string" && d.length > 0) ? documents : [];
      },
    },
    procedure: {
      source: async (completion) => {
        const document = completion.arguments.document;
        if (typeof document === "string" && document.length > MAX_COMPLETION_VALUE_LENGTH) {
          return [];
        }
        const { target, provider, document: chosen } = await session.prepared(
          LIST_PROCEDURES,
          typeof document === "string" ? document : undefined,
          { signal: completion.signal },
        );
        const result = await discoverPaged(async (offset, limit) => {
          const page = await provider.listProcedures(target, chosen, offset, limit);
          return ({
            items: page.items.map((item) => ({ key: item.address, name: item.value })),
            hasMore: page.has_more,
            nextOffset: page.next_offset,
          });
        }, { pageSize: MAX_PROCEDURE_PAGE, maxKeys: 5000, signal: completion.signal });
        const candidates = discoveryCandidates(result);
        // A name several procedures share is no candidate; where symbol versions tell them apart
        // (libc's memcpy@@GLIBC_2.14 and memcpy@GLIBC_2.2.5), their versioned names are.
        const shared = sharedDiscoveryNames(result).slice(0, MAX_SHARED_NAMES);
        if (shared.length > 0 && provider.procedures) {
          const { table } = await provider.procedures({ target, document: chosen });
          for (const name of shared) {
            for (const versioned of table.versionedNames(name)) candidates.push(versioned.spelling);
          }
        }
        return candidates;
      },
    },
    provider: {
      // Only what can be used: an unavailable provider would fail the call it completes.
      source: () => usableProviderIds(session.candidates),
    },
    capture: {
      source: () => captureCandidates(ledger),
    },
    unknown: {
      source: () =>
        unknowns.heads().filter((head) => head.status !== "resolved").slice(
          0,
          MAX_UNKNOWN_CANDIDATES,
        ).map((head) => head.unknown_id),
    },
    manifest: manifestFamily(context),
    occurrence: {
      source: () => {
        const values: string[] = [];
        for (const record of validInventoryRecords(ledger)) {
          for (const item of (record.normalized_result as InventoryPage).occurrences.items) {
            if (values.length >= MAX_INVENTORY_CANDIDATES) return values;
            values.push(item.occurrence_id);
          }
        }
        return values;
      },
    },
  };
}

/** Most shared procedure names whose versioned names completion looks up. */
const MAX_SHARED_NAMES = 1000;
