/**
 * Function starts from the FDEs of `.eh_frame`, through `.eh_frame_hdr`'s
 * search table when there is one (or PT_GNU_EH_FRAME when the section headers
 * are gone), with every DW_EH_PE pointer encoding the format allows.
 *
 * @module
 */

import { decoder, hex, SAFE_HIGH_WORD, SMALL_BIGINTS, TWO_32 } from "./_util.ts";
import { ET_REL, PT_GNU_EH_FRAME, SHT_PROGBITS, SHT_X86_64_UNWIND } from "./constants.ts";
import { type ExtrasHost, ExtrasReader, type Region } from "./extras_reader.ts";
import { LAZY_TABLES } from "./lazy_tables.ts";
import type { ElfAddressRange, ElfImage, ElfRangeTable } from "./model.ts";
import type { Parser } from "./parse.ts";

/** Longest CIE augmentation string read. */
const MAX_AUGMENTATION = 64;

// DW_EH_PE pointer encodings: the low nibble is the format, bits 4-6 the
// application, bit 7 "indirect"; 0xff means "omitted".
const PE_ABSPTR = 0x00;
const PE_ULEB128 = 0x01;
const PE_UDATA2 = 0x02;
const PE_UDATA4 = 0x03;
const PE_UDATA8 = 0x04;
const PE_SIGNED = 0x08;
const PE_SLEB128 = 0x09;
const PE_SDATA2 = 0x0a;
const PE_SDATA4 = 0x0b;
const PE_SDATA8 = 0x0c;
const PE_PCREL = 0x10;
const PE_DATAREL = 0x30;
const PE_INDIRECT = 0x80;
const PE_OMIT = 0xff;

/** Outcomes of {@linkcode EhFrameReader.readRecord}. */
const RECORD_OK = 0;
const RECORD_ZERO = 1;
const RECORD_TRUNCATED = 2;
const RECORD_RESERVED = 3;
const RECORD_PAST_END = 4;
const RECORD_TOO_SHORT = 5;

/** What an FDE needs from its CIE. */
interface Cie {
  fdeEncoding: number;
  pointerSize: number;
}

/** FDEs as they are decoded (values are numbers below 2^53, else bigints). */
interface FdeSink {
  starts: (number | bigint)[];
  sizes: (number | bigint)[];
}

/** Damage counted while reading `.eh_frame`, reported once per kind. */
class ProblemCounter {
  #counts = new Map<string, { count: number; first: number }>();

  add(reason: string, offset: number): void {
    const known = this.#counts.get(reason);
    if (known === undefined) this.#counts.set(reason, { count: 1, first: offset });
    else known.count++;
  }

  entries(): [string, { count: number; first: number }][] {
    return [...this.#counts];
  }
}

/** What {@linkcode EhFrameReader} reads of the parser. */
export type EhFrameHost = ExtrasHost & Pick<Parser, "fileType" | "maxFdes">;

/**
 * Reads function starts from the FDEs of `.eh_frame`, through
 * `.eh_frame_hdr`'s search table when there is one.
 */
export class EhFrameReader extends ExtrasReader<EhFrameHost> {
  // The last record read by readRecord.
  recordStart = 0;
  recordContent = 0;
  recordEnd = 0;
  recordId = 0;
  // The end of the last value read by readEncoded / uleb / sleb, and why it failed.
  next = 0;
  problem = "";

  readEhFrame(): FdeRanges {
    const none = new FdeRanges({ starts: [], sizes: [] });
    const p = this.p;
    if (p.fileType === ET_REL) return none;
    const named = (name: string): Region | null => {
      const s = p.sections.find((s) =>
        s.name === name && (s.type === SHT_PROGBITS || s.type === SHT_X86_64_UNWIND)
      );
      return s === undefined ? null : this.sectionRegion(s);
    };
    let hdr = named(".eh_frame_hdr");
    if (hdr === null) {
      const segment = p.segments.find((s) => s.type === PT_GNU_EH_FRAME);
      if (segment !== undefined && segment.fileSize > 0 && segment.offset < this.length) {
        hdr = {
          offset: segment.offset,
          end: Math.min(segment.offset + segment.fileSize, this.length),
          address: segment.virtualAddress < 2n ** 53n ? Number(segment.virtualAddress) : NaN,
          label: "PT_GNU_EH_FRAME",
        };
      }
    }
    let frame = named(".eh_frame");
    const sizeKnown = frame !== null;
    let problems = new ProblemCounter();
    const sink: FdeSink = { starts: [], sizes: [] };
    let table: { at: number; count: number; encoding: number; size: number } | null = null;
    if (hdr !== null) {
      const found = this.readEhFrameHdr(hdr, frame);
      if (found !== null) {
        if (frame === null && found.frame !== null) frame = found.frame;
        table = found.table;
      }
    }
    if (frame === null) return none;
    if (Number.isNaN(frame.address)) {
      this.warn(`Cannot read ${frame.label}: its address is not known`);
      return none;
    }
    const cies = new Map<number, Cie | null>();
    let fromTable = false;
    if (table !== null && hdr !== null) {
      const offsets = this.readFdeTable(hdr, frame, table, cies, sink, problems);
      fromTable = true;
      if (sizeKnown && offsets !== null) {
        // Cross-check: the table must list exactly the FDEs of .eh_frame.
        const walked: number[] = [];
        if (this.walkEhFrame(frame, true, null, cies, walked, problems)) {
          offsets.sort((a, b) => a - b);
          let same = offsets.length === walked.length;
          for (let i = 0; same && i < walked.length; i++) same = walked[i] === offsets[i];
          if (!same) {
            let missing = 0;
            const listed = new Set(offsets);
            for (const o of walked) if (!listed.has(o)) missing++;
            this.warn(
              `The .eh_frame_hdr table lists ${offsets.length} FDEs but ${frame.label} holds ` +
                `${walked.length} (${missing} not in the table); reading ${frame.label} instead`,
            );
            sink.starts.length = 0;
            sink.sizes.length = 0;
            problems = new ProblemCounter();
            fromTable = false;
          }
        }
      }
    }
    if (!fromTable) this.walkEhFrame(frame, sizeKnown, sink, cies, null, problems);
    this.reportProblems(frame, problems);
    return new FdeRanges(sink);
  }

  /** Reads the FDEs of an `.eh_frame` whose bytes and address are `frame` (no search table). */
  readEhFrameRegion(frame: Region): FdeRanges {
    const problems = new ProblemCounter();
    const sink: FdeSink = { starts: [], sizes: [] };
    this.walkEhFrame(frame, true, sink, new Map(), null, problems);
    this.reportProblems(frame, problems);
    return new FdeRanges(sink);
  }

  /** One warning per kind of damage counted in `problems`. */
  reportProblems(frame: Region, problems: ProblemCounter): void {
    for (const [reason, { count, first }] of problems.entries()) {
      this.warn(
        `${count} record${count === 1 ? "" : "s"} of ${frame.label} (the first at offset ${
          hex(first)
        }) ${reason}; ${count === 1 ? "it was" : "they were"} skipped`,
      );
    }
  }

  /**
   * Reads the `.eh_frame_hdr` header: the `.eh_frame` it points at (when
   * `frame` is not known from the section headers) and its search table.
   */
  readEhFrameHdr(hdr: Region, frame: Region | null): {
    frame: Region | null;
    table: { at: number; count: number; encoding: number; size: number } | null;
  } | null {
    const o = hdr.offset;
    if (hdr.end - o < 4) {
      this.warn(`Cannot read ${hdr.label}: it is ${hdr.end - o} bytes, needs at least 4`);
      return null;
    }
    const version = this.u8(o);
    if (version !== 1) {
      this.warn(`Cannot read ${hdr.label}: its version is ${version}, expected 1`);
      return null;
    }
    const pointerEncoding = this.u8(o + 1);
    const countEncoding = this.u8(o + 2);
    const tableEncoding = this.u8(o + 3);
    const dataBase = hdr.address;
    const pointer = pointerEncoding === PE_OMIT
      ? null
      : this.readEncoded(pointerEncoding, o + 4, hdr.end, hdr, dataBase);
    if (pointerEncoding !== PE_OMIT && pointer === null) {
      this.warn(`Cannot read the eh_frame_ptr of ${hdr.label}: ${this.problem}`);
      return null;
    }
    let at = pointer === null ? o + 4 : this.next;
    let found: Region | null = null;
    if (pointer !== null) {
      if (frame !== null) {
        if (typeof pointer !== "number" || pointer !== frame.address) {
          this.warn(
            `The eh_frame_ptr of ${hdr.label} is ${hex(pointer)}, but ${frame.label} is at ` +
              `${hex(frame.address)}; using ${frame.label}`,
          );
        }
      } else {
        const offset = this.offsetOf(pointer);
        if (offset === null) {
          this.warn(
            `Cannot read .eh_frame: the eh_frame_ptr ${hex(pointer)} of ${hdr.label} is not in ` +
              `the file`,
          );
        } else {
          found = {
            offset,
            end: this.loadEnd(offset),
            address: typeof pointer === "number" ? pointer : NaN,
            label: `.eh_frame (at eh_frame_ptr ${hex(pointer)})`,
          };
        }
      }
    }
    if (countEncoding === PE_OMIT || tableEncoding === PE_OMIT) {
      return { frame: found, table: null };
    }
    const count = this.readEncoded(countEncoding, at, hdr.end, hdr, dataBase);
    if (count === null || typeof count !== "number") {
      this.warn(`Cannot read the FDE count of ${hdr.label}: ${this.problem || "it is too large"}`);
      return { frame: found, table: null };
    }
    at = this.next;
    const size = fixedSize(tableEncoding, this.pointerSize);
    if (size === null || (tableEncoding & PE_INDIRECT) !== 0) {
      this.warn(
        `Cannot use the search table of ${hdr.label}: its encoding ${
          hex(tableEncoding)
        } has no fixed size`,
      );
      return { frame: found, table: null };
    }
    const fit = Math.floor((hdr.end - at) / (2 * size));
    let usable = count;
    if (count > fit) {
      this.warn(
        `The search table of ${hdr.label} claims ${count} entries of ${2 * size} bytes, but ` +
          `only ${fit} fit; reading ${fit}`,
      );
      usable = fit;
    }
    return { frame: found, table: { at, count: usable, encoding: tableEncoding, size } };
  }

  /**
   * Decodes the FDEs the `.eh_frame_hdr` table points at into `sink`, and
   * returns their offsets (for the cross-check against a walk), or null when
   * the table was unusable.
   */
  readFdeTable(
    hdr: Region,
    frame: Region,
    table: { at: number; count: number; encoding: number; size: number },
    cies: Map<number, Cie | null>,
    sink: FdeSink,
    problems: ProblemCounter,
  ): number[] | null {
    const offsets: number[] = [];
    let count = table.count;
    if (count > this.p.maxFdes) {
      this.warn(
        `The search table of ${hdr.label} lists ${count} FDEs, more than the maxFdes limit of ` +
          `${this.p.maxFdes}; reading the first ${this.p.maxFdes}`,
      );
      count = this.p.maxFdes;
    }
    const fast = table.encoding === (PE_DATAREL | PE_SDATA4);
    const base = hdr.address;
    let previous = -Infinity;
    let unsorted = 0;
    let mismatched = 0;
    let firstMismatch = 0;
    let at = table.at;
    for (let i = 0; i < count; i++, at += 2 * table.size) {
      let location: number | bigint | null;
      let address: number | bigint | null;
      if (fast) {
        location = base + this.view.getInt32(at, this.le);
        address = base + this.view.getInt32(at + 4, this.le);
      } else {
        location = this.readEncoded(table.encoding, at, at + table.size, hdr, base);
        address = this.readEncoded(table.encoding, at + table.size, at + 2 * table.size, hdr, base);
      }
      if (location === null || address === null) {
        problems.add(`could not be found through the search table: ${this.problem}`, at);
        continue;
      }
      if (typeof location === "number") {
        if (location < previous) unsorted++;
        previous = location;
      }
      const delta = typeof address === "number" ? address - frame.address : NaN;
      const offset = frame.offset + delta;
      if (!(delta >= 0) || offset + 8 > frame.end) {
        problems.add(
          `are listed in the search table of ${hdr.label} at an address outside ${frame.label}`,
          at,
        );
        continue;
      }
      const status = this.readRecord(offset, frame.end);
      if (status !== RECORD_OK || this.recordId === 0) {
        problems.add(
          `are listed in the search table of ${hdr.label} but are not FDEs ` +
            `(${status === RECORD_OK ? "a CIE" : recordProblem(status)})`,
          offset,
        );
        continue;
      }
      offsets.push(offset);
      const before = sink.starts.length;
      this.decodeFde(frame, sink, cies, problems);
      if (sink.starts.length > before && sink.starts[before] !== location) {
        if (mismatched++ === 0) firstMismatch = offset;
      }
    }
    if (unsorted > 0) {
      this.warn(
        `The search table of ${hdr.label} is not sorted (${unsorted} entries out of order)`,
      );
    }
    if (mismatched > 0) {
      this.warn(
        `${mismatched} entr${mismatched === 1 ? "y" : "ies"} of the search table of ${hdr.label} ` +
          `give${mismatched === 1 ? "s" : ""} an initial location that differs from the FDE's ` +
          `pc_begin (the first FDE at offset ${hex(firstMismatch)}); using the FDE's`,
      );
    }
    return offsets;
  }

  /**
   * Walks the records of `.eh_frame` in order, decoding FDEs into `sink`
   * (or, without a sink, only noting FDE offsets in `offsets`). A zero length
   * ends the walk when the section's size is not known; otherwise it is a
   * terminator word that is skipped. Returns whether the walk saw no damage
   * to the record structure.
   */
  walkEhFrame(
    frame: Region,
    sizeKnown: boolean,
    sink: FdeSink | null,
    cies: Map<number, Cie | null>,
    offsets: number[] | null,
    problems: ProblemCounter,
  ): boolean {
    const max = this.p.maxFdes;
    let fdes = 0;
    for (let at = frame.offset; at < frame.end;) {
      const status = this.readRecord(at, frame.end);
      if (status === RECORD_ZERO) {
        if (!sizeKnown) break;
        at += 4;
        continue;
      }
      if (status !== RECORD_OK) {
        if (!sizeKnown && status === RECORD_TRUNCATED) break;
        this.warn(
          `Stopped reading ${frame.label} at offset ${hex(at)}: ${recordProblem(status)}` +
            (status === RECORD_TRUNCATED || status === RECORD_PAST_END
              ? ` (the region ends at offset ${hex(frame.end)})`
              : ""),
        );
        return false;
      }
      const end = this.recordEnd;
      if (this.recordId !== 0) {
        if (fdes === max) {
          this.warn(
            `${frame.label} holds more than the maxFdes limit of ${max} FDEs; reading the ` +
              `first ${max}`,
          );
          return true;
        }
        fdes++;
        if (offsets !== null) offsets.push(at);
        if (sink !== null) this.decodeFde(frame, sink, cies, problems);
      }
      at = end;
    }
    return true;
  }

  /**
   * Reads the length and CIE id of the record at `at` into `record*`. A
   * length of 0xffffffff is followed by a 64-bit length; the CIE id / CIE
   * pointer is 4 bytes either way, as `.eh_frame` defines it.
   */
  readRecord(at: number, end: number): number {
    if (at + 4 > end) return RECORD_TRUNCATED;
    const length32 = this.u32(at);
    if (length32 === 0) return RECORD_ZERO;
    let content = at + 4;
    let length = length32;
    if (length32 === 0xffffffff) {
      if (at + 12 > end) return RECORD_TRUNCATED;
      const a = this.u32(at + 4);
      const b = this.u32(at + 8);
      const high = this.le ? b : a;
      if (high >= SAFE_HIGH_WORD) return RECORD_PAST_END;
      length = high * TWO_32 + (this.le ? a : b);
      content = at + 12;
    } else if (length32 >= 0xfffffff0) return RECORD_RESERVED;
    const recordEnd = content + length;
    if (recordEnd > end) return RECORD_PAST_END;
    if (length < 4) return RECORD_TOO_SHORT;
    this.recordStart = at;
    this.recordContent = content;
    this.recordEnd = recordEnd;
    this.recordId = this.u32(content);
    return RECORD_OK;
  }

  /** Decodes the FDE just read by {@linkcode readRecord} into `sink`. */
  decodeFde(
    frame: Region,
    sink: FdeSink,
    cies: Map<number, Cie | null>,
    problems: ProblemCounter,
  ): void {
    const start = this.recordStart;
    const idAt = this.recordContent;
    const end = this.recordEnd;
    const pointer = this.recordId;
    if (pointer > idAt - frame.offset) {
      problems.add(
        "have a CIE pointer that points before the start of the section",
        start,
      );
      return;
    }
    const cieAt = idAt - pointer;
    if (cieAt === start) {
      problems.add("have a CIE pointer that points at the FDE itself", start);
      return;
    }
    let cie = cies.get(cieAt);
    if (cie === undefined) {
      cie = this.readCie(cieAt, frame);
      if (cie === null) {
        problems.add(`have an unusable CIE: ${this.problem}`, start);
        cies.set(cieAt, null);
        return;
      }
      cies.set(cieAt, cie);
    } else if (cie === null) {
      // The reason was counted with the first FDE of this CIE.
      problems.add("have a CIE that an earlier FDE found unusable", start);
      return;
    }
    const encoding = cie.fdeEncoding;
    const at = idAt + 4;
    let begin: number | bigint | null;
    let range: number | bigint | null;
    if (encoding === (PE_PCREL | PE_SDATA4) && at + 8 <= end) {
      // The common case, inline.
      begin = frame.address + (at - frame.offset) + this.view.getInt32(at, this.le);
      range = this.view.getInt32(at + 4, this.le);
      if (begin < 0 || begin >= (this.is64 ? 2 ** 53 : TWO_32) || range < 0) {
        begin = this.readEncoded(encoding, at, end, frame, NaN, cie.pointerSize);
        range = begin === null
          ? null
          : this.readEncoded(encoding & 0x0f, this.next, end, frame, NaN, cie.pointerSize);
      }
    } else {
      begin = this.readEncoded(encoding, at, end, frame, this.gotBase(), cie.pointerSize);
      range = begin === null
        ? null
        : this.readEncoded(encoding & 0x0f, this.next, end, frame, NaN, cie.pointerSize);
    }
    if (begin === null || range === null) {
      problems.add(`have an unreadable pc_begin or pc_range: ${this.problem}`, start);
      return;
    }
    sink.starts.push(begin);
    sink.sizes.push(range);
  }

  /** Parses the CIE at `at`; null (with `problem` set) when unusable. */
  readCie(at: number, frame: Region): Cie | null {
    if (at < frame.offset || at >= frame.end) {
      this.problem = `the CIE pointer leads to offset ${hex(at)}, outside ${frame.label}`;
      return null;
    }
    const status = this.readRecord(at, frame.end);
    if (status !== RECORD_OK) {
      this.problem = `the record at offset ${hex(at)} ${recordProblem(status)}`;
      return null;
    }
    if (this.recordId !== 0) {
      this.problem = `the record at offset ${hex(at)} is not a CIE`;
      return null;
    }
    const end = this.recordEnd;
    let o = this.recordContent + 4;
    const truncated = (): null => {
      this.problem = `the CIE at offset ${hex(at)} is truncated`;
      return null;
    };
    if (o >= end) return truncated();
    const version = this.u8(o++);
    if (version !== 1 && version !== 3 && version !== 4) {
      this.problem = `the CIE at offset ${hex(at)} has version ${version}, expected 1, 3 or 4`;
      return null;
    }
    const nul = this.bytes.subarray(o, Math.min(end, o + MAX_AUGMENTATION + 1)).indexOf(0);
    if (nul < 0) {
      this.problem = `the CIE at offset ${hex(at)} has no augmentation string ending within ` +
        `${MAX_AUGMENTATION} bytes`;
      return null;
    }
    const augmentation = decoder.decode(this.bytes.subarray(o, o + nul));
    o += nul + 1;
    let pointerSize = this.pointerSize;
    if (version === 4) {
      if (o + 2 > end) return truncated();
      const size = this.u8(o);
      if (size !== 4 && size !== 8) {
        this.problem = `the CIE at offset ${hex(at)} has address size ${size}`;
        return null;
      }
      pointerSize = size;
      o += 2;
    }
    if (augmentation === "eh") o += this.pointerSize; // GCC 2.x: a pointer to EH data
    // Code and data alignment factors, return address register.
    for (let i = 0; i < 3; i++) {
      if (i === 2 && version === 1) o++;
      else {
        this.uleb(o, end);
        o = this.next;
      }
      if (o > end) return truncated();
    }
    let fdeEncoding = PE_ABSPTR;
    if (augmentation.startsWith("z")) {
      const length = this.uleb(o, end);
      o = this.next;
      if (Number.isNaN(length) || o + length > end) return truncated();
      const dataEnd = o + length;
      for (let i = 1; i < augmentation.length; i++) {
        const c = augmentation[i];
        if (c === "R") {
          if (o >= dataEnd) return truncated();
          fdeEncoding = this.u8(o++);
        } else if (c === "P") {
          if (o >= dataEnd) return truncated();
          const encoding = this.u8(o++);
          // Only the format matters here: the bytes are skipped, not used.
          if (this.readEncoded(encoding & 0x0f, o, dataEnd, frame, NaN, pointerSize) === null) {
            this.problem = `the personality pointer of the CIE at offset ${hex(at)}: ` +
              this.problem;
            return null;
          }
          o = this.next;
        } else if (c === "L") {
          if (o >= dataEnd) return truncated();
          o++;
        } else if (c === "S" || c === "B" || c === "G") {
          // Signal frame, AArch64 pointer authentication B key, MTE tagged frame: no data.
        } else {
          // Unknown: its data cannot be skipped, so only what came before is known.
          if (augmentation.includes("R", i)) {
            this.problem = `the CIE at offset ${hex(at)} has augmentation "${augmentation}", ` +
              `whose '${c}' hides the FDE pointer encoding`;
            return null;
          }
          break;
        }
      }
    } else if (augmentation !== "" && augmentation !== "eh") {
      this.problem = `the CIE at offset ${hex(at)} has the unknown augmentation "${augmentation}"`;
      return null;
    }
    if (fdeEncoding === PE_OMIT || !knownEncoding(fdeEncoding)) {
      this.problem = `the CIE at offset ${hex(at)} has the unknown FDE pointer encoding ${
        hex(fdeEncoding)
      }`;
      return null;
    }
    return { fdeEncoding, pointerSize };
  }

  /**
   * Reads a DW_EH_PE-encoded pointer at `at` (not past `end`) in `region`,
   * setting `next` to the byte after it. Returns a number when the value is
   * below 2^53 (always, in practice), else a bigint; null with `problem` set
   * when the encoding is unknown or unsupported, the value is truncated, or
   * a base it needs is unknown (NaN `dataBase`).
   */
  readEncoded(
    encoding: number,
    at: number,
    end: number,
    region: Region,
    dataBase: number,
    pointerSize: number = this.pointerSize,
  ): number | bigint | null {
    if (encoding === PE_OMIT) {
      this.problem = "the value is omitted (DW_EH_PE_omit)";
      return null;
    }
    let raw: number | bigint;
    const format = encoding & 0x0f;
    let size = 0;
    switch (format) {
      case PE_ABSPTR:
      case PE_SIGNED:
        size = pointerSize;
        break;
      case PE_UDATA2:
      case PE_SDATA2:
        size = 2;
        break;
      case PE_UDATA4:
      case PE_SDATA4:
        size = 4;
        break;
      case PE_UDATA8:
      case PE_SDATA8:
        size = 8;
        break;
      case PE_ULEB128:
      case PE_SLEB128:
        break;
      default:
        this.problem = `unknown pointer encoding ${hex(encoding)}`;
        return null;
    }
    if (size > 0) {
      if (at + size > end) {
        this.problem = `a ${size}-byte value at offset ${hex(at)} runs past its record`;
        return null;
      }
      const signed = format >= PE_SIGNED;
      if (size === 2) raw = signed ? this.view.getInt16(at, this.le) : this.u16(at);
      else if (size === 4) raw = signed ? this.view.getInt32(at, this.le) : this.u32(at);
      else {
        raw = signed ? this.view.getBigInt64(at, this.le) : this.view.getBigUint64(at, this.le);
        if (raw < 2n ** 53n && raw > -(2n ** 53n)) raw = Number(raw);
      }
      this.next = at + size;
    } else {
      raw = format === PE_ULEB128 ? this.ulebBig(at, end) : this.slebBig(at, end);
      if (this.next > end || this.next - at > 10) {
        this.problem = `a LEB128 value at offset ${hex(at)} runs past its record`;
        return null;
      }
      if (raw < 2n ** 53n && raw > -(2n ** 53n)) raw = Number(raw);
    }
    let base: number;
    switch (encoding & 0x70) {
      case 0:
        base = 0;
        break;
      case PE_PCREL:
        base = region.address + (at - region.offset);
        break;
      case PE_DATAREL:
        base = dataBase;
        if (Number.isNaN(base)) {
          this.problem = `DW_EH_PE_datarel (${hex(encoding)}) needs a base that is not known here`;
          return null;
        }
        break;
      default:
        this.problem = `unsupported pointer encoding ${hex(encoding)}`;
        return null;
    }
    const after = this.next;
    let value = addWrapped(raw, base, pointerSize);
    if ((encoding & PE_INDIRECT) !== 0) {
      const offset = this.offsetOf(value);
      if (offset === null || offset + pointerSize > this.length) {
        this.problem = `the indirect pointer ${hex(value)} is not in the file`;
        return null;
      }
      value = pointerSize === 8 ? this.view.getBigUint64(offset, this.le) : this.u32(offset);
      if (typeof value === "bigint" && value < 2n ** 53n) value = Number(value);
      this.next = after;
    }
    return value;
  }

  /** An unsigned LEB128 as a number (NaN when too large or unterminated); sets `next`. */
  uleb(at: number, end: number): number {
    let value = 0;
    let scale = 1;
    for (let o = at; o < end && o < at + 8; o++) {
      const byte = this.bytes[o]!;
      value += (byte & 0x7f) * scale;
      scale *= 128;
      if ((byte & 0x80) === 0) {
        this.next = o + 1;
        return value;
      }
    }
    this.next = end + 1;
    return NaN;
  }

  /** An unsigned LEB128 of up to 10 bytes as a bigint; sets `next` (past `end` when unterminated). */
  ulebBig(at: number, end: number): bigint {
    return this.lebBig(at, end, false);
  }

  /** A signed LEB128 of up to 10 bytes as a bigint; sets `next` like {@linkcode ulebBig}. */
  slebBig(at: number, end: number): bigint {
    return this.lebBig(at, end, true);
  }

  /** A LEB128 of up to 10 bytes as a 64-bit bigint, sign-extended when `signed`. */
  private lebBig(at: number, end: number, signed: boolean): bigint {
    let value = 0n;
    let shift = 0n;
    for (let o = at; o < end && o < at + 10; o++) {
      const byte = this.bytes[o]!;
      value |= BigInt(byte & 0x7f) << shift;
      shift += 7n;
      if ((byte & 0x80) === 0) {
        this.next = o + 1;
        if (!signed) return BigInt.asUintN(64, value);
        if ((byte & 0x40) !== 0) value -= 1n << shift;
        return BigInt.asIntN(64, value);
      }
    }
    this.next = end + 11;
    return 0n;
  }
}

/** Whether a DW_EH_PE encoding is one this reader decodes. */
function knownEncoding(encoding: number): boolean {
  const format = encoding & 0x0f;
  const application = encoding & 0x70;
  const formatKnown = format <= PE_UDATA8 || (format >= PE_SIGNED && format <= PE_SDATA8);
  return formatKnown && (application === 0 || application === PE_PCREL ||
    application === PE_DATAREL);
}

/** The size of a fixed-size DW_EH_PE format, or null for LEB128 and unknown formats. */
function fixedSize(encoding: number, pointerSize: number): number | null {
  if (!knownEncoding(encoding)) return null;
  switch (encoding & 0x0f) {
    case PE_ABSPTR:
    case PE_SIGNED:
      return pointerSize;
    case PE_UDATA2:
    case PE_SDATA2:
      return 2;
    case PE_UDATA4:
    case PE_SDATA4:
      return 4;
    case PE_UDATA8:
    case PE_SDATA8:
      return 8;
    default:
      return null;
  }
}

/** `raw + base` modulo 2^(8 * size): a number below 2^53, else a bigint. */
function addWrapped(raw: number | bigint, base: number, size: number): number | bigint {
  if (typeof raw === "number") {
    const sum = raw + base;
    if (size === 4) return ((sum % TWO_32) + TWO_32) % TWO_32;
    if (sum >= 0 && sum < 2 ** 53) return sum;
  }
  const wrapped = BigInt.asUintN(size * 8, BigInt(raw) + BigInt(base));
  return wrapped < 2n ** 53n ? Number(wrapped) : wrapped;
}

/** What a {@linkcode ExtrasReader.readRecord} outcome means, as a clause. */
function recordProblem(status: number): string {
  switch (status) {
    case RECORD_ZERO:
      return "has length 0 (a terminator)";
    case RECORD_TRUNCATED:
      return "has a length field that runs past the end of the section";
    case RECORD_RESERVED:
      return "has a reserved length value (0xfffffff0 to 0xfffffffe)";
    case RECORD_PAST_END:
      return "has a length that runs past the end of the section";
    case RECORD_TOO_SHORT:
      return "has a length too short to hold its CIE id";
    default:
      return "is unreadable";
  }
}

/**
 * The FDE ranges of a parse as read (pc_begin and pc_range, numbers below
 * 2^53 or bigints), in address-then-size order through `order` when they
 * were not read in that order; no object per FDE until {@linkcode ranges}.
 */
export class FdeRanges implements ElfRangeTable {
  readonly count: number;
  #starts: (number | bigint)[];
  #sizes: (number | bigint)[];
  #order: Uint32Array | null = null;

  constructor(sink: FdeSink) {
    this.#starts = sink.starts;
    this.#sizes = sink.sizes;
    const n = this.count = sink.starts.length;
    for (let i = 1; i < n; i++) {
      if (this.#compare(i - 1, i) > 0) {
        const order = new Uint32Array(n);
        for (let k = 0; k < n; k++) order[k] = k;
        // Stable, as sorting the range objects was.
        this.#order = order.sort((a, b) => this.#compare(a, b) || a - b);
        break;
      }
    }
  }

  #compare(i: number, j: number): number {
    const a = this.#starts[i]!;
    const b = this.#starts[j]!;
    if (a !== b) {
      if (typeof a === "number" && typeof b === "number") return a < b ? -1 : 1;
      const x = BigInt(a);
      const y = BigInt(b);
      if (x !== y) return x < y ? -1 : 1;
    }
    const c = this.#sizes[i]!;
    const d = this.#sizes[j]!;
    if (typeof c === "number" && typeof d === "number") return c < d ? -1 : c > d ? 1 : 0;
    const x = BigInt(c);
    const y = BigInt(d);
    return x < y ? -1 : x > y ? 1 : 0;
  }

  address(k: number): bigint {
    const start = this.#starts[this.#order === null ? k : this.#order[k]!]!;
    return typeof start === "bigint" ? start : BigInt(start);
  }

  size(k: number): bigint {
    const size = this.#sizes[this.#order === null ? k : this.#order[k]!]!;
    if (typeof size === "bigint") return size;
    return size < SMALL_BIGINTS.length ? SMALL_BIGINTS[size] ??= BigInt(size) : BigInt(size);
  }

  ranges(): ElfAddressRange[] {
    const ranges: ElfAddressRange[] = new Array(this.count);
    for (let k = 0; k < this.count; k++) {
      ranges[k] = { address: this.address(k), size: this.size(k) };
    }
    return ranges;
  }
}

/**
 * The `.eh_frame` FDE ranges of a parse, as {@linkcode ElfImage.ehFrameFunctions}
 * lists them, read from the parser's compact table when the list has not
 * been built (so no object per FDE is made).
 */
export function ehFrameRanges(elf: ElfImage): ElfRangeTable {
  const table = LAZY_TABLES.get(elf)?.fdes.table;
  if (table) return table;
  const list = elf.ehFrameFunctions;
  return {
    count: list.length,
    address: (k) => list[k]!.address,
    size: (k) => list[k]!.size,
  };
}

/** A lone `.eh_frame` section of another format (a PE image's): what {@linkcode readEhFrameSection} reads. */
export interface EhFrameSection {
  /** The whole file. */
  bytes: Uint8Array;
  /** File offset of the section's first byte. */
  offset: number;
  /** File offset just past its last byte in the file. */
  end: number;
  /** Address of its first byte. */
  address: number;
  /** A name for warnings, such as `.eh_frame`. */
  label: string;
  /** Bytes of an address (DW_EH_PE_absptr): 4 or 8. */
  pointerSize: 4 | 8;
  /** Most FDEs read. */
  maxFdes: number;
  /** File offset of an address, or null when no file bytes back it (for indirect pointers). */
  offsetOf(address: bigint): number | null;
}

/**
 * Reads the FDEs of a lone little-endian `.eh_frame` section, as the ELF
 * reader reads its own (every pointer encoding but DW_EH_PE_datarel, which
 * needs an ELF GOT): each FDE's pc_begin and pc_range.
 *
 * @example
 * ```ts
 * import { readEhFrameSection } from "./eh_frame.ts";
 * const bytes = new Uint8Array(4); // a zero terminator: no FDEs
 * const { ranges } = readEhFrameSection({
 *   bytes, offset: 0, end: 4, address: 0x1000, label: ".eh_frame",
 *   pointerSize: 4, maxFdes: 10, offsetOf: () => null,
 * });
 * console.log(ranges.count); // 0
 * ```
 *
 * @returns The ranges in address order, and what was skipped, as warnings.
 */
export function readEhFrameSection(
  section: EhFrameSection,
): { ranges: FdeRanges; warnings: string[] } {
  const warnings: string[] = [];
  const bytes = section.bytes;
  const host: EhFrameHost = {
    bytes,
    view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    length: bytes.length,
    le: true,
    is64: section.pointerSize === 8,
    sections: [],
    segments: [],
    toFileOffset: (address) => section.offsetOf(address),
    warn: (message) => {
      if (warnings.length < 100) warnings.push(message);
    },
    dynamicTags: new Map(),
    fileType: 0,
    maxFdes: section.maxFdes,
  };
  const budget = { remaining: section.end - section.offset, warned: false };
  const reader = new EhFrameReader(host, [], budget);
  const ranges = reader.readEhFrameRegion({
    offset: section.offset,
    end: Math.min(section.end, bytes.length),
    address: section.address,
    label: section.label,
  });
  return { ranges, warnings };
}
