/**
 * What process capture still lacks from Deno, worked out without starting
 * anything: the grants of its temporary directory (write to make it, read to
 * resolve it and read back the trace files), of the helper programs, of each
 * program the operator allows, and of the capture roots. Each missing grant
 * comes with the exact flag that gives it. Also the clear message for Deno's
 * refusal to start a program with a loader variable (`LD_*`, `DYLD_*`) in its
 * environment under a narrow `--allow-run`.
 *
 * @module
 */

import { ToolFailure } from "../../core/errors.ts";
import {
  flagFor,
  isGranted,
  isPermissionError,
  type PermissionNeed,
} from "../../core/permissions.ts";
import type { CapturePolicySettings } from "./settings.ts";

/** Where capture makes its `casefile-capture-*` directories unless `TMPDIR` is readable and set. */
export const DEFAULT_CAPTURE_TEMP_BASE = "/tmp";

/** One grant process capture uses. */
export interface CaptureNeed extends PermissionNeed {
  /** Whether capture cannot run at all without it (false: a backend or a feature is lost). */
  required: boolean;
  /** The flag that grants it. */
  flag: string;
}

/** One grant capture lacks. */
export interface CaptureGap {
  /** What is missing, in a few words. */
  what: string;
  /** The flag that grants it. */
  flag: string;
  required: boolean;
}

/**
 * The directory captures make their temporary directories in: `TMPDIR` when
 * Deno grants reading it and it is an absolute path, else `/tmp`.
 */
export function captureTempBase(): string {
  if (isGranted("env", "TMPDIR")) {
    const value = Deno.env.get("TMPDIR");
    if (value && value.startsWith("/")) return value.length > 1 ? value.replace(/\/+$/, "") : value;
  }
  return DEFAULT_CAPTURE_TEMP_BASE;
}

/** Every grant a capture under `policy` uses, required ones first. */
export function captureNeeds(policy: Readonly<CapturePolicySettings>): CaptureNeed[] {
  const temp = captureTempBase();
  const needs: CaptureNeed[] = [];
  const add = (need: PermissionNeed, required: boolean): void => {
    needs.push({ ...need, required, flag: flagFor(need.name, need.target) });
  };
  add(
    { name: "write", target: temp, purpose: "capture: make its casefile-capture-* directory" },
    true,
  );
  add(
    {
      name: "read",
      target: temp,
      purpose: "capture: resolve its directory, read trace and gdb logs",
    },
    true,
  );
  for (const helper of ["sh", "setsid"]) {
    add({ name: "run", target: helper, purpose: `capture: launch through ${helper}` }, true);
  }
  if (!isGranted("run")) {
    add({ name: "run", target: "kill", purpose: "capture: end the run's processes" }, true);
  }
  for (const root of policy.roots) {
    add(
      { name: "read", target: root, purpose: `capture: working directories under ${root}` },
      true,
    );
  }
  // A directory entry allows the programs in it; Deno grants programs one by one, so only
  // entries that are programs can be checked here (planning checks the rest per capture).
  for (const executable of policy.executables.filter(isFile)) {
    add({ name: "run", target: executable, purpose: `capture: run ${executable}` }, true);
  }
  const optional: [string, string][] = [
    ["strace", "files, executions and connections (trace auto/strace)"],
    ["gdb", "crash backtraces (crash_backtrace)"],
    ["prlimit", "resource limits (limits.address_space_bytes and the rest)"],
    ["unshare", 'a private network (network_access "none")'],
  ];
  for (const [helper, gives] of optional) {
    add({ name: "run", target: helper, purpose: `capture: ${gives}` }, false);
  }
  for (const name of policy.environment) {
    if (isLoaderVariable(name)) continue; // set through library_path or an unrestricted --allow-run
    add(
      { name: "env", target: name, purpose: `capture: inherit ${name} (inherit_environment)` },
      false,
    );
  }
  return needs;
}

/** What capture under `policy` lacks right now (queried, never prompted), required first. */
export function captureGaps(policy: Readonly<CapturePolicySettings>): CaptureGap[] {
  const gaps: CaptureGap[] = [];
  for (const need of captureNeeds(policy)) {
    if (isGranted(need.name, need.target)) continue;
    gaps.push({
      what: need.purpose.replace(/^capture: /, ""),
      flag: need.flag,
      required: need.required,
    });
  }
  const loader = policy.environment.filter(isLoaderVariable);
  if (loader.length > 0 && !isGranted("run")) {
    gaps.push({
      what: `setting ${
        loader.join(", ")
      } through environment (Deno refuses loader variables under a narrow --allow-run; library_path sets LD_LIBRARY_PATH without it)`,
      flag: "--allow-run",
      required: false,
    });
  }
  return gaps.sort((a, b) => Number(b.required) - Number(a.required));
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/** Whether `name` is a dynamic-loader variable Deno guards (`LD_*`, `DYLD_*`). */
export function isLoaderVariable(name: string): boolean {
  return /^(LD_|DYLD_)/.test(name);
}

/**
 * Refuses, before anything starts, loader variables Deno would refuse to pass
 * under a narrow `--allow-run` — with a message naming the flag and the
 * narrow alternative (Deno's own message is cut short by our error mapper).
 */
export function checkLoaderVariables(names: readonly string[]): void {
  const loader = names.filter(isLoaderVariable);
  if (loader.length === 0 || isGranted("run")) return;
  throw new ToolFailure(
    "permission_required",
    `Deno starts a program with ${
      loader.join(", ")
    } in its environment only when --allow-run is unrestricted; this server has a narrow --allow-run. Nothing was run.`,
    {
      action: loader.every((n) => n === "LD_LIBRARY_PATH")
        ? "Pass the directories as library_path instead (each inside a capture root; no extra grant), or ask the operator to restart the server with --allow-run (unrestricted)."
        : "Ask the operator to restart the server with --allow-run (unrestricted), or leave the variable out (LD_LIBRARY_PATH: use library_path).",
      restartRequired: true,
      details: { flag: "--allow-run", layer: "deno_allow_run", variables: loader },
    },
  );
}

/**
 * A permission error of capture's own file work, as a tool failure that names
 * the grant; null for any other error.
 */
export function tempDirFailure(error: unknown, base: string): ToolFailure | null {
  if (!isPermissionError(error)) return null;
  const message = error.message;
  const kind = /write access/.test(message) ? "write" : "read";
  const flag = flagFor(kind, base);
  return new ToolFailure(
    "permission_required",
    `Process capture needs to ${
      kind === "write" ? "create" : "read"
    } its temporary directory under ${base}, and Deno does not grant it. Nothing was run.`,
    {
      action: `Ask the operator to restart the server with ${flagFor("write", base)} ${
        flagFor("read", base)
      } (both are needed).`,
      restartRequired: true,
      details: { flag, layer: "deno_temp_dir" },
    },
  );
}
