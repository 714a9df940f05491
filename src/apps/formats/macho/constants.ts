/**
 * Mach-O numbers from `<mach-o/loader.h>`, `<mach-o/nlist.h>` and
 * `<mach-o/fat.h>` (magics, CPU types, load commands, section types, symbol
 * types, export flags), their names, and the limits that bound every parse.
 *
 * @module
 */

import type { MachOExport, MachOFileType } from "./model.ts";

export const MH_MAGIC = 0xfeedface;

export const MH_MAGIC_64 = 0xfeedfacf;

export const MH_CIGAM = 0xcefaedfe;

export const MH_CIGAM_64 = 0xcffaedfe;

export const FAT_MAGIC = 0xcafebabe;

export const FAT_MAGIC_64 = 0xcafebabf;

/** More architectures than any universal file has; Java class versions start at 45 (0x2d). */
export const MAX_FAT_ARCHES = 44;

export const MH_OBJECT = 1;

export const MH_TWOLEVEL = 0x80;

export const CPU_ARCH_ABI64 = 0x01000000;

export const CPU_ARCH_ABI64_32 = 0x02000000;

export const CPU_TYPE_X86 = 7;

export const CPU_TYPE_X86_64 = CPU_TYPE_X86 | CPU_ARCH_ABI64;

export const CPU_TYPE_ARM = 12;

export const CPU_TYPE_ARM64 = CPU_TYPE_ARM | CPU_ARCH_ABI64;

export const CPU_TYPE_ARM64_32 = CPU_TYPE_ARM | CPU_ARCH_ABI64_32;

export const CPU_TYPE_POWERPC = 18;

export const CPU_TYPE_POWERPC64 = CPU_TYPE_POWERPC | CPU_ARCH_ABI64;

export const CPU_SUBTYPE_MASK = 0xff000000;

export const LC_SEGMENT = 0x1;

export const LC_SYMTAB = 0x2;

export const LC_UNIXTHREAD = 0x5;

export const LC_DYSYMTAB = 0xb;

export const LC_LOAD_DYLIB = 0xc;

export const LC_ID_DYLIB = 0xd;

export const LC_LOAD_DYLINKER = 0xe;

export const LC_LOAD_WEAK_DYLIB = 0x80000018;

export const LC_SEGMENT_64 = 0x19;

export const LC_UUID = 0x1b;

export const LC_RPATH = 0x8000001c;

export const LC_REEXPORT_DYLIB = 0x8000001f;

export const LC_LAZY_LOAD_DYLIB = 0x20;

export const LC_DYLD_INFO = 0x22;

export const LC_DYLD_INFO_ONLY = 0x80000022;

export const LC_LOAD_UPWARD_DYLIB = 0x80000023;

export const LC_VERSION_MIN_MACOSX = 0x24;

export const LC_VERSION_MIN_IPHONEOS = 0x25;

export const LC_FUNCTION_STARTS = 0x26;

export const LC_MAIN = 0x80000028;

export const LC_VERSION_MIN_TVOS = 0x2f;

export const LC_VERSION_MIN_WATCHOS = 0x30;

export const LC_BUILD_VERSION = 0x32;

export const LC_DYLD_EXPORTS_TRIE = 0x80000033;

/** Load command names by `cmd`. */
export const LOAD_COMMAND_NAMES: ReadonlyMap<number, string> = new Map([
  [0x1, "LC_SEGMENT"],
  [0x2, "LC_SYMTAB"],
  [0x3, "LC_SYMSEG"],
  [0x4, "LC_THREAD"],
  [0x5, "LC_UNIXTHREAD"],
  [0x6, "LC_LOADFVMLIB"],
  [0x7, "LC_IDFVMLIB"],
  [0x8, "LC_IDENT"],
  [0x9, "LC_FVMFILE"],
  [0xa, "LC_PREPAGE"],
  [0xb, "LC_DYSYMTAB"],
  [0xc, "LC_LOAD_DYLIB"],
  [0xd, "LC_ID_DYLIB"],
  [0xe, "LC_LOAD_DYLINKER"],
  [0xf, "LC_ID_DYLINKER"],
  [0x10, "LC_PREBOUND_DYLIB"],
  [0x11, "LC_ROUTINES"],
  [0x12, "LC_SUB_FRAMEWORK"],
  [0x13, "LC_SUB_UMBRELLA"],
  [0x14, "LC_SUB_CLIENT"],
  [0x15, "LC_SUB_LIBRARY"],
  [0x16, "LC_TWOLEVEL_HINTS"],
  [0x17, "LC_PREBIND_CKSUM"],
  [0x80000018, "LC_LOAD_WEAK_DYLIB"],
  [0x19, "LC_SEGMENT_64"],
  [0x1a, "LC_ROUTINES_64"],
  [0x1b, "LC_UUID"],
  [0x8000001c, "LC_RPATH"],
  [0x1d, "LC_CODE_SIGNATURE"],
  [0x1e, "LC_SEGMENT_SPLIT_INFO"],
  [0x8000001f, "LC_REEXPORT_DYLIB"],
  [0x20, "LC_LAZY_LOAD_DYLIB"],
  [0x21, "LC_ENCRYPTION_INFO"],
  [0x22, "LC_DYLD_INFO"],
  [0x80000022, "LC_DYLD_INFO_ONLY"],
  [0x80000023, "LC_LOAD_UPWARD_DYLIB"],
  [0x24, "LC_VERSION_MIN_MACOSX"],
  [0x25, "LC_VERSION_MIN_IPHONEOS"],
  [0x26, "LC_FUNCTION_STARTS"],
  [0x27, "LC_DYLD_ENVIRONMENT"],
  [0x80000028, "LC_MAIN"],
  [0x29, "LC_DATA_IN_CODE"],
  [0x2a, "LC_SOURCE_VERSION"],
  [0x2b, "LC_DYLIB_CODE_SIGN_DRS"],
  [0x2c, "LC_ENCRYPTION_INFO_64"],
  [0x2d, "LC_LINKER_OPTION"],
  [0x2e, "LC_LINKER_OPTIMIZATION_HINT"],
  [0x2f, "LC_VERSION_MIN_TVOS"],
  [0x30, "LC_VERSION_MIN_WATCHOS"],
  [0x31, "LC_NOTE"],
  [0x32, "LC_BUILD_VERSION"],
  [0x80000033, "LC_DYLD_EXPORTS_TRIE"],
  [0x80000034, "LC_DYLD_CHAINED_FIXUPS"],
  [0x80000035, "LC_FILESET_ENTRY"],
  [0x36, "LC_ATOM_INFO"],
]);

/** File types by `filetype`. */
export const FILE_TYPES: readonly MachOFileType[] = [
  "unknown",
  "object",
  "execute",
  "fvmlib",
  "core",
  "preload",
  "dylib",
  "dylinker",
  "bundle",
  "dylib-stub",
  "dsym",
  "kext-bundle",
  "fileset",
];

/** `mh_flags` bit names, by bit position. */
export const HEADER_FLAG_NAMES: readonly string[] = [
  "MH_NOUNDEFS",
  "MH_INCRLINK",
  "MH_DYLDLINK",
  "MH_BINDATLOAD",
  "MH_PREBOUND",
  "MH_SPLIT_SEGS",
  "MH_LAZY_INIT",
  "MH_TWOLEVEL",
  "MH_FORCE_FLAT",
  "MH_NOMULTIDEFS",
  "MH_NOFIXPREBINDING",
  "MH_PREBINDABLE",
  "MH_ALLMODSBOUND",
  "MH_SUBSECTIONS_VIA_SYMBOLS",
  "MH_CANONICAL",
  "MH_WEAK_DEFINES",
  "MH_BINDS_TO_WEAK",
  "MH_ALLOW_STACK_EXECUTION",
  "MH_ROOT_SAFE",
  "MH_SETUID_SAFE",
  "MH_NO_REEXPORTED_DYLIBS",
  "MH_PIE",
  "MH_DEAD_STRIPPABLE_DYLIB",
  "MH_HAS_TLV_DESCRIPTORS",
  "MH_NO_HEAP_EXECUTION",
  "MH_APP_EXTENSION_SAFE",
  "MH_NLIST_OUTOFSYNC_WITH_DYLDINFO",
  "MH_SIM_SUPPORT",
];

export const MH_DYLIB_IN_CACHE = 0x80000000;

/** Platform names by `LC_BUILD_VERSION` platform number. */
export const PLATFORM_NAMES: readonly string[] = [
  "unknown",
  "macos",
  "ios",
  "tvos",
  "watchos",
  "bridgeos",
  "maccatalyst",
  "iossimulator",
  "tvossimulator",
  "watchossimulator",
  "driverkit",
  "visionos",
  "visionossimulator",
];

/** ARM CPU subtype names. */
export const ARM_SUBTYPES: ReadonlyMap<number, string> = new Map([
  [5, "armv4t"],
  [6, "armv6"],
  [7, "armv5"],
  [8, "xscale"],
  [9, "armv7"],
  [10, "armv7f"],
  [11, "armv7s"],
  [12, "armv7k"],
  [13, "armv8"],
  [14, "armv6m"],
  [15, "armv7m"],
  [16, "armv7em"],
]);

export const VM_PROT_READ = 1;

export const VM_PROT_WRITE = 2;

export const VM_PROT_EXECUTE = 4;

export const SECTION_TYPE = 0xff;

export const S_ZEROFILL = 0x1;

export const S_NON_LAZY_SYMBOL_POINTERS = 0x6;

export const S_LAZY_SYMBOL_POINTERS = 0x7;

export const S_SYMBOL_STUBS = 0x8;

export const S_GB_ZEROFILL = 0xc;

export const S_LAZY_DYLIB_SYMBOL_POINTERS = 0x10;

export const S_THREAD_LOCAL_ZEROFILL = 0x12;

export const S_ATTR_PURE_INSTRUCTIONS = 0x80000000;

export const S_ATTR_SOME_INSTRUCTIONS = 0x400;

export const N_STAB = 0xe0;

export const N_PEXT = 0x10;

export const N_TYPE = 0x0e;

export const N_EXT = 0x01;

export const N_UNDF = 0x0;

export const N_ABS = 0x2;

export const N_INDR = 0xa;

export const N_PBUD = 0xc;

export const N_SECT = 0xe;

export const N_WEAK_REF = 0x40;

export const INDIRECT_SYMBOL_LOCAL = 0x80000000;

export const INDIRECT_SYMBOL_ABS = 0x40000000;

export const EXPORT_SYMBOL_FLAGS_KIND_MASK = 0x3;

export const EXPORT_SYMBOL_FLAGS_KIND_ABSOLUTE = 0x2;

export const EXPORT_SYMBOL_FLAGS_WEAK_DEFINITION = 0x4;

export const EXPORT_SYMBOL_FLAGS_REEXPORT = 0x8;

export const EXPORT_SYMBOL_FLAGS_STUB_AND_RESOLVER = 0x10;

/** Export kinds by `EXPORT_SYMBOL_FLAGS_KIND_*` value. */
export const EXPORT_KINDS: readonly MachOExport["kind"][] = [
  "regular",
  "thread-local",
  "absolute",
  "unknown",
];

/** Longest ULEB128 read, in bytes (enough for 64 bits). */
export const MAX_ULEB_BYTES = 10;

/** Deepest path through the exports trie that is followed. */
export const MAX_TRIE_DEPTH = 512;

/** Longest symbol, edge or path name read, in bytes; longer ones are cut with a warning. */
export const MAX_NAME_BYTES = 65536;

/** Most warnings kept per slice; the rest are counted in a final warning. */
export const MAX_WARNINGS = 100;
