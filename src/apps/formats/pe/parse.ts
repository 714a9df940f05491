/**
 * A dependency-free reader for Windows PE images (PE32 and PE32+): the DOS,
 * COFF and optional headers, the section table (with long names from the
 * COFF string table), the data directories, the export table, the import
 * and delay-load import tables, the x64 / ARM64 / ARM `.pdata` function
 * table (with the chain of each chained x64 entry), the FDEs of a MinGW
 * image's `.eh_frame`, the TLS callbacks, the CodeView record of
 * the debug directory, and COFF symbols when a file still carries them.
 *
 * It takes bytes and never touches the file system. Damage in optional parts
 * of a file is reported in {@linkcode PeFile.warnings}; only bytes that
 * cannot be a PE image at all make {@linkcode parsePe} throw
 * {@linkcode PeParseError}. Every table walk is bounded by the bytes of the
 * section that holds it, by {@linkcode ParsePeOptions.maxEntries}, and by a
 * budget for string bytes proportional to the file size, and nothing is
 * allocated in proportion to a count read from the file before that count
 * has been checked against the file size.
 *
 * Each part has its module: `headers.ts` (headers, sections, string table),
 * `coff_symbols.ts`, `exports.ts`, `imports.ts`, `exceptions.ts`, `debug.ts`, `tls.ts`, `eh_frame.ts` (through the ELF reader's decoder),
 * all reading through one `PeReader` (`reader.ts`: the bytes, the RVA map,
 * the warnings). `model.ts` holds what a parse yields; `peImage` in
 * `image.ts` translates it into the format-neutral `BinaryImage`.
 *
 * @module
 */

import { readSymbols } from "./coff_symbols.ts";
import {
  ARCHITECTURES,
  DIR_BASERELOC,
  DIR_DEBUG,
  DIR_DELAY_IMPORT,
  DIR_EXCEPTION,
  DIR_EXPORT,
  DIR_IMPORT,
  DIR_TLS,
  IMAGE_FILE_DLL,
  MACHINE_NAMES,
  SUBSYSTEM_NAMES,
} from "./constants.ts";
import { buildIdOf, readDebug } from "./debug.ts";
import { readRuntimeFunctions } from "./exceptions.ts";
import { readExports } from "./exports.ts";
import { readHeaders, readSections, readStringTable } from "./headers.ts";
import { readImportTables } from "./imports.ts";
import { readTlsCallbacks } from "./tls.ts";
import { readCodePointers } from "./relocations.ts";
import { readEhFrame } from "./eh_frame.ts";
import type { ParsePeOptions, PeDataDirectory, PeFile } from "./model.ts";
import { hex, PeReader, STRING_BUDGET_FACTOR } from "./reader.ts";

const DEFAULT_MAX_ENTRIES = 1_000_000;

/**
 * Parses a PE image held in memory.
 *
 * @param bytes The whole file.
 * @param options Limits.
 * @returns The parsed image; damage in optional parts is listed in `warnings`.
 * @throws {PeParseError} When the bytes are not a PE image: no `MZ`, a DOS
 *   header or `e_lfanew` outside the file, no `PE\0\0` signature, or a COFF
 *   or optional header that is truncated or of an unknown kind.
 */
export function parsePe(bytes: Uint8Array, options: ParsePeOptions = {}): PeFile {
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  if (!Number.isSafeInteger(maxEntries) || maxEntries < 0) {
    throw new RangeError(`maxEntries must be a non-negative integer, got ${maxEntries}`);
  }
  const r = new PeReader(bytes, maxEntries);
  const headers = readHeaders(r);
  const { symbolTable, symbolCount, dataDirectories, characteristics, subsystem } = headers;
  r.strings = readStringTable(r, symbolTable, symbolCount);
  const sections = readSections(r, headers.sectionTable, headers.sectionCount);
  const symbols = readSymbols(r, symbolTable, symbolCount);
  const directory = (index: number): PeDataDirectory | null => {
    const d = dataDirectories[index];
    return d !== undefined && d.rva !== 0 ? d : null;
  };
  const exportDirectory = directory(DIR_EXPORT);
  const exported = exportDirectory === null
    ? { name: null, exports: [] }
    : readExports(r, exportDirectory);
  const imports = readImportTables(r, directory(DIR_IMPORT), directory(DIR_DELAY_IMPORT));
  const exceptionDirectory = directory(DIR_EXCEPTION);
  const runtimeFunctions = exceptionDirectory === null
    ? []
    : readRuntimeFunctions(r, exceptionDirectory);
  const debugDirectory = directory(DIR_DEBUG);
  const debug = debugDirectory === null ? null : readDebug(r, debugDirectory);
  const frameFunctions = readEhFrame(r, sections);
  const tlsDirectory = directory(DIR_TLS);
  const tlsCallbacks = tlsDirectory === null ? [] : readTlsCallbacks(r, tlsDirectory);
  const relocationDirectory = directory(DIR_BASERELOC);
  const codePointers = relocationDirectory === null
    ? []
    : readCodePointers(r, relocationDirectory, sections);

  if (r.budgetExhausted) {
    r.warn(
      `Stopped reading strings: the names of this file add up to more than ` +
        `${STRING_BUDGET_FACTOR} times its size; later names are empty`,
    );
  }
  if (r.droppedWarnings > 0) {
    r.warnings.push(`${r.droppedWarnings} more warnings were omitted`);
  }
  const is64 = r.is64;
  return {
    format: is64 ? "PE32+" : "PE32",
    bits: is64 ? 64 : 32,
    machine: r.machine,
    machineName: MACHINE_NAMES.get(r.machine) ?? hex(r.machine),
    architecture: ARCHITECTURES.get(r.machine) ?? "other",
    characteristics,
    isDll: (characteristics & IMAGE_FILE_DLL) !== 0,
    timeDateStamp: headers.timeDateStamp,
    subsystem,
    subsystemName: SUBSYSTEM_NAMES.get(subsystem) ?? hex(subsystem),
    dllCharacteristics: headers.dllCharacteristics,
    imageBase: r.imageBase,
    entryRva: headers.entryRva,
    sectionAlignment: headers.sectionAlignment,
    fileAlignment: headers.fileAlignment,
    sizeOfImage: headers.sizeOfImage,
    sizeOfHeaders: r.sizeOfHeaders,
    sections,
    dataDirectories,
    exportName: exported.name,
    exports: exported.exports,
    imports,
    runtimeFunctions,
    tlsCallbacks,
    codePointers,
    frameFunctions,
    debug: debug?.entries ?? [],
    codeView: debug?.codeView ?? null,
    buildId: debug?.codeView ? buildIdOf(debug.codeView) : null,
    symbols,
    warnings: r.warnings,
  };
}
