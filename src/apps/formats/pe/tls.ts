/**
 * The TLS directory of a PE image: its callbacks, which the loader calls
 * like the entry point (on process and thread attach and detach), so each is
 * a function start.
 *
 * @module
 */

import type { PeDataDirectory } from "./model.ts";
import { hex, type PeReader } from "./reader.ts";

/** Bytes of IMAGE_TLS_DIRECTORY32 and IMAGE_TLS_DIRECTORY64. */
const TLS_DIRECTORY_32 = 24;
const TLS_DIRECTORY_64 = 40;

/**
 * Reads the TLS callbacks: `AddressOfCallBacks` (the fourth pointer of the
 * TLS directory) is the virtual address of a list of callback virtual
 * addresses, pointer-sized, ending with a zero. Returns their RVAs in list
 * order; a list cut by the end of its section's file bytes, a callback
 * outside the image and more than `maxEntries` callbacks are warned about.
 */
export function readTlsCallbacks(r: PeReader, directory: PeDataDirectory): number[] {
  const pointer = r.is64 ? 8 : 4;
  const span = r.locate(
    directory.rva,
    r.is64 ? TLS_DIRECTORY_64 : TLS_DIRECTORY_32,
    "the TLS directory",
  );
  if (span === null) return [];
  const read = (offset: number): bigint =>
    r.is64 ? r.view.getBigUint64(offset, true) : BigInt(r.u32(offset));
  const list = read(span.offset + 3 * pointer);
  if (list === 0n) return [];
  const listRva = r.rvaOf(list);
  if (listRva === null) {
    r.warn(
      `Cannot read the TLS callbacks: AddressOfCallBacks ${hex(list)} is outside the image ` +
        `(image base ${hex(r.imageBase)})`,
    );
    return [];
  }
  const at = r.locate(listRva, pointer, "the TLS callbacks");
  if (at === null) return [];
  const callbacks: number[] = [];
  let outside = 0;
  for (let k = 0;; k++) {
    if ((k + 1) * pointer > at.available) {
      // Past the file bytes: zero-filled memory ends the list, anything else cuts it.
      if (!at.zeroFilled) {
        r.warn(
          `The TLS callback list at RVA ${hex(listRva)} runs past the file bytes of ` +
            `its section; reading the ${callbacks.length} before that`,
        );
      }
      break;
    }
    if (k >= r.maxEntries) {
      r.warn(
        `The TLS callback list has more than ${r.maxEntries} entries; reading the first ${r.maxEntries} (maxEntries)`,
      );
      break;
    }
    const value = read(at.offset + k * pointer);
    if (value === 0n) break;
    const rva = r.rvaOf(value);
    if (rva === null) outside++;
    else callbacks.push(rva);
  }
  if (outside > 0) {
    r.warn(
      `${outside} TLS callback(s) point outside the image (image base ${
        hex(r.imageBase)
      }); they are skipped`,
    );
  }
  return callbacks;
}
