/**
 * The ontology file `export_ontology` writes: the dataset's ontology built
 * into a fresh oxigraph store and serialised by oxigraph in one of the four
 * formats, named `<filename>.<extension>`.
 *
 * @module
 */

import { parseEnum } from "../model/parse_enum.ts";
import type { DatasetView } from "../model/view.ts";
import { ontologyInputFromView } from "../ontology/abox.ts";
import { buildOntology } from "../ontology/build.ts";
import {
  dumpOntology,
  ONTOLOGY_FORMAT_INFO,
  ONTOLOGY_FORMATS,
  type OntologyFormat,
} from "../ontology/formats.ts";
import { checkFilename, type ExportFile } from "./output_dir.ts";

/** The ontology file with the facts a caller reports. */
export interface OntologyFile extends ExportFile {
  /** The format written. */
  format: OntologyFormat;
  /** Its MIME type. */
  mimeType: string;
  /** Triples in the store it was dumped from. */
  triples: number;
}

/** Options of {@link ontologyFile}. */
export interface OntologyFileOptions {
  /** Build progress (done, total). @default undefined */
  onProgress?: (done: number, total: number) => void;
  /** Stops the build between batches. @default undefined */
  signal?: AbortSignal;
}

/** The file name: `filename` plus the format's extension (unless it already ends with it). */
export function ontologyFileName(filename: string, format: OntologyFormat): string {
  const extension = dumpExtension(format);
  const name = filename.toLowerCase().endsWith(`.${extension}`)
    ? filename
    : `${filename}.${extension}`;
  return checkFilename(name);
}

function dumpExtension(format: OntologyFormat): string {
  return ONTOLOGY_FORMAT_INFO[format].extension;
}

/**
 * Builds the ontology of `view` and serialises it. `format` is read case-
 * insensitively (turtle, json-ld, xml, nt); `filename` must match the
 * filename pattern (checked before anything is built).
 */
export async function ontologyFile(
  view: DatasetView,
  request: { format: string; filename: string },
  options: OntologyFileOptions = {},
): Promise<OntologyFile> {
  const format = parseEnum(request.format, ONTOLOGY_FORMATS, { label: "ontology format" });
  checkFilename(request.filename);
  const name = ontologyFileName(request.filename, format);
  const built = await buildOntology(ontologyInputFromView(view), {
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const dump = dumpOntology(built.store, format);
  return { name, content: dump.text, format, mimeType: dump.mimeType, triples: built.triples };
}
