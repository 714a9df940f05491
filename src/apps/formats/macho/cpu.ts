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

/** Where a thread state keeps the program counter: the state's flavor, the byte offset and width. */
export interface ThreadPcSlot {
  flavor: number;
  offset: number;
  width: 4 | 8;
}

/** What this reader knows of one CPU type. */
interface CpuTypeInfo {
  /** The name `lipo` gives it (subtypes aside). */
  name: string;
  /** The readable name of the constant. */
  machine: string;
  architecture: Architecture;
  pc: ThreadPcSlot;
}

/** ARM_THREAD_STATE64's pc, for both 64-bit ARM types. */
const ARM_THREAD_STATE64_PC: ThreadPcSlot = { flavor: 6, offset: 32 * 8, width: 8 };

/** Each known CPU type: its `lipo` name, its architecture and its thread state's pc slot. */
const CPU_TYPE_ROWS: [number, string, string, Architecture, ThreadPcSlot][] = [
  // x86_THREAD_STATE32: eip
  [CPU_TYPE_X86, "i386", "CPU_TYPE_X86", "x86", { flavor: 1, offset: 10 * 4, width: 4 }],
  // x86_THREAD_STATE64: rip
  [CPU_TYPE_X86_64, "x86_64", "CPU_TYPE_X86_64", "x86_64", { flavor: 4, offset: 16 * 8, width: 8 }],
  // ARM_THREAD_STATE: r15
  [CPU_TYPE_ARM, "arm", "CPU_TYPE_ARM", "arm", { flavor: 1, offset: 15 * 4, width: 4 }],
  [CPU_TYPE_ARM64, "arm64", "CPU_TYPE_ARM64", "arm64", ARM_THREAD_STATE64_PC],
  [CPU_TYPE_ARM64_32, "arm64_32", "CPU_TYPE_ARM64_32", "arm64", ARM_THREAD_STATE64_PC],
  // PPC_THREAD_STATE: srr0
  [CPU_TYPE_POWERPC, "ppc", "CPU_TYPE_POWERPC", "other", { flavor: 1, offset: 0, width: 4 }],
  // PPC_THREAD_STATE64: srr0
  [CPU_TYPE_POWERPC64, "ppc64", "CPU_TYPE_POWERPC64", "other", { flavor: 5, offset: 0, width: 8 }],
];

const CPU_TYPES: ReadonlyMap<number, CpuTypeInfo> = new Map(
  CPU_TYPE_ROWS.map(([cputype, name, machine, architecture, pc]) => [
    cputype,
    { name, machine, architecture, pc },
  ]),
);

/** A CPU type and subtype as `lipo` names them (`x86_64`, `arm64e`, …). */
export function cpuName(cputype: number, cpusubtype: number): string {
  const sub = cpusubtype & 0x00ffffff;
  if (cputype === CPU_TYPE_X86_64 && sub === 8) return "x86_64h";
  if (cputype === CPU_TYPE_ARM64 && sub === 2) return "arm64e";
  if (cputype === CPU_TYPE_ARM) return ARM_SUBTYPES.get(sub) ?? "arm";
  return CPU_TYPES.get(cputype)?.name ?? `cpu-${hex(cputype >>> 0)}`;
}

/** The readable name of a CPU type. */
export function machineName(cputype: number): string {
  return CPU_TYPES.get(cputype)?.machine ?? `CPU_TYPE_${hex(cputype >>> 0)}`;
}

/** The architecture of a CPU type, as this project names it. */
export function architectureOf(cputype: number): Architecture {
  return CPU_TYPES.get(cputype)?.architecture ?? "other";
}

/** Where a CPU type's thread state keeps the program counter; null for a type this reader does not know. */
export function threadPcSlot(cputype: number): ThreadPcSlot | null {
  return CPU_TYPES.get(cputype)?.pc ?? null;
}

/** Whether a CPU type is one a Mach-O file may plausibly hold. */
export function plausibleCpu(cputype: number): boolean {
  const family = cputype & 0x00ffffff;
  const abi = (cputype & CPU_SUBTYPE_MASK) >>> 0;
  return family >= 1 && family <= 24 &&
    (abi === 0 || abi === CPU_ARCH_ABI64 || abi === CPU_ARCH_ABI64_32);
}
