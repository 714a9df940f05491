/**
 * The debug directory of a PE image: its entries, and the CodeView record
 * (RSDS or NB10) that names the PDB and gives the symbol-server key.
 *
 * @module
 */

import { DEBUG_ENTRY_SIZE, DEBUG_TYPE_NAMES, IMAGE_DEBUG_TYPE_CODEVIEW } from "./constants.ts";
import type { PeCodeView, PeDataDirectory, PeDebugEntry } from "./model.ts";
import { hex, hex2, type PeReader } from "./reader.ts";

/** The debug directory's entries and the first CodeView record among them. */
export function readDebug(
  r: PeReader,
  directory: PeDataDirectory,
): { entries: PeDebugEntry[]; codeView: PeCodeView | null } {
  const entries: PeDebugEntry[] = [];
  let codeView: PeCodeView | null = null;
  const table = r.table(
    directory.rva,
    Math.floor(directory.size / DEBUG_ENTRY_SIZE),
    DEBUG_ENTRY_SIZE,
    "the debug directory",
  );
  if (table === null) return { entries, codeView };
  for (let i = 0; i < table.count; i++) {
    const o = table.offset + i * DEBUG_ENTRY_SIZE;
    const type = r.u32(o + 12);
    const entry: PeDebugEntry = {
      type,
      typeName: DEBUG_TYPE_NAMES.get(type) ?? hex(type),
      sizeOfData: r.u32(o + 16),
      addressOfRawData: r.u32(o + 20),
      pointerToRawData: r.u32(o + 24),
    };
    entries.push(entry);
    if (type === IMAGE_DEBUG_TYPE_CODEVIEW && codeView === null) {
      codeView = readCodeView(r, entry);
    }
  }
  return { entries, codeView };
}

function readCodeView(r: PeReader, entry: PeDebugEntry): PeCodeView | null {
  let offset = entry.pointerToRawData;
  let end = offset + entry.sizeOfData;
  if (offset === 0 && entry.addressOfRawData !== 0) {
    const span = r.spanAt(entry.addressOfRawData);
    if (span !== null) {
      offset = span.offset;
      end = offset + Math.min(entry.sizeOfData, span.available);
    }
  }
  end = Math.min(end, r.length);
  const at = hex(offset);
  if (offset === 0 || offset + 4 > end) {
    r.warn(
      `Cannot read the CodeView record: ${entry.sizeOfData} bytes at offset ${at} are not in ` +
        `the ${r.length}-byte file`,
    );
    return null;
  }
  const signature = String.fromCharCode(...r.bytes.subarray(offset, offset + 4));
  if (signature === "RSDS" || signature === "NB10") {
    // RSDS: GUID, age, path; NB10: offset, timestamp, age, path.
    const rsds = signature === "RSDS";
    const pathAt = offset + (rsds ? 24 : 16);
    if (pathAt > end) {
      r.warn(`Cannot read the ${signature} CodeView record at offset ${at}: it is truncated`);
      return null;
    }
    const path = r.cString(pathAt, end);
    if (path.status === "cut") r.warn(`The PDB path at offset ${hex(pathAt)} was cut`);
    return {
      signature,
      guid: rsds ? formatGuid(r.bytes.subarray(offset + 4, offset + 20)) : null,
      timestamp: rsds ? null : r.u32(offset + 8),
      age: r.u32(pathAt - 4),
      pdbPath: path.text,
    };
  }
  const seen = Array.from(r.bytes.subarray(offset, offset + 4), hex2).join(" ");
  r.warn(
    `The CodeView record at offset ${at} has signature ${seen}, neither RSDS nor NB10; ignored`,
  );
  return null;
}

/** The symbol-server key of a CodeView record. */
export function buildIdOf(codeView: PeCodeView): string {
  const age = codeView.age.toString(16).toUpperCase();
  if (codeView.guid !== null) return `${codeView.guid.replaceAll("-", "")}${age}`;
  return `${(codeView.timestamp ?? 0).toString(16).toUpperCase().padStart(8, "0")}${age}`;
}

/** A GUID's 16 bytes (three little-endian fields, then eight bytes) as usually printed. */
function formatGuid(b: Uint8Array): string {
  const h = (i: number): string => hex2(b[i]!).toUpperCase();
  return `${h(3)}${h(2)}${h(1)}${h(0)}-${h(5)}${h(4)}-${h(7)}${h(6)}-${h(8)}${h(9)}-` +
    `${h(10)}${h(11)}${h(12)}${h(13)}${h(14)}${h(15)}`;
}
