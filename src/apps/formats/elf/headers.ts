/**
 * The ELF header, the program headers and the section headers, with the
 * section names, read and checked against the file.
 *
 * @module
 */

import { hex, hex2, sectionLabel, TWO_32 } from "./_util.ts";
import {
  EI_NIDENT,
  ELFCLASS32,
  ELFCLASS64,
  ELFDATA2LSB,
  ELFDATA2MSB,
  MAX_NAME_BYTES,
  MAX_WARNINGS,
  PN_XNUM,
  PT_LOAD,
  SHN_XINDEX,
  STRING_BUDGET_FACTOR,
} from "./constants.ts";
import { ElfParseError, type ElfSection, type ElfSegment } from "./model.ts";
import { type StringBudget, StringTable } from "./string_table.ts";

const SEGMENT_TYPE_NAMES: ReadonlyMap<number, string> = new Map([
  [0, "PT_NULL"],
  [1, "PT_LOAD"],
  [2, "PT_DYNAMIC"],
  [3, "PT_INTERP"],
  [4, "PT_NOTE"],
  [5, "PT_SHLIB"],
  [6, "PT_PHDR"],
  [7, "PT_TLS"],
  [0x6474e550, "PT_GNU_EH_FRAME"],
  [0x6474e551, "PT_GNU_STACK"],
  [0x6474e552, "PT_GNU_RELRO"],
  [0x6474e553, "PT_GNU_PROPERTY"],
]);

const SECTION_TYPE_NAMES: ReadonlyMap<number, string> = new Map([
  [0, "SHT_NULL"],
  [1, "SHT_PROGBITS"],
  [2, "SHT_SYMTAB"],
  [3, "SHT_STRTAB"],
  [4, "SHT_RELA"],
  [5, "SHT_HASH"],
  [6, "SHT_DYNAMIC"],
  [7, "SHT_NOTE"],
  [8, "SHT_NOBITS"],
  [9, "SHT_REL"],
  [10, "SHT_SHLIB"],
  [11, "SHT_DYNSYM"],
  [14, "SHT_INIT_ARRAY"],
  [15, "SHT_FINI_ARRAY"],
  [16, "SHT_PREINIT_ARRAY"],
  [17, "SHT_GROUP"],
  [18, "SHT_SYMTAB_SHNDX"],
  [0x6ffffff6, "SHT_GNU_HASH"],
  [0x6ffffffd, "SHT_GNU_verdef"],
  [0x6ffffffe, "SHT_GNU_verneed"],
  [0x6fffffff, "SHT_GNU_versym"],
]);

interface Header {
  phoff: number;
  shoff: number;
  phentsize: number;
  phnum: number;
  shentsize: number;
  shnum: number;
  shstrndx: number;
}

interface SectionZero {
  size: number;
  link: number;
  info: number;
}

/**
 * Reads the ELF header, the program headers and the section headers (with
 * their names), and holds what every later step reads through: the bytes,
 * the byte order, the limits and the warnings.
 */
export class HeaderReader {
  readonly bytes: Uint8Array;
  readonly view: DataView;
  readonly length: number;
  readonly maxSymbols: number;
  readonly maxFdes: number;
  le = true;
  is64 = true;
  machine = 0;
  fileType = 0;
  entry = 0n;
  warnings: string[] = [];
  droppedWarnings = 0;
  sections: ElfSection[] = [];
  segments: ElfSegment[] = [];
  /** e_shoff, once the section headers are known to be usable (else 0). */
  shoff = 0;
  stringTables: Map<number, StringTable | null> = new Map();
  stringBudget: StringBudget;
  /** Sorted starts of the sections with file bytes and of the section header table. */
  structureStarts: Float64Array | null = null;
  /** `p_align` of each program header, by position. */
  segmentAlignments: number[] = [];
  /** `sh_addralign` of each section header, by index. */
  sectionAlignments: number[] = [];
  /** Whether to lay out the sections of a relocatable file (`ParseElfOptions.layoutRelocatable`). */
  layoutRelocatable = false;
  /** The reading layout of a relocatable file's sections, once laid out (see `relocatable_layout.ts`). */
  layout: (bigint | null)[] | null = null;

  constructor(bytes: Uint8Array, maxSymbols: number, maxFdes: number) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.length = bytes.length;
    this.maxSymbols = maxSymbols;
    this.maxFdes = maxFdes;
    this.stringBudget = { remaining: STRING_BUDGET_FACTOR * bytes.length + (1 << 20) };
  }

  warn(message: string): void {
    if (this.warnings.length < MAX_WARNINGS) this.warnings.push(message);
    else this.droppedWarnings++;
  }

  u16(offset: number): number {
    return this.view.getUint16(offset, this.le);
  }

  u32(offset: number): number {
    return this.view.getUint32(offset, this.le);
  }

  /** An address-sized field as a number; exact below 2^53, else a value of at least 2^53. */
  word(offset: number): number {
    if (!this.is64) return this.view.getUint32(offset, this.le);
    const a = this.view.getUint32(offset, this.le);
    const b = this.view.getUint32(offset + 4, this.le);
    return this.le ? b * TWO_32 + a : a * TWO_32 + b;
  }

  /** An address-sized field as a bigint. */
  addr(offset: number): bigint {
    return this.is64
      ? this.view.getBigUint64(offset, this.le)
      : BigInt(this.view.getUint32(offset, this.le));
  }

  // ----- ELF header

  parseHeader(): Header {
    const bytes = this.bytes;
    const length = this.length;
    if (length === 0) throw new ElfParseError("Cannot parse ELF header: file is empty", 0);
    const magic = [0x7f, 0x45, 0x4c, 0x46];
    for (let i = 0; i < 4 && i < length; i++) {
      if (bytes[i] !== magic[i]) {
        const seen = Array.from(bytes.subarray(0, 4), hex2).join(" ");
        throw new ElfParseError(
          `Cannot parse ELF header: bad magic number ${seen}, expected 7f 45 4c 46 ("\\x7fELF")`,
          0,
        );
      }
    }
    const elfClass = length > 4 ? bytes[4] : undefined;
    const data = length > 5 ? bytes[5] : undefined;
    if (elfClass !== undefined && elfClass !== ELFCLASS32 && elfClass !== ELFCLASS64) {
      throw new ElfParseError(
        `Cannot parse ELF header: EI_CLASS is ${elfClass}, expected 1 (32-bit) or 2 (64-bit)`,
        4,
      );
    }
    if (data !== undefined && data !== ELFDATA2LSB && data !== ELFDATA2MSB) {
      throw new ElfParseError(
        `Cannot parse ELF header: EI_DATA is ${data}, expected 1 (little-endian) or 2 (big-endian)`,
        5,
      );
    }
    const headerSize = elfClass === ELFCLASS64 ? 64 : elfClass === ELFCLASS32 ? 52 : EI_NIDENT;
    if (length < headerSize || elfClass === undefined || data === undefined) {
      throw new ElfParseError(
        `Cannot parse ELF header: file is ${length} bytes, needs at least ${headerSize}`,
        length,
      );
    }
    this.is64 = elfClass === ELFCLASS64;
    this.le = data === ELFDATA2LSB;
    if (bytes[6] !== 1) this.warn(`EI_VERSION is ${bytes[6]}, expected 1`);

    this.fileType = this.u16(16);
    this.machine = this.u16(18);
    const is64 = this.is64;
    this.entry = this.addr(24);
    const phoff = this.word(is64 ? 32 : 28);
    const shoff = this.word(is64 ? 40 : 32);
    const at = is64 ? 52 : 40;
    const ehsize = this.u16(at);
    if (ehsize < headerSize || ehsize > length) {
      throw new ElfParseError(
        `Cannot parse ELF header: e_ehsize is ${ehsize}, expected at least ${headerSize} ` +
          `for a ${is64 ? 64 : 32}-bit file and at most the file size of ${length} bytes`,
        at,
      );
    }
    return {
      phoff,
      shoff,
      phentsize: this.u16(at + 2),
      phnum: this.u16(at + 4),
      shentsize: this.u16(at + 6),
      shnum: this.u16(at + 8),
      shstrndx: this.u16(at + 10),
    };
  }

  /**
   * Reads section header 0, which holds the real counts when e_shnum,
   * e_phnum or e_shstrndx overflow (ELF extended numbering).
   */
  readSectionZero(h: Header): SectionZero | null {
    if (h.shoff === 0 || h.shentsize !== (this.is64 ? 64 : 40)) return null;
    if (h.shoff + h.shentsize > this.length) return null;
    const o = h.shoff;
    return {
      size: this.word(o + (this.is64 ? 32 : 20)),
      link: this.u32(o + (this.is64 ? 40 : 24)),
      info: this.u32(o + (this.is64 ? 44 : 28)),
    };
  }

  /** Whether a header table's entries have the size this class of file uses; warns when not. */
  entrySizeIs(
    table: "program" | "section",
    field: string,
    size: number,
    expected: number,
  ): boolean {
    if (size === expected) return true;
    this.warn(
      `Cannot parse ELF ${table} headers: ${field} is ${size}, expected ${expected} ` +
        `for a ${this.is64 ? 64 : 32}-bit file`,
    );
    return false;
  }

  // ----- Program headers

  parseSegments(h: Header, section0: SectionZero | null): void {
    let count = h.phnum;
    if (count === PN_XNUM) {
      if (section0 === null) {
        this.warn(
          "Cannot parse ELF program headers: e_phnum is PN_XNUM (0xffff) but section header 0, " +
            "which holds the real count, cannot be read",
        );
        return;
      }
      count = section0.info;
    }
    if (count === 0) return;
    if (h.phoff === 0) {
      this.warn(`Cannot parse ELF program headers: e_phnum is ${count} but e_phoff is 0`);
      return;
    }
    const expected = this.is64 ? 56 : 32;
    if (!this.entrySizeIs("program", "e_phentsize", h.phentsize, expected)) return;
    const usable = this.fitTable("program headers", h.phoff, count, expected);
    const is64 = this.is64;
    for (let i = 0; i < usable; i++) {
      const o = h.phoff + i * expected;
      const type = this.u32(o);
      this.segments.push({
        type,
        typeName: SEGMENT_TYPE_NAMES.get(type) ?? hex(type),
        flags: this.u32(o + (is64 ? 4 : 24)),
        offset: this.word(o + (is64 ? 8 : 4)),
        virtualAddress: this.addr(o + (is64 ? 16 : 8)),
        fileSize: this.word(o + (is64 ? 32 : 16)),
        memorySize: this.word(o + (is64 ? 40 : 20)),
      });
      this.segmentAlignments.push(this.word(o + (is64 ? 48 : 28)));
    }
  }

  /**
   * How many entries of a table lie inside the file; warns when not all do.
   * When the table runs past the end of the file and `next` (the offset of
   * the next known structure) is given, the entries stop there instead: a
   * declared size that large is wrong, and what follows is not symbols.
   */
  fitTable(
    what: string,
    offset: number,
    count: number,
    entrySize: number,
    next: number | null = null,
  ): number {
    if (offset + count * entrySize <= this.length) return count;
    const limit = next !== null && next > offset && next < this.length ? next : this.length;
    const fit = offset >= limit ? 0 : Math.floor((limit - offset) / entrySize);
    this.warn(
      `Cannot parse ELF ${what}: table at offset ${hex(offset)} with ${count} entries of ` +
        `${entrySize} bytes runs past the end of the ${this.length}-byte file` +
        (fit === 0
          ? ""
          : limit < this.length
          ? `; reading the ${fit} entries before the next section at offset ${hex(limit)}`
          : `; reading the ${fit} entries that fit`),
    );
    return fit;
  }

  /** The smallest start of a section with file bytes, or of the section header table, after `offset`. */
  nextStructure(offset: number): number | null {
    let starts = this.structureStarts;
    if (starts === null) {
      const list = this.sections
        .filter((s) => s.type !== 0 && s.type !== 8 && s.size > 0)
        .map((s) => s.offset);
      if (this.shoff > 0) list.push(this.shoff);
      starts = this.structureStarts = Float64Array.from(list).sort();
    }
    let low = 0;
    let high = starts.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (starts[mid]! <= offset) low = mid + 1;
      else high = mid;
    }
    return starts[low] ?? null;
  }

  // ----- Section headers

  parseSections(h: Header, section0: SectionZero | null): void {
    if (h.shoff === 0) {
      if (h.shnum !== 0) {
        this.warn(`Cannot parse ELF section headers: e_shnum is ${h.shnum} but e_shoff is 0`);
      }
      return;
    }
    const expected = this.is64 ? 64 : 40;
    if (!this.entrySizeIs("section", "e_shentsize", h.shentsize, expected)) return;
    let count = h.shnum;
    if (count === 0) {
      if (section0 === null) {
        this.warn(
          `Cannot parse ELF section headers: table at offset ${hex(h.shoff)} starts past the ` +
            `end of the ${this.length}-byte file`,
        );
        return;
      }
      // Extended numbering: the count lives in section 0's sh_size.
      count = section0.size;
      if (count === 0) return;
    }
    const usable = this.fitTable("section headers", h.shoff, count, expected);
    if (usable === 0) return;
    this.shoff = h.shoff;
    const is64 = this.is64;
    const sections = this.sections;
    const pastEnd: ElfSection[] = [];
    const nameOffsets = new Array<number>(usable);
    for (let i = 0; i < usable; i++) {
      const o = h.shoff + i * expected;
      nameOffsets[i] = this.u32(o);
      const type = this.u32(o + 4);
      const section: ElfSection = {
        index: i,
        name: "",
        type,
        typeName: SECTION_TYPE_NAMES.get(type) ?? hex(type),
        flags: this.addr(o + 8),
        address: this.addr(o + (is64 ? 16 : 12)),
        offset: this.word(o + (is64 ? 24 : 16)),
        size: this.word(o + (is64 ? 32 : 20)),
        link: this.u32(o + (is64 ? 40 : 24)),
        info: this.u32(o + (is64 ? 44 : 28)),
        entrySize: this.word(o + (is64 ? 56 : 36)),
      };
      this.sectionAlignments.push(this.word(o + (is64 ? 48 : 32)));
      if (type !== 8 && type !== 0 && section.offset + section.size > this.length) {
        pastEnd.push(section);
      }
      sections.push(section);
    }
    this.nameSections(h, section0, nameOffsets);
    if (pastEnd.length > 0) {
      const n = pastEnd.length;
      const listed = pastEnd.slice(0, 5).map(sectionLabel).join(", ");
      this.warn(
        `${n} section${n === 1 ? " extends" : "s extend"} past the end of the ` +
          `${this.length}-byte file: ${listed}${n > 5 ? ", …" : ""}`,
      );
    }
  }

  nameSections(h: Header, section0: SectionZero | null, nameOffsets: number[]): void {
    const count = nameOffsets.length;
    let index = h.shstrndx;
    if (index === SHN_XINDEX) {
      if (section0 === null) {
        this.warn(
          "e_shstrndx is SHN_XINDEX but section header 0 cannot be read; sections are unnamed",
        );
        return;
      }
      index = section0.link;
    }
    if (index === 0) return;
    const table = index < count ? this.sections[index] : undefined;
    if (table === undefined) {
      this.warn(
        `e_shstrndx is ${index}, but there ${count === 1 ? "is" : "are"} only ${count} ` +
          `section${count === 1 ? "" : "s"}; sections are unnamed`,
      );
      return;
    }
    const strings = this.stringTable(table, "the section name table");
    if (strings === null) return;
    for (const section of this.sections) {
      section.name = strings.get(nameOffsets[section.index] ?? 0);
    }
    this.reportStrings(strings, "section");
  }

  /** A string table over a section's bytes, clamped to the file, or null with a warning. */
  stringTable(section: ElfSection, what: string): StringTable | null {
    const cached = this.stringTables.get(section.index);
    if (cached !== undefined) return cached;
    const table = this.openStringTable(section, what);
    this.stringTables.set(section.index, table);
    return table;
  }

  openStringTable(section: ElfSection, what: string): StringTable | null {
    const label = `${sectionLabel(section)}`;
    if (section.type === 8 || section.offset >= this.length) {
      this.warn(
        `Cannot read ${what} ${label}: it has no bytes in the ${this.length}-byte file`,
      );
      return null;
    }
    let end = section.offset + section.size;
    if (end > this.length) {
      this.warn(
        `String table ${label} (${section.size} bytes at offset ${hex(section.offset)}) runs ` +
          `past the end of the ${this.length}-byte file; reading the ${
            this.length - section.offset
          } bytes that fit`,
      );
      end = this.length;
    }
    return new StringTable(this.bytes.subarray(section.offset, end), label, this.stringBudget);
  }

  /** Warns about bad name offsets and cut names seen in a string table. */
  reportStrings(strings: StringTable, noun: "section" | "symbol", where = ""): void {
    const bad = strings.badOffsets;
    if (bad > 0) {
      this.warn(
        `${bad} ${noun}${bad === 1 ? "" : "s"}${where} ${
          bad === 1 ? "has a name offset" : "have name offsets"
        } ` +
          `past the end of the ${strings.size}-byte string table ${strings.label}; ` +
          `${bad === 1 ? "its name is" : "their names are"} empty`,
      );
    }
    const cut = strings.cutNames;
    if (cut > 0) {
      this.warn(
        `${cut} ${noun}${cut === 1 ? "" : "s"}${where} ${
          cut === 1 ? "has a name" : "have names"
        } ` +
          `longer than ${MAX_NAME_BYTES} bytes in ${strings.label}; ` +
          `${cut === 1 ? "it was" : "they were"} cut`,
      );
    }
    const skipped = strings.skipped;
    if (skipped > 0) {
      this.warn(
        `${skipped} ${noun}${
          skipped === 1 ? "" : "s"
        }${where} got no name from ${strings.label}: ` +
          `the string tables of this file add up to more than ${STRING_BUDGET_FACTOR} times its size`,
      );
    }
    if (bad > 0 || cut > 0 || skipped > 0) strings.reported = true;
    strings.badOffsets = 0;
    strings.cutNames = 0;
    strings.skipped = 0;
  }

  /** Translates a virtual address to a file offset through the PT_LOAD segments. */
  toFileOffset(address: bigint): number | null {
    for (const segment of this.segments) {
      if (segment.type !== PT_LOAD) continue;
      const start = segment.virtualAddress;
      if (address < start) continue;
      const delta = address - start;
      if (delta >= BigInt(segment.fileSize)) continue;
      const offset = segment.offset + Number(delta);
      return offset < this.length ? offset : null;
    }
    return null;
  }
}
