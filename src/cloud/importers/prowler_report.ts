/**
 * The `prowler` importer: any Prowler output format, told apart by
 * content (ASFF findings carry `ProductArn`, OCSF findings `finding_info` /
 * `class_uid`, CSV opens with Prowler's semicolon-separated header), for
 * callers that name the tool rather than the format
 * (`ingest_reports({prowler: [...]})`, `load_dataset(kind="prowler")`). It has
 * no sniff of its own: auto-detection picks the format-specific importers.
 *
 * @module
 */

import type { Importer, ImportInput, ImportResult } from "./importer.ts";
import { fileLabel, ImportError, readInputText } from "./import_input.ts";
import { looksLikeProwlerCsv, prowlerCsvImporter } from "./prowler_csv.ts";
import { looksLikeAsff, prowlerAsffImporter } from "./prowler_asff.ts";
import { looksLikeOcsf, prowlerOcsfImporter } from "./prowler_ocsf.ts";
import { readJsonOrLines } from "./scanner_common.ts";
import { firstLine } from "./read.ts";

const KIND = "prowler";

/** The `prowler` importer entry. */
export const prowlerImporter: Importer = {
  kind: KIND,
  description:
    "Prowler findings, ASFF, OCSF or CSV, told apart by their content (forced kind only)",
  detectors: [],
  async load(input: ImportInput): Promise<ImportResult> {
    if (input.json === undefined) {
      const text = await readInputText(input, { kind: KIND, path: input.path });
      if (looksLikeProwlerCsv(firstLine(text))) {
        return await prowlerCsvImporter.load({ ...input, text });
      }
      input = { ...input, text };
    }
    const parsed = await readJsonOrLines(KIND, input);
    if (looksLikeAsff(parsed)) return await prowlerAsffImporter.load({ ...input, json: parsed });
    if (looksLikeOcsf(parsed)) return await prowlerOcsfImporter.load({ ...input, json: parsed });
    throw new ImportError(
      `${fileLabel(input.path)} is not Prowler output: expected ASFF (-M json-asff) or OCSF ` +
        `(-M json-ocsf) findings, as a JSON array or JSON Lines, or Prowler's CSV (-M csv).`,
      { kind: KIND, file: input.path },
    );
  },
};
