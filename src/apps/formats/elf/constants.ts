/**
 * ELF numbers from the System V gABI and the processor supplements (file
 * types, machines, segment, section, symbol and dynamic tags), and the limits
 * that bound every parse.
 *
 * @module
 */

/** `e_ident`: its size, EI_CLASS and EI_DATA values. */
export const EI_NIDENT = 16;
export const ELFCLASS32 = 1;
export const ELFCLASS64 = 2;
export const ELFDATA2LSB = 1;
export const ELFDATA2MSB = 2;

/** `e_type`. */
export const ET_REL = 1;
export const ET_EXEC = 2;
export const ET_DYN = 3;

/** `e_machine`. */
export const EM_386 = 3;
export const EM_ARM = 40;
export const EM_X86_64 = 62;
export const EM_AARCH64 = 183;

/** `p_type`, and PN_XNUM (e_phnum overflow). */
export const PT_LOAD = 1;
export const PT_DYNAMIC = 2;
export const PT_NOTE = 4;
export const PT_GNU_EH_FRAME = 0x6474e550;
export const PN_XNUM = 0xffff;

/** `sh_type`, `sh_flags`, special section indices. */
export const SHT_PROGBITS = 1;
export const SHT_SYMTAB = 2;
export const SHT_STRTAB = 3;
export const SHT_RELA = 4;
export const SHT_DYNAMIC = 6;
export const SHT_NOTE = 7;
export const SHT_NOBITS = 8;
export const SHT_REL = 9;
export const SHT_DYNSYM = 11;
export const SHT_X86_64_UNWIND = 0x70000001;
/** The ARM exception index table (the same processor-specific value as SHT_X86_64_UNWIND). */
export const SHT_ARM_EXIDX = 0x70000001;
export const SHF_ALLOC = 2n;
export const SHF_EXECINSTR = 4n;
export const SHN_UNDEF = 0;
/** Section indices from here up are reserved (SHN_ABS, SHN_COMMON, SHN_XINDEX, …). */
export const SHN_LORESERVE = 0xff00;
export const SHN_ABS = 0xfff1;
export const SHN_XINDEX = 0xffff;

/** `ELF_ST_TYPE`. */
export const STT_NOTYPE = 0;
export const STT_FUNC = 2;
export const STT_GNU_IFUNC = 10;

/** `d_tag`. */
export const DT_NULL = 0;
export const DT_NEEDED = 1;
export const DT_PLTRELSZ = 2;
export const DT_PLTGOT = 3;
export const DT_HASH = 4;
export const DT_STRTAB = 5;
export const DT_SYMTAB = 6;
export const DT_RELA = 7;
export const DT_RELASZ = 8;
export const DT_RELAENT = 9;
export const DT_STRSZ = 10;
export const DT_SYMENT = 11;
export const DT_INIT = 12;
export const DT_FINI = 13;
export const DT_SONAME = 14;
export const DT_RPATH = 15;
export const DT_REL = 17;
export const DT_RELSZ = 18;
export const DT_RELENT = 19;
export const DT_PLTREL = 20;
export const DT_JMPREL = 23;
export const DT_INIT_ARRAY = 25;
export const DT_FINI_ARRAY = 26;
export const DT_INIT_ARRAYSZ = 27;
export const DT_FINI_ARRAYSZ = 28;
export const DT_RUNPATH = 29;
export const DT_PREINIT_ARRAY = 32;
export const DT_PREINIT_ARRAYSZ = 33;
export const DT_FLAGS = 30;
export const DT_FLAGS_1 = 0x6ffffffb;
export const DT_GNU_HASH = 0x6ffffef5;
export const DT_VERSYM = 0x6ffffff0;
export const DT_VERDEF = 0x6ffffffc;
export const DT_VERDEFNUM = 0x6ffffffd;
export const DT_VERNEED = 0x6ffffffe;
export const DT_VERNEEDNUM = 0x6fffffff;
export const SHT_GNU_VERDEF = 0x6ffffffd;
export const SHT_GNU_VERNEED = 0x6ffffffe;
export const SHT_GNU_VERSYM = 0x6fffffff;

/** Longest symbol or section name read, in bytes; longer ones are cut with a warning. */
export const MAX_NAME_BYTES = 65536;

/** Most warnings kept; the rest are counted in a final warning. */
export const MAX_WARNINGS = 100;

/** String-table bytes decoded per parse, at most this many times the file size (plus 1 MiB). */
export const STRING_BUDGET_FACTOR = 4;
