/**
 * The numbers of the PE/COFF format this reader needs: header sizes and
 * magic numbers, section flags, data directory indexes, machine types, and
 * the names of machines, subsystems, directories and debug entry types.
 *
 * @module
 */

import type { Architecture } from "../binary_image.ts";

/** Bytes of the DOS header, and the offset of its `e_lfanew` (where the PE signature is). */
export const DOS_HEADER_SIZE = 64;
export const E_LFANEW = 0x3c;

/** Bytes of the COFF file header, of one section header and of one COFF symbol record. */
export const COFF_HEADER_SIZE = 20;
export const SECTION_HEADER_SIZE = 40;
export const SYMBOL_SIZE = 18;

/** Optional header magic numbers. */
export const PE32_MAGIC = 0x10b;
export const PE32_PLUS_MAGIC = 0x20b;

/** Optional header bytes up to and including NumberOfRvaAndSizes (PE32, PE32+). */
export const PE32_FIXED = 96;
export const PE32_PLUS_FIXED = 112;

/** Data directories the format defines. */
export const MAX_DIRECTORIES = 16;

/** COFF characteristics flag of a DLL. */
export const IMAGE_FILE_DLL = 0x2000;

/** Section characteristics: code, executable, readable, writable. */
export const IMAGE_SCN_CNT_CODE = 0x20;
export const IMAGE_SCN_MEM_EXECUTE = 0x20000000;
export const IMAGE_SCN_MEM_READ = 0x40000000;
export const IMAGE_SCN_MEM_WRITE = 0x80000000;

/** Data directory indexes: export, import, exception (`.pdata`), certificate (its "RVA" a file offset), base relocations, debug, TLS, delay-load import. */
export const DIR_EXPORT = 0;
export const DIR_IMPORT = 1;
export const DIR_EXCEPTION = 3;
export const DIR_CERTIFICATE = 4;
export const DIR_BASERELOC = 5;
export const DIR_DEBUG = 6;
export const DIR_TLS = 9;
export const DIR_DELAY_IMPORT = 13;

/** Debug directory entry type of a CodeView record. */
export const IMAGE_DEBUG_TYPE_CODEVIEW = 2;

/** UNWIND_INFO flag: the unwind data ends with a chained RUNTIME_FUNCTION. */
export const UNW_FLAG_CHAININFO = 0x4;

/** Bytes of an import descriptor, a delay-load descriptor, the export directory, a debug entry. */
export const IMPORT_DESCRIPTOR_SIZE = 20;
export const DELAY_DESCRIPTOR_SIZE = 32;
export const EXPORT_DIRECTORY_SIZE = 40;
export const DEBUG_ENTRY_SIZE = 28;

/** Machine types: i386, x64, ARM64 and its EC and X variants. */
export const MACHINE_I386 = 0x14c;
export const MACHINE_AMD64 = 0x8664;
export const MACHINE_ARM64 = 0xaa64;
export const MACHINE_ARM64EC = 0xa641;
export const MACHINE_ARM64X = 0xa64e;

/** IMAGE_FILE_MACHINE_ARMNT: 32-bit ARM code, which Windows runs as Thumb-2. */
export const MACHINE_ARMNT = 0x1c4;

/** IMAGE_FILE_MACHINE_THUMB. */
export const MACHINE_THUMB = 0x1c2;

/** Names of machine types, as Microsoft's headers spell them (without the prefix). */
export const MACHINE_NAMES: ReadonlyMap<number, string> = new Map([
  [0x0, "UNKNOWN"],
  [0x14c, "i386"],
  [0x162, "R3000"],
  [0x166, "R4000"],
  [0x168, "R10000"],
  [0x169, "WCEMIPSV2"],
  [0x184, "ALPHA"],
  [0x1a2, "SH3"],
  [0x1a3, "SH3DSP"],
  [0x1a6, "SH4"],
  [0x1a8, "SH5"],
  [0x1c0, "ARM"],
  [MACHINE_THUMB, "THUMB"],
  [0x1c4, "ARMNT"],
  [0x1d3, "AM33"],
  [0x1f0, "POWERPC"],
  [0x1f1, "POWERPCFP"],
  [0x200, "IA64"],
  [0x266, "MIPS16"],
  [0x284, "ALPHA64"],
  [0x366, "MIPSFPU"],
  [0x466, "MIPSFPU16"],
  [0xebc, "EBC"],
  [0x5032, "RISCV32"],
  [0x5064, "RISCV64"],
  [0x5128, "RISCV128"],
  [0x6232, "LOONGARCH32"],
  [0x6264, "LOONGARCH64"],
  [0x8664, "AMD64"],
  [0x9041, "M32R"],
  [0xa641, "ARM64EC"],
  [0xa64e, "ARM64X"],
  [0xaa64, "ARM64"],
]);

/** The architecture of each machine type this project disassembles. */
export const ARCHITECTURES: ReadonlyMap<number, Architecture> = new Map([
  [MACHINE_I386, "x86"],
  [MACHINE_AMD64, "x86_64"],
  [MACHINE_ARM64, "arm64"],
  [MACHINE_ARM64EC, "arm64"],
  [MACHINE_ARM64X, "arm64"],
  [MACHINE_ARMNT, "arm"],
  [0x1c0, "arm"],
  [MACHINE_THUMB, "arm"],
]);

/** Names of the optional header's Subsystem values. */
export const SUBSYSTEM_NAMES: ReadonlyMap<number, string> = new Map([
  [0, "UNKNOWN"],
  [1, "NATIVE"],
  [2, "WINDOWS_GUI"],
  [3, "WINDOWS_CUI"],
  [5, "OS2_CUI"],
  [7, "POSIX_CUI"],
  [8, "NATIVE_WINDOWS"],
  [9, "WINDOWS_CE_GUI"],
  [10, "EFI_APPLICATION"],
  [11, "EFI_BOOT_SERVICE_DRIVER"],
  [12, "EFI_RUNTIME_DRIVER"],
  [13, "EFI_ROM"],
  [14, "XBOX"],
  [16, "WINDOWS_BOOT_APPLICATION"],
]);

/** Names of the data directories, by index. */
export const DIRECTORY_NAMES: readonly string[] = [
  "export",
  "import",
  "resource",
  "exception",
  "certificate",
  "base-relocation",
  "debug",
  "architecture",
  "global-pointer",
  "tls",
  "load-config",
  "bound-import",
  "iat",
  "delay-import",
  "clr-runtime",
  "reserved",
];

/** Names of debug directory entry types. */
export const DEBUG_TYPE_NAMES: ReadonlyMap<number, string> = new Map([
  [0, "UNKNOWN"],
  [1, "COFF"],
  [2, "CODEVIEW"],
  [3, "FPO"],
  [4, "MISC"],
  [5, "EXCEPTION"],
  [6, "FIXUP"],
  [7, "OMAP_TO_SRC"],
  [8, "OMAP_FROM_SRC"],
  [9, "BORLAND"],
  [10, "RESERVED10"],
  [11, "CLSID"],
  [12, "VC_FEATURE"],
  [13, "POGO"],
  [14, "ILTCG"],
  [15, "MPX"],
  [16, "REPRO"],
  [17, "EMBEDDED_PORTABLE_PDB"],
  [19, "PDBCHECKSUM"],
  [20, "EX_DLLCHARACTERISTICS"],
]);
