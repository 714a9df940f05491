/**
 * ELF notes: the GNU build id (NT_GNU_BUILD_ID).
 *
 * @module
 */

import { hex, hex2 } from "./_util.ts";
import { PT_NOTE, SHT_NOTE } from "./constants.ts";
import { ExtrasReader, type Region } from "./extras_reader.ts";

const NT_GNU_BUILD_ID = 3;

/** Longest build id accepted, in bytes (real ones are 8 to 32). */
const MAX_BUILD_ID_BYTES = 1024;

/** Reads the GNU build id note. */
export class NoteReader extends ExtrasReader {
  readBuildId(): string | null {
    const p = this.p;
    const regions: { region: Region; alignment: number }[] = [];
    for (const s of p.sections) {
      if (s.type !== SHT_NOTE) continue;
      const region = this.sectionRegion(s);
      if (region !== null) regions.push({ region, alignment: p.sectionAlignments[s.index] ?? 4 });
    }
    if (regions.length === 0) {
      p.segments.forEach((s, i) => {
        if (s.type !== PT_NOTE || s.fileSize === 0 || s.offset >= this.length) return;
        regions.push({
          region: {
            offset: s.offset,
            end: Math.min(s.offset + s.fileSize, this.length),
            address: NaN,
            label: `PT_NOTE (program header ${i})`,
          },
          alignment: p.segmentAlignments[i] ?? 4,
        });
      });
    }
    let buildId: string | null = null;
    for (const { region, alignment } of regions) {
      if (!this.charge(region)) break;
      const found = this.readNotes(region, alignment === 8 ? 8 : 4);
      if (buildId === null) buildId = found;
    }
    return buildId;
  }

  /** Walks the notes of one region; returns the first GNU build id in it, if any. */
  readNotes(region: Region, pad: 4 | 8): string | null {
    let buildId: string | null = null;
    const end = region.end;
    for (let o = region.offset; o + 12 <= end;) {
      const namesz = this.u32(o);
      const descsz = this.u32(o + 4);
      const type = this.u32(o + 8);
      const descAt = o + roundUp(12 + namesz, pad);
      if (o + 12 + namesz > end || descAt + descsz > end) {
        this.warn(
          `The note at offset ${hex(o)} in ${region.label} has namesz ${namesz} and descsz ` +
            `${descsz}, which run past the end of its ${end - region.offset}-byte region; the ` +
            `rest of the region is skipped`,
        );
        break;
      }
      const isGnu = namesz === 4 && this.bytes[o + 12] === 0x47 && this.bytes[o + 13] === 0x4e &&
        this.bytes[o + 14] === 0x55 && this.bytes[o + 15] === 0;
      if (isGnu && type === NT_GNU_BUILD_ID && buildId === null) {
        if (descsz > MAX_BUILD_ID_BYTES) {
          this.warn(
            `The GNU build id note at offset ${hex(o)} in ${region.label} is ${descsz} bytes, ` +
              `more than ${MAX_BUILD_ID_BYTES}; it is ignored`,
          );
        } else {
          buildId = Array.from(this.bytes.subarray(descAt, descAt + descsz), hex2).join("");
        }
      }
      o = descAt + roundUp(descsz, pad);
    }
    return buildId;
  }
}

/** `value` rounded up to a multiple of `alignment`. */
function roundUp(value: number, alignment: number): number {
  return Math.ceil(value / alignment) * alignment;
}
