/**
 * What this host offers a process capture: the helper programs (found and
 * granted), whether a private network namespace can be made (`unshare -n`,
 * probed by running it), and whether a pids cgroup can be created to cap the
 * process count. Probes that start processes run only from a capture that
 * every approval layer has already allowed.
 *
 * Deno refuses `/proc` and `/sys` short of `--allow-all`, so both are read
 * (and the cgroup written) through `sh`. Requires `--allow-run` for `sh`,
 * `setsid` and (unless the grant is unrestricted) `kill`; optionally
 * `strace`, `unshare`, `gdb`, `prlimit`; root for the pids cgroup and the
 * network namespace.
 *
 * @module
 */

import { isGranted } from "../../core/permissions.ts";

/** Helper programs a capture may use. */
export const HELPERS = [
  "sh",
  "setsid",
  "kill",
  "strace",
  "unshare",
  "gdb",
  "prlimit",
  "env",
] as const;
/** One helper's name. */
export type HelperName = typeof HELPERS[number];

/** The PATH helpers are looked up in (never the target's PATH). */
export const HELPER_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** Where cgroup pids controllers may be mounted (v1 hierarchy, then the v2 root). */
const CGROUP_CANDIDATES = ["/sys/fs/cgroup/pids", "/sys/fs/cgroup"];

/** One helper: found (absolute path) and granted. */
export interface HelperFact {
  /** Absolute path found on {@linkcode HELPER_PATH}, or null. */
  path: string | null;
  /** Whether Deno grants running it (`--allow-run=<name>` or unrestricted). */
  granted: boolean;
}

/** Everything a capture needs to know about the host. */
export interface HostFacts {
  platform: string;
  architecture: string;
  /** Effective uid 0. */
  root: boolean;
  helpers: Record<HelperName, HelperFact>;
  /** Deno.kill works (unrestricted --allow-run); otherwise the kill program is used. */
  directKill: boolean;
  /** `unshare -n` ran successfully here. */
  networkNamespace: { available: boolean; reason: string };
  /** A directory in which a per-run pids cgroup can be made, or null with why not. */
  pidsCgroup: { parent: string | null; reason: string };
}

/** Whether the helper is granted by Deno, without finding or running it. */
export function helperGranted(name: HelperName): boolean {
  return isGranted("run", name);
}

let cached: Promise<HostFacts> | null = null;

/**
 * Probes the host once per server process (later calls share the answer).
 * Runs `sh` to find helpers, the uid and a pids cgroup, and `unshare -n true`.
 */
export function hostFacts(): Promise<HostFacts> {
  if (!cached) {
    cached = probe();
    cached.catch(() => (cached = null));
  }
  return cached;
}

async function sh(script: string, args: readonly string[] = []): Promise<string> {
  const out = await new Deno.Command("sh", {
    args: ["-c", script, "casefile-probe", ...args],
    clearEnv: true,
    env: { PATH: HELPER_PATH, LC_ALL: "C" },
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).output();
  return new TextDecoder().decode(out.stdout);
}

async function probe(): Promise<HostFacts> {
  const helpers = Object.fromEntries(
    HELPERS.map((name) => [name, { path: null, granted: helperGranted(name) }]),
  ) as Record<HelperName, HelperFact>;
  let root = false;
  if (helpers.sh.granted) {
    // Programs on disk only (a shell builtin such as kill does not count).
    const find =
      'find() { IFS=:; for d in $PATH; do if [ -f "$d/$1" ] && [ -x "$d/$1" ]; then echo "$d/$1"; return; fi; done; echo -; }';
    const lines = (await sh(`${find}; ${HELPERS.map((n) => `find ${n}`).join("; ")}; id -u`))
      .split("\n");
    HELPERS.forEach((name, i) => {
      const line = lines[i]?.trim() ?? "-";
      helpers[name].path = line.startsWith("/") ? line : null;
    });
    root = lines[HELPERS.length]?.trim() === "0";
  }
  let networkNamespace = { available: false, reason: "" };
  const unshare = helpers.unshare;
  if (!unshare.path) {
    networkNamespace.reason = "unshare (util-linux) is not installed";
  } else if (!unshare.granted) {
    networkNamespace.reason = "Deno does not grant running unshare (--allow-run=unshare)";
  } else if (!root) {
    networkNamespace.reason = "making a network namespace needs root (CAP_SYS_ADMIN)";
  } else {
    const tried = await new Deno.Command("unshare", {
      args: ["-n", "true"],
      clearEnv: true,
      env: { PATH: HELPER_PATH },
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
    networkNamespace = tried.success
      ? { available: true, reason: "unshare -n works on this host" }
      : {
        available: false,
        reason: `unshare -n failed: ${new TextDecoder().decode(tried.stderr).trim().slice(0, 200)}`,
      };
  }
  return {
    platform: Deno.build.os,
    architecture: Deno.build.arch,
    root,
    helpers,
    directKill: isGranted("run"),
    networkNamespace,
    pidsCgroup: root ? await probeCgroup() : { parent: null, reason: "a pids cgroup needs root" },
  };
}

async function probeCgroup(): Promise<{ parent: string | null; reason: string }> {
  const script = 'for p in "$@"; do ' +
    '[ -f "$p/cgroup.procs" ] || continue; ' +
    'if [ "$p" = /sys/fs/cgroup ]; then grep -qw pids "$p/cgroup.subtree_control" 2>/dev/null || continue; fi; ' +
    'd="$p/casefile-probe-$$"; mkdir "$d" 2>/dev/null || continue; ' +
    'ok=; echo 10 > "$d/pids.max" 2>/dev/null && ok=1; rmdir "$d"; ' +
    'if [ -n "$ok" ]; then echo "$p"; exit 0; fi; done';
  const found = (await sh(script, CGROUP_CANDIDATES)).trim();
  return found.startsWith("/")
    ? { parent: found, reason: `a pids cgroup can be made under ${found}` }
    : { parent: null, reason: "no writable pids cgroup on this host" };
}
