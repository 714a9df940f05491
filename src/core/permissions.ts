/**
 * Deno permission probing (never prompting) and the translation of
 * `Deno.errors.NotCapable` into a tool error that names the missing flag.
 *
 * @module
 */

import { ToolFailure } from "./errors.ts";

/** A permission the server may use. */
export interface PermissionNeed {
  name: "read" | "write" | "run" | "net" | "env";
  /** The path, program, host or variable; omitted for a blanket grant. */
  target?: string;
  /** What it enables, in a few words. */
  purpose: string;
}

/** A probed permission. */
export interface PermissionStatus extends PermissionNeed {
  /** `not_granted`: neither granted nor denied; under `--no-prompt` it is refused. */
  state: "granted" | "denied" | "not_granted";
  /** The flag that grants it. */
  flag: string;
}

/** The flag that grants a permission. */
export function flagFor(name: PermissionNeed["name"], target?: string): string {
  return target ? `--allow-${name}=${target}` : `--allow-${name}`;
}

/** Queries each need without prompting (`Deno.permissions.querySync`). */
export function probePermissions(needs: readonly PermissionNeed[]): PermissionStatus[] {
  return needs.map((need) => {
    let state: PermissionStatus["state"] = "denied";
    try {
      const queried = Deno.permissions.querySync(descriptorFor(need)).state;
      state = queried === "prompt" ? "not_granted" : queried;
    } catch {
      state = "denied";
    }
    return { ...need, state, flag: flagFor(need.name, need.target) };
  });
}

/** Whether a single permission is granted right now, without prompting. */
export function isGranted(name: PermissionNeed["name"], target?: string): boolean {
  try {
    return Deno.permissions.querySync(descriptorFor({ name, target, purpose: "" })).state ===
      "granted";
  } catch {
    return false;
  }
}

function descriptorFor(need: PermissionNeed): Deno.PermissionDescriptor {
  switch (need.name) {
    case "read":
      return need.target ? { name: "read", path: need.target } : { name: "read" };
    case "write":
      return need.target ? { name: "write", path: need.target } : { name: "write" };
    case "run":
      return need.target ? { name: "run", command: need.target } : { name: "run" };
    case "net":
      return need.target ? { name: "net", host: need.target } : { name: "net" };
    case "env":
      return need.target ? { name: "env", variable: need.target } : { name: "env" };
  }
}

const REQUIRES = /Requires (\w+) access to "?([^",]*)"?/;
const LOADER_VARIABLE =
  /Requires --allow-run permissions to spawn subprocess with (\S+) environment/;

/** Whether `error` is Deno's refusal of a permission (`NotCapable`, or `PermissionDenied`). */
export function isPermissionError(error: unknown): error is Error {
  const notCapable = (Deno.errors as Record<string, unknown>).NotCapable as
    | (new (...args: unknown[]) => Error)
    | undefined;
  return (notCapable !== undefined && error instanceof notCapable) ||
    error instanceof Deno.errors.PermissionDenied;
}

/**
 * Turns a permission error (`Deno.errors.NotCapable`, or `PermissionDenied`)
 * into a tool failure naming the flag that would allow it (`preferredFlag`
 * when the caller knows a better grant, such as a whole root); null for any
 * other error.
 */
export function permissionFailure(error: unknown, preferredFlag?: string): ToolFailure | null {
  if (!isPermissionError(error)) return null;
  const message = error.message;
  // Deno's refusal of a loader variable (LD_*, DYLD_*) under a narrow --allow-run names no
  // permission in the usual form; say it whole.
  const loader = LOADER_VARIABLE.exec(message);
  if (loader) {
    const flag = preferredFlag ?? "--allow-run";
    return new ToolFailure(
      "permission_required",
      `Deno refuses to start a program with ${
        loader[1]
      } in its environment unless --allow-run is unrestricted.`,
      {
        action: `Restart the server with ${flag}, or start the program without ${loader[1]}.`,
        restartRequired: true,
        details: { flag },
      },
    );
  }
  const found = REQUIRES.exec(message);
  const name = found?.[1];
  const target = found?.[2];
  const flag = preferredFlag ??
    (name ? flagFor(name as PermissionNeed["name"], target || undefined) : "--allow-…");
  return new ToolFailure(
    "permission_required",
    `The server lacks a Deno permission: ${message.split(",")[0]}.`,
    {
      action: `Restart the server with ${flag} (or a wider grant that covers it).`,
      restartRequired: true,
      details: { flag },
    },
  );
}
