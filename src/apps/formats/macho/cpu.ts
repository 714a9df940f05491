/**
 * CPU types and subtypes: their names and the architectures this project
 * disassembles.
 *
 * @module
 */

import type { Architecture } from "../binary_image.ts";
import { hex } from "./_util.ts";
import {
  ARM_SUBTYPES,
  CPU_ARCH_ABI64,
  CPU_ARCH_ABI64_32,
  CPU_SUBTYPE_MASK,
  CPU_TYPE_ARM,
  CPU_TYPE_ARM64,
  CPU_TYPE_ARM64_32,
  CPU_TYPE_POWERPC,
  CPU_TYPE_POWERPC64,
  CPU_TYPE_X86,
  CPU_TYPE_X86_64,
} from "./constants.ts";

/** A CPU type and subtype as `lipo` names them (`x86_64`, `arm64e`, …). */
export function cpuName(cputype: number, cpusubtype: number): string {
  const sub = cpusubtype & 0x00ffffff;
  switch (cputype) {
    case CPU_TYPE_X86:
      return "i386";
    case CPU_TYPE_X86_64:
      return sub === 8 ? "x86_64h" : "x86_64";
    case CPU_TYPE_ARM:
      return ARM_SUBTYPES.get(sub) ?? "arm";
    case CPU_TYPE_ARM64:
      return sub === 2 ? "arm64e" : "arm64";
    case CPU_TYPE_ARM64_32:
      return "arm64_32";
    case CPU_TYPE_POWERPC:
      return "ppc";
    case CPU_TYPE_POWERPC64:
      return "ppc64";
    default:
      return `cpu-${hex(cputype >>> 0)}`;
  }
}

/** The readable name of a CPU type. */
export function machineName(cputype: number): string {
  switch (cputype) {
    case CPU_TYPE_X86:
      return "CPU_TYPE_X86";
    case CPU_TYPE_X86_64:
      return "CPU_TYPE_X86_64";
    case CPU_TYPE_ARM:
      return "CPU_TYPE_ARM";
    case CPU_TYPE_ARM64:
      return "CPU_TYPE_ARM64";
    case CPU_TYPE_ARM64_32:
      return "CPU_TYPE_ARM64_32";
    case CPU_TYPE_POWERPC:
      return "CPU_TYPE_POWERPC";
    case CPU_TYPE_POWERPC64:
      return "CPU_TYPE_POWERPC64";
    default:
      return `CPU_TYPE_${hex(cputype >>> 0)}`;
  }
}

/** The architecture of a CPU type, as this project names it. */
export function architectureOf(cputype: number): Architecture {
  switch (cputype) {
    case CPU_TYPE_X86:
      return "x86";
    case CPU_TYPE_X86_64:
      return "x86_64";
    case CPU_TYPE_ARM:
      return "arm";
    case CPU_TYPE_ARM64:
    case CPU_TYPE_ARM64_32:
      return "arm64";
    default:
      return "other";
  }
}

/** Whether a CPU type is one a Mach-O file may plausibly hold. */
export function plausibleCpu(cputype: number): boolean {
  const family = cputype & 0x00ffffff;
  const abi = (cputype & CPU_SUBTYPE_MASK) >>> 0;
  return family >= 1 && family <= 24 &&
    (abi === 0 || abi === CPU_ARCH_ABI64 || abi === CPU_ARCH_ABI64_32);
}
