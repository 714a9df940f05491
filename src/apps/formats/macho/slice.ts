/**
 * One Mach-O image (a thin file or one slice of a universal file): the
 * header, the load commands, the symbol tables, function starts and the
 * exports trie.
 *
 * @module
 */

import {
  cString,
  dylibVersion,
  flagNames,
  hex,
  hex2,
  osVersion,
  plural,
  readU32BE,
  readUleb,
  TWO_32,
  uleb,
} from "./_util.ts";
import {
  CPU_TYPE_X86,
  CPU_TYPE_X86_64,
  EXPORT_KINDS,
  EXPORT_SYMBOL_FLAGS_KIND_ABSOLUTE,
  EXPORT_SYMBOL_FLAGS_KIND_MASK,
  EXPORT_SYMBOL_FLAGS_REEXPORT,
  EXPORT_SYMBOL_FLAGS_STUB_AND_RESOLVER,
  EXPORT_SYMBOL_FLAGS_WEAK_DEFINITION,
  FILE_TYPES,
  INDIRECT_SYMBOL_ABS,
  INDIRECT_SYMBOL_LOCAL,
  LC_BUILD_VERSION,
  LC_DYLD_EXPORTS_TRIE,
  LC_DYLD_INFO,
  LC_DYLD_INFO_ONLY,
  LC_DYSYMTAB,
  LC_FUNCTION_STARTS,
  LC_ID_DYLIB,
  LC_LAZY_LOAD_DYLIB,
  LC_LOAD_DYLIB,
  LC_LOAD_DYLINKER,
  LC_LOAD_UPWARD_DYLIB,
  LC_LOAD_WEAK_DYLIB,
  LC_MAIN,
  LC_REEXPORT_DYLIB,
  LC_RPATH,
  LC_SEGMENT,
  LC_SEGMENT_64,
  LC_SYMTAB,
  LC_UNIXTHREAD,
  LC_UUID,
  LC_VERSION_MIN_IPHONEOS,
  LC_VERSION_MIN_MACOSX,
  LC_VERSION_MIN_TVOS,
  LC_VERSION_MIN_WATCHOS,
  LOAD_COMMAND_NAMES,
  MAX_NAME_BYTES,
  MAX_TRIE_DEPTH,
  MAX_WARNINGS,
  MH_CIGAM,
  MH_CIGAM_64,
  MH_MAGIC,
  MH_MAGIC_64,
  MH_OBJECT,
  MH_TWOLEVEL,
  N_ABS,
  N_EXT,
  N_INDR,
  N_PBUD,
  N_PEXT,
  N_SECT,
  N_STAB,
  N_TYPE,
  N_UNDF,
  N_WEAK_REF,
  PLATFORM_NAMES,
  S_ATTR_PURE_INSTRUCTIONS,
  S_ATTR_SOME_INSTRUCTIONS,
  S_LAZY_DYLIB_SYMBOL_POINTERS,
  S_LAZY_SYMBOL_POINTERS,
  S_NON_LAZY_SYMBOL_POINTERS,
  S_SYMBOL_STUBS,
  SECTION_TYPE,
} from "./constants.ts";
import { architectureOf, cpuName, machineName, threadPcSlot } from "./cpu.ts";
import {
  type MachODyldInfo,
  type MachODylib,
  type MachODysymtab,
  type MachOExport,
  type MachOImport,
  type MachOLinkeditData,
  type MachOLoadCommand,
  MachOParseError,
  type MachOPlatform,
  type MachOSection,
  type MachOSegment,
  type MachOSlice,
  type MachOSymbol,
  type MachOSymbolKind,
  type MachOSymtab,
} from "./model.ts";

/** Where LC_SYMTAB keeps its fields. */
const SYMTAB_FIELDS = {
  symbolOffset: 8,
  symbolCount: 12,
  stringOffset: 16,
  stringSize: 20,
} as const satisfies Record<keyof MachOSymtab, number>;

/** Where LC_DYSYMTAB keeps the fields this reader uses. */
const DYSYMTAB_FIELDS = {
  localFirst: 8,
  localCount: 12,
  externalFirst: 16,
  externalCount: 20,
  undefinedFirst: 24,
  undefinedCount: 28,
  indirectSymbolOffset: 56,
  indirectSymbolCount: 60,
} as const satisfies Record<keyof MachODysymtab, number>;

/** Where a linkedit_data_command (LC_FUNCTION_STARTS, LC_DYLD_EXPORTS_TRIE) keeps its fields. */
const LINKEDIT_DATA_FIELDS = { offset: 8, size: 12 } as const satisfies Record<
  keyof MachOLinkeditData,
  number
>;

/** Where LC_DYLD_INFO(_ONLY) keeps its offsets and sizes. */
const DYLD_INFO_FIELDS = {
  rebaseOffset: 8,
  rebaseSize: 12,
  bindOffset: 16,
  bindSize: 20,
  weakBindOffset: 24,
  weakBindSize: 28,
  lazyBindOffset: 32,
  lazyBindSize: 36,
  exportOffset: 40,
  exportSize: 44,
} as const satisfies Record<Exclude<keyof MachODyldInfo, "command">, number>;

/** Reads one slice: `bytes[start, end)` of the file. Offsets in messages are file offsets. */
export class SliceReader {
  readonly file: Uint8Array;
  /** The slice's bytes. */
  readonly bytes: Uint8Array;
  readonly view: DataView;
  /** Offset of the slice in the file. */
  readonly base: number;
  /** Bytes in the slice. */
  readonly length: number;
  readonly maxSymbols: number;
  /** `"file"` or `"slice"`, for messages. */
  readonly unit: string;
  le = true;
  is64 = true;
  cputype = 0;
  warnings: string[] = [];
  dropped = 0;

  loadCommands: MachOLoadCommand[] = [];
  segments: MachOSegment[] = [];
  sections: MachOSection[] = [];
  symtab: MachOSymtab | null = null;
  dysymtab: MachODysymtab | null = null;
  functionStartsData: MachOLinkeditData | null = null;
  dyldInfo: MachODyldInfo | null = null;
  exportsTrieData: MachOLinkeditData | null = null;
  mainEntryOffset: bigint | null = null;
  threadEntry: bigint | null = null;
  dylibs: MachODylib[] = [];
  idDylib: MachODylib | null = null;
  dylinker: string | null = null;
  rpaths: string[] = [];
  uuid: string | null = null;
  platforms: MachOPlatform[] = [];
  /** Commands seen more than once where only one is allowed, by name. */
  repeated: Map<string, number> = new Map();

  constructor(file: Uint8Array, start: number, end: number, maxSymbols: number, unit: string) {
    this.file = file;
    this.bytes = file.subarray(start, end);
    this.view = new DataView(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength);
    this.base = start;
    this.length = end - start;
    this.maxSymbols = maxSymbols;
    this.unit = unit;
  }

  warn(message: string): void {
    if (this.warnings.length < MAX_WARNINGS) this.warnings.push(message);
    else this.dropped++;
  }

  u16(at: number): number {
    return this.view.getUint16(at, this.le);
  }

  u32(at: number): number {
    return this.view.getUint32(at, this.le);
  }

  /** A 64-bit field as a number (exact below 2^53). */
  u64n(at: number): number {
    const a = this.view.getUint32(at, this.le);
    const b = this.view.getUint32(at + 4, this.le);
    return this.le ? b * TWO_32 + a : a * TWO_32 + b;
  }

  u64(at: number): bigint {
    return this.view.getBigUint64(at, this.le);
  }

  /** An address-sized field as a bigint. */
  addr(at: number): bigint {
    return this.is64 ? this.u64(at) : BigInt(this.u32(at));
  }

  /** A fixed 16-byte name field (segname, sectname). */
  name16(at: number): string {
    return cString(this.bytes, at, at + 16).text;
  }

  /** Adds an offset to an address, wrapping like the 32- or 64-bit address space. */
  offsetAddress(base: bigint, offset: number | bigint): bigint {
    const sum = base + (typeof offset === "bigint" ? offset : BigInt(offset));
    return BigInt.asUintN(this.is64 ? 64 : 32, sum);
  }

  parse(): MachOSlice {
    const bytes = this.bytes;
    const length = this.length;
    const unit = this.unit;
    if (length === 0) {
      throw new MachOParseError(`Cannot parse Mach-O header: ${unit} is empty`, this.base);
    }
    if (length < 4) {
      throw new MachOParseError(
        `Cannot parse Mach-O header: ${unit} is ${length} bytes, needs at least 4 for the magic ` +
          `number`,
        this.base,
      );
    }
    const magic = readU32BE(bytes, 0);
    // Read big-endian: MH_MAGIC(_64) is a big-endian file, MH_CIGAM(_64) a little-endian one.
    if (magic === MH_MAGIC || magic === MH_MAGIC_64) {
      this.le = false;
      this.is64 = magic === MH_MAGIC_64;
    } else if (magic === MH_CIGAM || magic === MH_CIGAM_64) {
      this.le = true;
      this.is64 = magic === MH_CIGAM_64;
    } else {
      const seen = Array.from(bytes.subarray(0, 4), hex2).join(" ");
      throw new MachOParseError(
        `Cannot parse Mach-O header: bad magic number ${seen}, expected feedface or feedfacf ` +
          `(in either byte order)` + (unit === "file" ? " or a universal cafebabe / cafebabf" : ""),
        this.base,
      );
    }
    const headerSize = this.is64 ? 32 : 28;
    if (length < headerSize) {
      throw new MachOParseError(
        `Cannot parse Mach-O header: ${unit} is ${length} bytes, needs at least ${headerSize} for ` +
          `a ${this.is64 ? 64 : 32}-bit header`,
        this.base,
      );
    }
    this.cputype = this.u32(4);
    const cpusubtype = this.u32(8);
    const filetype = this.u32(12);
    const ncmds = this.u32(16);
    const sizeofcmds = this.u32(20);
    const flags = this.u32(24);
    if (headerSize + sizeofcmds > length) {
      throw new MachOParseError(
        `Cannot parse Mach-O load commands: sizeofcmds ${hex(sizeofcmds)} runs past the end of ` +
          `the ${length}-byte ${unit}`,
        this.base + 20,
      );
    }
    if (ncmds * 8 > sizeofcmds) {
      throw new MachOParseError(
        `Cannot parse Mach-O load commands: ncmds ${ncmds} (${hex(ncmds)}) needs at least ` +
          `${ncmds * 8} bytes (8 per command) but sizeofcmds is ${sizeofcmds}`,
        this.base + 16,
      );
    }
    this.readLoadCommands(headerSize, ncmds, sizeofcmds);

    const twoLevel = (flags & MH_TWOLEVEL) !== 0 && filetype !== MH_OBJECT;
    const symbols = this.readSymbols(twoLevel);
    const imports = this.findImports(symbols);
    const textBase = this.textBase();
    const functionStarts = this.readFunctionStarts(textBase);
    const exports = this.readExports();
    const entry = this.findEntry();
    if (this.dropped > 0) this.warnings.push(`${this.dropped} more warnings were omitted`);
    return {
      cputype: this.cputype,
      cpusubtype,
      cpuName: cpuName(this.cputype, cpusubtype),
      architecture: architectureOf(this.cputype),
      machine: machineName(this.cputype),
      bits: this.is64 ? 64 : 32,
      endianness: this.le ? "little" : "big",
      filetype,
      fileType: FILE_TYPES[filetype] ?? "unknown",
      flags,
      flagNames: flagNames(flags),
      offset: this.base,
      size: length,
      ncmds,
      sizeofcmds,
      loadCommands: this.loadCommands,
      segments: this.segments,
      sections: this.sections,
      symtab: this.symtab,
      dysymtab: this.dysymtab,
      symbols,
      functionStartsData: this.functionStartsData,
      functionStarts,
      dyldInfo: this.dyldInfo,
      exportsTrieData: this.exportsTrieData,
      exports,
      entry: entry.address,
      entryCommand: entry.command,
      mainEntryOffset: this.mainEntryOffset,
      dylibs: this.dylibs,
      idDylib: this.idDylib,
      dylinker: this.dylinker,
      rpaths: this.rpaths,
      uuid: this.uuid,
      platforms: this.platforms,
      imports,
      warnings: this.warnings,
    };
  }

  // ----- Load commands

  readLoadCommands(headerSize: number, ncmds: number, sizeofcmds: number): void {
    const end = headerSize + sizeofcmds;
    let o = headerSize;
    for (let i = 0; i < ncmds; i++) {
      const left = ncmds - i;
      if (o + 8 > end) {
        this.warn(
          `Load command ${i} at offset ${hex(this.base + o)} does not fit in the ` +
            `${sizeofcmds}-byte load command area; ${plural(left, "command")} not read`,
        );
        return;
      }
      const cmd = this.u32(o);
      const size = this.u32(o + 4);
      const name = LOAD_COMMAND_NAMES.get(cmd) ?? hex(cmd);
      if (size < 8) {
        this.warn(
          `Load command ${i} (${name}) at offset ${hex(this.base + o)} has cmdsize ${size}, ` +
            `less than 8; ${plural(left, "command")} not read`,
        );
        return;
      }
      if (o + size > end) {
        this.warn(
          `Load command ${i} (${name}) at offset ${hex(this.base + o)} has cmdsize ${size}, ` +
            `which runs past the end of the ${sizeofcmds}-byte load command area; ` +
            `${plural(left, "command")} not read`,
        );
        return;
      }
      this.loadCommands.push({ index: i, cmd, name, size, offset: o });
      this.decodeCommand(i, cmd, name, o, size);
      o += size;
    }
  }

  /** Whether a command of `size` bytes holds a `need`-byte structure; warns when not. */
  fits(index: number, name: string, size: number, need: number): boolean {
    if (size >= need) return true;
    this.warn(
      `Load command ${index} (${name}) has cmdsize ${size}, less than its ${need}-byte ` +
        `structure; ignoring it`,
    );
    return false;
  }

  /** Whether this is the first command of its kind; warns about later ones. */
  first(index: number, name: string, already: boolean): boolean {
    if (!already) return true;
    this.warn(`Load command ${index} is a second ${name}; ignoring it`);
    return false;
  }

  /**
   * Whether a command holds its `need`-byte structure and is the first of its
   * kind (`current` is what an earlier one set, null when none did); warns when not.
   */
  firstFitting(index: number, name: string, size: number, need: number, current: unknown): boolean {
    return this.fits(index, name, size, need) && this.first(index, name, current !== null);
  }

  /** The 32-bit fields of a structure at `o`, named by their offsets in `layout`. */
  u32Fields<K extends string>(o: number, layout: Readonly<Record<K, number>>): Record<K, number> {
    const fields = {} as Record<K, number>;
    for (const key in layout) fields[key] = this.u32(o + layout[key]);
    return fields;
  }

  decodeCommand(index: number, cmd: number, name: string, o: number, size: number): void {
    switch (cmd) {
      case LC_SEGMENT:
      case LC_SEGMENT_64:
        this.readSegment(index, cmd === LC_SEGMENT_64, name, o, size);
        return;
      case LC_SYMTAB:
        if (this.firstFitting(index, name, size, 24, this.symtab)) {
          this.symtab = this.u32Fields(o, SYMTAB_FIELDS);
        }
        return;
      case LC_DYSYMTAB:
        if (this.firstFitting(index, name, size, 80, this.dysymtab)) {
          this.dysymtab = this.u32Fields(o, DYSYMTAB_FIELDS);
        }
        return;
      case LC_FUNCTION_STARTS:
        if (this.firstFitting(index, name, size, 16, this.functionStartsData)) {
          this.functionStartsData = this.u32Fields(o, LINKEDIT_DATA_FIELDS);
        }
        return;
      case LC_DYLD_EXPORTS_TRIE:
        if (this.firstFitting(index, name, size, 16, this.exportsTrieData)) {
          this.exportsTrieData = this.u32Fields(o, LINKEDIT_DATA_FIELDS);
        }
        return;
      case LC_DYLD_INFO:
      case LC_DYLD_INFO_ONLY:
        if (this.firstFitting(index, name, size, 48, this.dyldInfo)) {
          this.dyldInfo = { command: name, ...this.u32Fields(o, DYLD_INFO_FIELDS) };
        }
        return;
      case LC_MAIN:
        if (this.firstFitting(index, name, size, 24, this.mainEntryOffset)) {
          this.mainEntryOffset = this.u64(o + 8);
        }
        return;
      case LC_UNIXTHREAD:
        if (this.firstFitting(index, name, size, 16, this.threadEntry)) {
          this.threadEntry = this.readThreadPc(index, o, size);
        }
        return;
      case LC_LOAD_DYLIB:
      case LC_LOAD_WEAK_DYLIB:
      case LC_REEXPORT_DYLIB:
      case LC_LAZY_LOAD_DYLIB:
      case LC_LOAD_UPWARD_DYLIB: {
        // Ordinals count every dependent-dylib command, so keep even a damaged one.
        const dylib = this.readDylib(index, name, o, size);
        this.dylibs.push(
          dylib ?? {
            command: name,
            name: "",
            timestamp: 0,
            currentVersion: "0.0.0",
            compatibilityVersion: "0.0.0",
          },
        );
        return;
      }
      case LC_ID_DYLIB:
        if (!this.first(index, name, this.idDylib !== null)) return;
        this.idDylib = this.readDylib(index, name, o, size);
        return;
      case LC_LOAD_DYLINKER:
        if (!this.fits(index, name, size, 12)) return;
        this.dylinker = this.lcString(index, name, o, size, 12);
        return;
      case LC_RPATH:
        if (!this.fits(index, name, size, 12)) return;
        this.rpaths.push(this.lcString(index, name, o, size, 12));
        return;
      case LC_UUID: {
        if (!this.firstFitting(index, name, size, 24, this.uuid)) return;
        const h = Array.from(this.bytes.subarray(o + 8, o + 24), hex2).join("").toUpperCase();
        this.uuid = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-` +
          h.slice(20);
        return;
      }
      case LC_BUILD_VERSION: {
        if (!this.fits(index, name, size, 24)) return;
        const platform = this.u32(o + 8);
        this.platforms.push({
          command: name,
          platform,
          platformName: PLATFORM_NAMES[platform] ?? `platform-${platform}`,
          minimumVersion: osVersion(this.u32(o + 12)),
          sdk: osVersion(this.u32(o + 16)),
        });
        return;
      }
      case LC_VERSION_MIN_MACOSX:
      case LC_VERSION_MIN_IPHONEOS:
      case LC_VERSION_MIN_TVOS:
      case LC_VERSION_MIN_WATCHOS: {
        if (!this.fits(index, name, size, 16)) return;
        const platform = cmd === LC_VERSION_MIN_MACOSX
          ? 1
          : cmd === LC_VERSION_MIN_IPHONEOS
          ? 2
          : cmd === LC_VERSION_MIN_TVOS
          ? 3
          : 4;
        this.platforms.push({
          command: name,
          platform,
          platformName: PLATFORM_NAMES[platform]!,
          minimumVersion: osVersion(this.u32(o + 8)),
          sdk: osVersion(this.u32(o + 12)),
        });
        return;
      }
    }
  }

  /** An `lc_str` whose offset field is at `o + 8`; `""` with a warning when it is out of range. */
  lcString(index: number, name: string, o: number, size: number, structSize: number): string {
    const at = this.u32(o + 8);
    if (at < structSize || at >= size) {
      this.warn(
        `Load command ${index} (${name}) has a name offset of ${at}, outside its ${size} bytes ` +
          `after the ${structSize}-byte structure; its name is empty`,
      );
      return "";
    }
    const { text, cut } = cString(this.bytes, o + at, o + size);
    if (cut) this.warn(`The name in load command ${index} (${name}) is not NUL-terminated`);
    return text;
  }

  readDylib(index: number, name: string, o: number, size: number): MachODylib | null {
    if (!this.fits(index, name, size, 24)) return null;
    return {
      command: name,
      name: this.lcString(index, name, o, size, 24),
      timestamp: this.u32(o + 12),
      currentVersion: dylibVersion(this.u32(o + 16)),
      compatibilityVersion: dylibVersion(this.u32(o + 20)),
    };
  }

  readSegment(index: number, is64: boolean, name: string, o: number, size: number): void {
    const structSize = is64 ? 72 : 56;
    const sectionSize = is64 ? 80 : 68;
    if (!this.fits(index, name, size, structSize)) return;
    const segment: MachOSegment = {
      command: index,
      name: this.name16(o + 8),
      address: is64 ? this.u64(o + 24) : BigInt(this.u32(o + 24)),
      vmSize: is64 ? this.u64(o + 32) : BigInt(this.u32(o + 28)),
      fileOffset: is64 ? this.u64n(o + 40) : this.u32(o + 32),
      fileSize: is64 ? this.u64n(o + 48) : this.u32(o + 36),
      maxProtection: this.u32(o + (is64 ? 56 : 40)),
      initialProtection: this.u32(o + (is64 ? 60 : 44)),
      flags: this.u32(o + (is64 ? 68 : 52)),
      sections: [],
    };
    let nsects = this.u32(o + (is64 ? 64 : 48));
    const fit = Math.floor((size - structSize) / sectionSize);
    if (nsects > fit) {
      this.warn(
        `Segment ${segment.name || "(unnamed)"} (load command ${index}) has nsects ${nsects} ` +
          `but its cmdsize ${size} holds only ${fit}; reading ${fit}`,
      );
      nsects = fit;
    }
    if (segment.fileSize > 0 && segment.fileOffset + segment.fileSize > this.length) {
      this.warn(
        `Segment ${segment.name || "(unnamed)"} (${segment.fileSize} bytes at offset ` +
          `${hex(segment.fileOffset)}) runs past the end of the ${this.length}-byte ${this.unit}`,
      );
    }
    for (let k = 0; k < nsects; k++) {
      const s = o + structSize + k * sectionSize;
      const flags = this.u32(s + (is64 ? 64 : 56));
      const section: MachOSection = {
        ordinal: this.sections.length + 1,
        name: this.name16(s),
        segmentName: this.name16(s + 16),
        address: is64 ? this.u64(s + 32) : BigInt(this.u32(s + 32)),
        size: is64 ? this.u64(s + 40) : BigInt(this.u32(s + 36)),
        offset: this.u32(s + (is64 ? 48 : 40)),
        align: this.u32(s + (is64 ? 52 : 44)),
        relocationOffset: this.u32(s + (is64 ? 56 : 48)),
        relocationCount: this.u32(s + (is64 ? 60 : 52)),
        flags,
        type: flags & SECTION_TYPE,
        reserved1: this.u32(s + (is64 ? 68 : 60)),
        reserved2: this.u32(s + (is64 ? 72 : 64)),
        instructions: (flags & (S_ATTR_PURE_INSTRUCTIONS | S_ATTR_SOME_INSTRUCTIONS)) !== 0,
      };
      segment.sections.push(section);
      this.sections.push(section);
    }
    this.segments.push(segment);
  }

  /** The program counter of the first thread state in an LC_UNIXTHREAD this reader knows. */
  readThreadPc(index: number, o: number, size: number): bigint | null {
    const end = o + size;
    let at = o + 8;
    while (at + 8 <= end) {
      let flavor = this.u32(at);
      const count = this.u32(at + 4);
      let state = at + 8;
      const stateEnd = state + count * 4;
      if (stateEnd > end) {
        this.warn(
          `LC_UNIXTHREAD (load command ${index}) has a thread state of ${count} words that runs ` +
            `past its cmdsize ${size}; no entry point from it`,
        );
        return null;
      }
      // x86_THREAD_STATE (7) wraps a flavor/count header around the real state.
      if (
        flavor === 7 && (this.cputype === CPU_TYPE_X86 || this.cputype === CPU_TYPE_X86_64) &&
        count >= 2
      ) {
        flavor = this.u32(state);
        state += 8;
      }
      const pc = this.threadPc(flavor, state, stateEnd);
      if (pc !== null) return pc;
      at = stateEnd;
    }
    this.warn(
      `LC_UNIXTHREAD (load command ${index}) has no thread state with a program counter this ` +
        `reader knows for ${cpuName(this.cputype, 0)}`,
    );
    return null;
  }

  threadPc(flavor: number, state: number, stateEnd: number): bigint | null {
    const slot = threadPcSlot(this.cputype);
    if (!slot || slot.flavor !== flavor) return null;
    const at = state + slot.offset;
    if (at + slot.width > stateEnd) return null;
    return slot.width === 8 ? this.u64(at) : BigInt(this.u32(at));
  }

  // ----- Linkedit tables

  /**
   * The part of `[offset, offset + size)` inside the slice, with a warning
   * when it is not all there; null when none of it is.
   */
  fitData(what: string, offset: number, size: number): { start: number; end: number } | null {
    if (size === 0) return null;
    if (offset >= this.length) {
      this.warn(
        `Cannot read ${what}: it starts at offset ${hex(offset)}, past the end of the ` +
          `${this.length}-byte ${this.unit}`,
      );
      return null;
    }
    let end = offset + size;
    if (end > this.length) {
      this.warn(
        `${what} (${size} bytes at offset ${hex(offset)}) runs past the end of the ` +
          `${this.length}-byte ${this.unit}; reading the ${this.length - offset} bytes that fit`,
      );
      end = this.length;
    }
    return { start: offset, end };
  }

  readSymbols(twoLevel: boolean): MachOSymbol[] {
    const symtab = this.symtab;
    const symbols: MachOSymbol[] = [];
    if (symtab === null) return symbols;
    const stride = this.is64 ? 16 : 12;
    let count = symtab.symbolCount;
    if (count === 0) return symbols;
    const area = this.fitData("the symbol table", symtab.symbolOffset, count * stride);
    if (area === null) return symbols;
    const fit = Math.floor((area.end - area.start) / stride);
    if (fit < count) {
      this.warn(`Reading ${fit} of the ${count} nlist entries of the symbol table`);
      count = fit;
    }
    if (count > this.maxSymbols) {
      this.warn(
        `The symbol table has ${count} entries, more than the maxSymbols limit of ` +
          `${this.maxSymbols}; reading the first ${this.maxSymbols}`,
      );
      count = this.maxSymbols;
    }
    let strings = this.fitData("the string table", symtab.stringOffset, symtab.stringSize);
    if (strings === null && symtab.stringSize === 0 && count > 0) {
      strings = { start: symtab.stringOffset, end: symtab.stringOffset };
    }
    const stringStart = strings?.start ?? 0;
    const stringEnd = strings?.end ?? 0;
    const stringSize = stringEnd - stringStart;
    const bytes = this.bytes;
    const sections = this.sections;
    const dylibCount = this.dylibs.length;
    let badNames = 0;
    let cutNames = 0;
    let badSections = 0;
    let badOrdinals = 0;
    for (let i = 0, o = area.start; i < count; i++, o += stride) {
      const type = bytes[o + 4]!;
      if ((type & N_STAB) !== 0) continue;
      const strx = this.u32(o);
      let name = "";
      if (strx !== 0) {
        if (strx >= stringSize) badNames++;
        else {
          const read = cString(bytes, stringStart + strx, stringEnd);
          name = read.text;
          if (read.cut) cutNames++;
        }
      }
      const sectionOrdinal = bytes[o + 5]!;
      const desc = this.u16(o + 6);
      const value = this.is64 ? this.u64(o + 8) : BigInt(this.u32(o + 8));
      const nType = type & N_TYPE;
      let kind: MachOSymbolKind;
      switch (nType) {
        case N_UNDF:
          kind = value !== 0n && (type & N_EXT) !== 0 ? "common" : "undefined";
          break;
        case N_ABS:
          kind = "absolute";
          break;
        case N_SECT:
          kind = "section";
          break;
        case N_PBUD:
          kind = "prebound-undefined";
          break;
        case N_INDR:
          kind = "indirect";
          break;
        default:
          kind = "unknown";
      }
      let section: string | null = null;
      if (kind === "section") {
        const s = sections[sectionOrdinal - 1];
        if (s === undefined) badSections++;
        else section = `${s.segmentName},${s.name}`;
      }
      let libraryOrdinal: number | null = null;
      if (twoLevel && (kind === "undefined" || kind === "prebound-undefined")) {
        libraryOrdinal = (desc >> 8) & 0xff;
        if (libraryOrdinal > dylibCount && libraryOrdinal < 0xfe) badOrdinals++;
      }
      symbols.push({
        index: i,
        name,
        type,
        kind,
        external: (type & N_EXT) !== 0,
        privateExternal: (type & N_PEXT) !== 0,
        sectionOrdinal,
        section,
        desc,
        value,
        libraryOrdinal,
      });
    }
    if (badNames > 0) {
      this.warn(
        `${plural(badNames, "symbol")} ${badNames === 1 ? "has a" : "have"} name ` +
          `offset${badNames === 1 ? "" : "s"} past the end of the ${stringSize}-byte string ` +
          `table; ${badNames === 1 ? "its name is" : "their names are"} empty`,
      );
    }
    if (cutNames > 0) {
      this.warn(
        `${plural(cutNames, "symbol name")} ${cutNames === 1 ? "runs" : "run"} to the end of ` +
          `the string table or past ${MAX_NAME_BYTES} bytes without a NUL; cut`,
      );
    }
    if (badSections > 0) {
      this.warn(
        `${plural(badSections, "N_SECT symbol")} name${badSections === 1 ? "s" : ""} a section ` +
          `ordinal outside 1..${sections.length}`,
      );
    }
    if (badOrdinals > 0) {
      this.warn(
        `${plural(badOrdinals, "undefined symbol")} name${badOrdinals === 1 ? "s" : ""} a ` +
          `library ordinal past the ${plural(dylibCount, "dependent dylib")}`,
      );
    }
    return symbols;
  }

  /** Undefined external symbols, with the stub and pointer the indirect symbol table gives them. */
  findImports(symbols: MachOSymbol[]): MachOImport[] {
    const imports: MachOImport[] = [];
    const byIndex = new Map<number, MachOImport>();
    for (const s of symbols) {
      if (!s.external || (s.kind !== "undefined" && s.kind !== "prebound-undefined")) continue;
      const ordinal = s.libraryOrdinal;
      const library = ordinal !== null && ordinal >= 1 && ordinal <= this.dylibs.length
        ? this.dylibs[ordinal - 1]!.name
        : null;
      const entry: MachOImport = {
        symbol: s.index,
        name: s.name,
        ordinal,
        library,
        weak: (s.desc & N_WEAK_REF) !== 0,
        stub: null,
        pointer: null,
      };
      imports.push(entry);
      byIndex.set(s.index, entry);
    }
    const dysymtab = this.dysymtab;
    if (dysymtab === null || dysymtab.indirectSymbolCount === 0) return imports;
    const area = this.fitData(
      "the indirect symbol table",
      dysymtab.indirectSymbolOffset,
      dysymtab.indirectSymbolCount * 4,
    );
    if (area === null) return imports;
    const indirectCount = Math.floor((area.end - area.start) / 4);
    // In a sound file each entry belongs to one section; this bounds damaged ones.
    let budget = indirectCount + 65536;
    const pointerSize = this.is64 ? 8 : 4;
    let outside = 0;
    for (const section of this.sections) {
      const type = section.type;
      let stride: number;
      if (type === S_SYMBOL_STUBS) {
        stride = section.reserved2;
        if (stride === 0) {
          this.warn(
            `Stub section ${section.segmentName},${section.name} has a stub size (reserved2) of ` +
              `0; its stubs are not matched to imports`,
          );
          continue;
        }
      } else if (
        type === S_NON_LAZY_SYMBOL_POINTERS || type === S_LAZY_SYMBOL_POINTERS ||
        type === S_LAZY_DYLIB_SYMBOL_POINTERS
      ) {
        stride = pointerSize;
      } else continue;
      const first = section.reserved1;
      if (type === S_SYMBOL_STUBS) stride = this.stubStride(section, stride, indirectCount);
      const entries = section.size / BigInt(stride);
      for (let k = 0n; k < entries; k++) {
        const slot = first + Number(k);
        if (slot >= indirectCount) {
          outside++;
          break;
        }
        if (budget-- <= 0) {
          this.warn(
            "The symbol stub and pointer sections refer to the indirect symbol table more than " +
              "its size allows; the rest are not matched to imports",
          );
          return imports;
        }
        const index = this.u32(area.start + slot * 4);
        if ((index & (INDIRECT_SYMBOL_LOCAL | INDIRECT_SYMBOL_ABS)) !== 0) continue;
        const entry = byIndex.get(index);
        if (entry === undefined) continue;
        const address = this.offsetAddress(section.address, k * BigInt(stride));
        if (type === S_SYMBOL_STUBS) entry.stub ??= address;
        else entry.pointer ??= address;
      }
    }
    if (outside > 0) {
      this.warn(
        `${plural(outside, "stub or pointer section")} ${outside === 1 ? "runs" : "run"} past ` +
          `the end of the ${indirectCount}-entry indirect symbol table`,
      );
    }
    return imports;
  }

  /**
   * The stub size of `section`: its `reserved2`, unless that makes more stubs
   * than the indirect-symbol entries the section owns (those up to the next
   * section's `reserved1`) and the section divides evenly among them: then
   * the size each owned entry gets (Go's linker writes 6, the x86-64 size, on
   * arm64 too, whose stubs are 12 bytes).
   */
  private stubStride(section: MachOSection, stride: number, indirectCount: number): number {
    const first = section.reserved1;
    let end = indirectCount;
    for (const other of this.sections) {
      const owns = other.type === S_SYMBOL_STUBS || other.type === S_NON_LAZY_SYMBOL_POINTERS ||
        other.type === S_LAZY_SYMBOL_POINTERS || other.type === S_LAZY_DYLIB_SYMBOL_POINTERS;
      if (owns && other.reserved1 > first && other.reserved1 < end) end = other.reserved1;
    }
    const owned = BigInt(end - first);
    if (owned <= 0n || section.size / BigInt(stride) <= owned || section.size % owned !== 0n) {
      return stride;
    }
    const size = Number(section.size / owned);
    this.warn(
      `Stub section ${section.segmentName},${section.name} gives a stub size (reserved2) of ` +
        `${stride}, but its ${section.size} bytes hold the ${owned} indirect entries it owns at ` +
        `${size} bytes each; read as ${size}-byte stubs`,
    );
    return size;
  }

  /** The address LC_FUNCTION_STARTS counts from: the __TEXT segment, else the image base. */
  textBase(): bigint {
    const text = this.segments.find((s) => s.name === "__TEXT");
    return text?.address ?? this.imageBase();
  }

  /** The address of the mach header: the segment that maps file offset 0 with bytes. */
  imageBase(): bigint {
    const first = this.segments.find((s) => s.fileOffset === 0 && s.fileSize !== 0);
    return first?.address ?? 0n;
  }

  readFunctionStarts(textBase: bigint): bigint[] {
    const starts: bigint[] = [];
    const data = this.functionStartsData;
    if (data === null) return starts;
    const area = this.fitData("LC_FUNCTION_STARTS data", data.offset, data.size);
    if (area === null) return starts;
    const bytes = this.bytes;
    let address = textBase;
    let pos = area.start;
    while (pos < area.end) {
      if (bytes[pos] === 0) break; // the terminator (and any padding after it)
      const delta = readUleb(bytes, pos, area.end);
      if (delta < 0) {
        this.warn(
          `LC_FUNCTION_STARTS has a malformed ULEB128 at offset ${hex(this.base + pos)}; ` +
            `keeping the ${plural(starts.length, "start")} before it`,
        );
        break;
      }
      pos = uleb.next;
      address = this.offsetAddress(address, Number.isNaN(delta) ? uleb.big : delta);
      starts.push(address);
    }
    return starts;
  }

  readExports(): MachOExport[] {
    const exports: MachOExport[] = [];
    let data: MachOLinkeditData | null = this.exportsTrieData;
    let what = "the LC_DYLD_EXPORTS_TRIE exports trie";
    if (data === null && this.dyldInfo !== null) {
      data = { offset: this.dyldInfo.exportOffset, size: this.dyldInfo.exportSize };
      what = `the ${this.dyldInfo.command} exports trie`;
    }
    if (data === null) return exports;
    const area = this.fitData(what, data.offset, data.size);
    if (area === null) return exports;
    const bytes = this.bytes;
    const start = area.start;
    const end = area.end;
    const base = this.imageBase();
    const visited = new Set<number>();
    const stack: { node: number; prefix: string; depth: number }[] = [
      { node: 0, prefix: "", depth: 0 },
    ];
    let revisits = 0;
    let tooDeep = 0;
    let problems = 0;
    const problem = (message: string): void => {
      if (problems++ < 5) this.warn(`In ${what}: ${message}`);
    };
    while (stack.length > 0) {
      const { node, prefix, depth } = stack.pop()!;
      if (visited.has(node)) {
        revisits++;
        continue;
      }
      visited.add(node);
      let pos = start + node;
      const terminalSize = readUleb(bytes, pos, end);
      if (terminalSize < 0 || Number.isNaN(terminalSize)) {
        problem(`the node at offset ${hex(node)} has a malformed terminal size`);
        continue;
      }
      pos = uleb.next;
      const childrenAt = pos + terminalSize;
      if (childrenAt >= end) {
        problem(`the node at offset ${hex(node)} runs past the end of the trie`);
        continue;
      }
      if (terminalSize > 0) {
        const entry = this.readTerminal(bytes, pos, childrenAt, prefix, base);
        if (typeof entry === "string") {
          problem(`the export ${prefix} at node ${hex(node)} ${entry}`);
        } else exports.push(entry);
      }
      pos = childrenAt;
      const childCount = bytes[pos++]!;
      const children: { node: number; prefix: string; depth: number }[] = [];
      for (let c = 0; c < childCount; c++) {
        const label = cString(bytes, pos, end);
        if (label.cut) {
          problem(`an edge of the node at offset ${hex(node)} has no NUL-terminated label`);
          break;
        }
        pos = label.stop + 1;
        const child = readUleb(bytes, pos, end);
        if (child < 0 || Number.isNaN(child)) {
          problem(`an edge of the node at offset ${hex(node)} has a malformed child offset`);
          break;
        }
        pos = uleb.next;
        if (child >= end - start) {
          problem(
            `the edge "${label.text}" of the node at offset ${hex(node)} points to offset ` +
              `${hex(child)}, past the end of the ${end - start}-byte trie`,
          );
          continue;
        }
        if (depth + 1 > MAX_TRIE_DEPTH) {
          tooDeep++;
          continue;
        }
        const name = prefix + label.text;
        if (name.length > MAX_NAME_BYTES) {
          problem(`a name under the node at offset ${hex(node)} is longer than ${MAX_NAME_BYTES}`);
          continue;
        }
        children.push({ node: child, prefix: name, depth: depth + 1 });
      }
      for (let c = children.length - 1; c >= 0; c--) stack.push(children[c]!);
    }
    if (problems > 5) this.warn(`In ${what}: ${problems - 5} more problems were not listed`);
    if (revisits > 0) {
      this.warn(
        `${what} reaches ${plural(revisits, "node")} a second time (a cycle or a shared node); ` +
          `${revisits === 1 ? "it was" : "they were"} read once`,
      );
    }
    if (tooDeep > 0) {
      this.warn(
        `${what} is deeper than ${MAX_TRIE_DEPTH} edges; ${
          plural(tooDeep, "deeper branch", "deeper branches")
        } not read`,
      );
    }
    return exports;
  }

  /** The export whose terminal information is at `[pos, end)`, or a problem description. */
  readTerminal(
    bytes: Uint8Array,
    pos: number,
    end: number,
    name: string,
    base: bigint,
  ): MachOExport | string {
    const flags = readUleb(bytes, pos, end);
    if (flags < 0 || Number.isNaN(flags)) return "has malformed flags";
    pos = uleb.next;
    const kindBits = flags % 4;
    const entry: MachOExport = {
      name,
      flags,
      kind: EXPORT_KINDS[kindBits]!,
      weak: (flags & EXPORT_SYMBOL_FLAGS_WEAK_DEFINITION) !== 0,
      address: null,
      reexport: null,
      resolver: null,
    };
    if ((flags & EXPORT_SYMBOL_FLAGS_REEXPORT) !== 0) {
      const ordinal = readUleb(bytes, pos, end);
      if (ordinal < 0 || Number.isNaN(ordinal)) return "has a malformed re-export ordinal";
      pos = uleb.next;
      const imported = cString(bytes, pos, end);
      if (imported.cut) return "has a re-export name without a NUL";
      const dylib = ordinal >= 1 ? this.dylibs[ordinal - 1] : undefined;
      entry.reexport = {
        ordinal,
        library: dylib?.name ?? null,
        name: imported.text === "" ? name : imported.text,
      };
      return entry;
    }
    const offset = readUleb(bytes, pos, end);
    if (offset < 0) return "has a malformed address";
    pos = uleb.next;
    const value = Number.isNaN(offset) ? uleb.big : BigInt(offset);
    entry.address = (flags & EXPORT_SYMBOL_FLAGS_KIND_MASK) === EXPORT_SYMBOL_FLAGS_KIND_ABSOLUTE
      ? value
      : this.offsetAddress(base, value);
    if ((flags & EXPORT_SYMBOL_FLAGS_STUB_AND_RESOLVER) !== 0) {
      const resolver = readUleb(bytes, pos, end);
      if (resolver < 0) return "has a malformed resolver offset";
      entry.resolver = this.offsetAddress(base, Number.isNaN(resolver) ? uleb.big : resolver);
    }
    return entry;
  }

  /** The entry point: LC_MAIN's `entryoff` mapped through the segments, else LC_UNIXTHREAD's pc. */
  findEntry(): { address: bigint | null; command: MachOSlice["entryCommand"] } {
    const entryoff = this.mainEntryOffset;
    if (entryoff !== null) {
      for (const s of this.segments) {
        if (s.fileSize === 0) continue;
        const start = BigInt(s.fileOffset);
        if (entryoff >= start && entryoff < start + BigInt(s.fileSize)) {
          return { address: this.offsetAddress(s.address, entryoff - start), command: "LC_MAIN" };
        }
      }
      this.warn(
        `LC_MAIN entryoff ${hex(entryoff)} is not inside the file bytes of any segment; no entry ` +
          `point`,
      );
      return { address: null, command: null };
    }
    if (this.threadEntry !== null) return { address: this.threadEntry, command: "LC_UNIXTHREAD" };
    return { address: null, command: null };
  }
}
