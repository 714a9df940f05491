/**
 * The capture plan: the operator-policy and Deno-grant layers of approval,
 * evaluated against real paths, and the exact thing that will run. The plan
 * pins the executable's real path, identity (device, inode, size, mtime) and
 * SHA-256; {@linkcode recheckPlan} repeats every resolution immediately
 * before launch, so a symlink swapped (or a file replaced) after planning is
 * detected and refused.
 *
 * Requires `--allow-read` on the executable, the working directory and the
 * filesystem roots.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { basename, normalize } from "node:path";
import { ToolFailure } from "../../core/errors.ts";
import { isGranted, permissionFailure } from "../../core/permissions.ts";
import { checkLoaderVariables } from "./readiness.ts";
import type { CapturePolicySettings } from "./settings.ts";
import type { CaptureRequest } from "./request.ts";

/** A path as requested and as resolved. */
export interface ResolvedPath {
  requested: string;
  realPath: string;
}

/** The executable's pinned identity. */
export interface ExecutableIdentity extends ResolvedPath {
  sha256: string;
  size: number;
  dev: number | null;
  ino: number | null;
  mtimeMs: number | null;
}

/** What will run, once every layer agrees. */
export interface CapturePlan {
  request: CaptureRequest;
  executable: ExecutableIdentity;
  workingDirectory: ResolvedPath;
  filesystemRoots: ResolvedPath[];
  /** The library_path directories, resolved (each inside a capture root). */
  libraryPath: ResolvedPath[];
  /** Names set explicitly, inherited, and set by the capture itself; sorted. */
  environmentNames: string[];
}

/** The names the capture sets itself. */
export const CAPTURE_ENV_NAMES = ["HOME", "REA_PROCESS_RUN_ID", "TERM"];
/** PATH given to the program when the request neither sets nor inherits one. */
export const DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin";

/**
 * Checks the operator policy (lexically, then on real paths) and the Deno
 * grants, and pins the executable. Throws `permission_required` naming the
 * missing layer and the flag that grants it; nothing is started.
 */
export async function planCapture(
  request: CaptureRequest,
  policy: Readonly<CapturePolicySettings>,
): Promise<CapturePlan> {
  const grantFlags = "--allow-capture PATH and --capture-root DIR (or --capture-policy FILE)";
  if (policy.executables.length === 0 || policy.roots.length === 0) {
    throw refused(
      "Process capture is not configured by the operator: no executable or no capture root is allowed.",
      `Ask the operator to restart the server with ${grantFlags}.`,
    );
  }
  if (request.network_access === "host" && !policy.allowHostNetwork) {
    throw refused(
      "The operator policy does not allow captures on the host network (network_access host).",
      'Use network_access "none", or ask the operator to restart the server with --capture-allow-network.',
    );
  }
  const executables = policy.executables;
  const roots = policy.roots;
  // Lexical checks on normalised paths first (so /root/../x is judged as /x), real paths later.
  if (!executables.some((entry) => within(normalize(request.executable), entry))) {
    throw refused(
      `The operator policy does not allow running ${request.executable}.`,
      `Ask the operator to restart the server with --allow-capture ${request.executable}.`,
    );
  }
  if (!roots.some((root) => within(normalize(request.working_directory), root))) {
    throw refused(
      `The working directory ${request.working_directory} is outside every capture root.`,
      `Choose a directory inside ${
        roots.join(", ")
      }, or ask the operator to add --capture-root DIR.`,
      "outside_approved_root",
    );
  }
  const names = [...Object.keys(request.environment), ...request.inherit_environment];
  for (const name of names) {
    if (!policy.environment.includes(name)) {
      throw refused(
        `The operator policy does not allow the environment variable ${name}.`,
        `Leave it out, or ask the operator to restart the server with --capture-env ${name}.`,
      );
    }
  }
  for (const root of request.filesystem_roots) {
    if (!roots.some((r) => within(normalize(root), r))) {
      throw refused(
        `The filesystem root ${root} is outside every capture root.`,
        `Choose roots inside ${roots.join(", ")}.`,
        "outside_approved_root",
      );
    }
  }
  for (const dir of request.library_path) {
    if (!roots.some((r) => within(normalize(dir), r))) {
      throw refused(
        `The library_path directory ${dir} is outside every capture root.`,
        `Choose library directories inside ${
          roots.join(", ")
        }, or ask the operator to add --capture-root DIR.`,
        "outside_approved_root",
      );
    }
  }
  checkLoaderVariables(names);
  const resolved = await resolveAll(request);
  const realExecutables = await realPaths(executables);
  const realRoots = await realPaths(roots);
  if (!realExecutables.some((entry) => within(resolved.executable.realPath, entry))) {
    throw refused(
      `${request.executable} resolves to ${resolved.executable.realPath}, which the operator policy does not allow.`,
      `Ask the operator to allow the real path with --allow-capture ${resolved.executable.realPath}.`,
    );
  }
  for (
    const path of [resolved.workingDirectory, ...resolved.filesystemRoots, ...resolved.libraryPath]
  ) {
    if (!realRoots.some((root) => within(path.realPath, root))) {
      throw refused(
        `${path.requested} resolves to ${path.realPath}, outside every capture root.`,
        "Choose a directory whose real path lies inside a capture root.",
        "outside_approved_root",
      );
    }
  }
  if (
    !isGranted("run", request.executable) && !isGranted("run", resolved.executable.realPath)
  ) {
    throw refused(
      `Deno does not grant running ${resolved.executable.realPath}.`,
      `Ask the operator to restart the server with --allow-run=${resolved.executable.realPath} (besides the capture policy).`,
      "permission_required",
      { flag: `--allow-run=${resolved.executable.realPath}`, layer: "deno_allow_run" },
    );
  }
  for (const name of request.inherit_environment) {
    if (!isGranted("env", name)) {
      throw refused(
        `Deno does not grant reading the environment variable ${name}, so it cannot be inherited.`,
        `Ask the operator to restart the server with --allow-env=${name}, or set it in environment.`,
        "permission_required",
        { flag: `--allow-env=${name}`, layer: "deno_allow_env" },
      );
    }
  }
  const identity = await identify(resolved.executable);
  return {
    request,
    executable: identity,
    workingDirectory: resolved.workingDirectory,
    filesystemRoots: resolved.filesystemRoots,
    libraryPath: resolved.libraryPath,
    environmentNames: [
      ...new Set([
        ...names,
        ...CAPTURE_ENV_NAMES,
        "PATH",
        ...(resolved.libraryPath.length > 0 ? ["LD_LIBRARY_PATH"] : []),
      ]),
    ].sort(),
  };
}

/**
 * Repeats every resolution of the plan right before launch. Throws
 * `plan_stale` when the executable's real path, identity or digest, or a
 * directory's real path, changed since planning.
 */
export async function recheckPlan(plan: CapturePlan): Promise<void> {
  const now = await resolveAll(plan.request);
  const stale = (what: string): never => {
    throw new ToolFailure(
      "plan_stale",
      `The capture plan is stale: ${what} changed after planning, so nothing was run.`,
      { action: "Check the paths, then call capture_process_scenario again." },
    );
  };
  if (now.executable.realPath !== plan.executable.realPath) {
    stale(
      `${plan.request.executable} now resolves to ${now.executable.realPath}, not ${plan.executable.realPath}`,
    );
  }
  const identity = await identify(now.executable);
  if (
    identity.dev !== plan.executable.dev || identity.ino !== plan.executable.ino ||
    identity.size !== plan.executable.size || identity.mtimeMs !== plan.executable.mtimeMs ||
    identity.sha256 !== plan.executable.sha256
  ) {
    stale(`the file at ${plan.executable.realPath}`);
  }
  if (now.workingDirectory.realPath !== plan.workingDirectory.realPath) {
    stale(`the working directory ${plan.request.working_directory}`);
  }
  now.filesystemRoots.forEach((root, i) => {
    if (root.realPath !== plan.filesystemRoots[i]?.realPath) {
      stale(`the filesystem root ${root.requested}`);
    }
  });
  now.libraryPath.forEach((dir, i) => {
    if (dir.realPath !== plan.libraryPath[i]?.realPath) {
      stale(`the library_path directory ${dir.requested}`);
    }
  });
}

/** A human-readable statement of exactly what will run (for a confirmation form). */
export function describePlan(plan: CapturePlan): string {
  const r = plan.request;
  const lines = [
    `Run ${plan.executable.realPath} (sha256 ${plan.executable.sha256.slice(0, 16)}…)` +
    (plan.executable.requested !== plan.executable.realPath
      ? `, requested as ${plan.executable.requested}`
      : ""),
    `Arguments (${r.arguments.length}): ${JSON.stringify(r.arguments).slice(0, 2000)}`,
    `Working directory: ${plan.workingDirectory.realPath}`,
    `Filesystem roots snapshotted: ${
      [plan.workingDirectory, ...plan.filesystemRoots].map((p) => p.realPath).join(", ")
    }`,
    `Environment names (values not shown): ${plan.environmentNames.join(", ")}`,
    `Network: ${
      r.network_access === "none" ? "a private namespace with no network" : "the host's network"
    }`,
    `Scripted events: ${r.events.length}; stdin closes after the last input`,
    `Limits: ${r.timeout_ms} ms wall clock, ${r.idle_timeout_ms} ms idle, ${r.limits.output_bytes} bytes per stream, ${r.limits.processes} processes`,
    `Resource limits (prlimit, every process of the run): ${describeResourceLimits(r)}`,
    ...(plan.libraryPath.length > 0
      ? [`Library path (LD_LIBRARY_PATH): ${plan.libraryPath.map((p) => p.realPath).join(":")}`]
      : []),
    "Cleanup: every process of the run is ended (SIGTERM, then SIGKILL) and verified gone.",
    "The program runs with this server's user permissions: a capture is not a sandbox.",
  ];
  return lines.join("\n");
}

/** The requested rlimits in words ("none" when the request sets none). */
export function describeResourceLimits(request: CaptureRequest): string {
  const limits = request.resource_limits;
  const parts = [
    limits.address_space_bytes !== undefined
      ? `address space ${limits.address_space_bytes} bytes (RLIMIT_AS)`
      : null,
    limits.cpu_seconds !== undefined ? `CPU time ${limits.cpu_seconds} s (RLIMIT_CPU)` : null,
    limits.file_size_bytes !== undefined
      ? `file size ${limits.file_size_bytes} bytes (RLIMIT_FSIZE)`
      : null,
    limits.open_files !== undefined ? `open files ${limits.open_files} (RLIMIT_NOFILE)` : null,
  ].filter((p): p is string => p !== null);
  return parts.length > 0 ? parts.join(", ") : "none";
}

/** The secret-free basename of the executable. */
export function executableName(plan: CapturePlan): string {
  return basename(plan.executable.realPath);
}

/** Whether `path` is `root` or lies below it (both absolute, normalised). */
export function within(path: string, root: string): boolean {
  const trimmed = root.length > 1 ? root.replace(/\/+$/, "") : root;
  return path === trimmed || path.startsWith(trimmed === "/" ? "/" : `${trimmed}/`);
}

async function resolveAll(request: CaptureRequest): Promise<{
  executable: ResolvedPath;
  workingDirectory: ResolvedPath;
  filesystemRoots: ResolvedPath[];
  libraryPath: ResolvedPath[];
}> {
  const executable = await resolveOne(request.executable, "executable");
  const workingDirectory = await resolveOne(request.working_directory, "working directory");
  const filesystemRoots = [];
  for (const root of request.filesystem_roots) {
    filesystemRoots.push(await resolveOne(root, "filesystem root"));
  }
  const libraryPath = [];
  for (const dir of request.library_path) {
    libraryPath.push(await resolveOne(dir, "library_path directory"));
  }
  for (const dir of [workingDirectory, ...filesystemRoots, ...libraryPath]) {
    const info = await Deno.stat(dir.realPath);
    if (!info.isDirectory) {
      throw new ToolFailure("invalid_request", `${dir.requested} is not a directory.`);
    }
  }
  return { executable, workingDirectory, filesystemRoots, libraryPath };
}

async function resolveOne(path: string, what: string): Promise<ResolvedPath> {
  try {
    return { requested: path, realPath: await Deno.realPath(path) };
  } catch (error) {
    const permission = permissionFailure(error);
    if (permission) throw permission;
    if (error instanceof Deno.errors.NotFound) {
      throw new ToolFailure("invalid_request", `The ${what} ${path} does not exist.`);
    }
    throw new ToolFailure("invalid_request", `Cannot resolve the ${what} ${path}: ${error}`);
  }
}

async function realPaths(entries: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const entry of entries) {
    try {
      out.push(await Deno.realPath(entry));
    } catch {
      // A policy entry that does not resolve admits nothing.
    }
  }
  return out;
}

async function identify(path: ResolvedPath): Promise<ExecutableIdentity> {
  const info = await Deno.stat(path.realPath);
  if (!info.isFile) {
    throw new ToolFailure("invalid_request", `${path.requested} is not a regular file.`);
  }
  if (((info.mode ?? 0) & 0o111) === 0) {
    throw new ToolFailure("invalid_request", `${path.requested} is not executable.`);
  }
  const hash = createHash("sha256");
  const file = await Deno.open(path.realPath, { read: true });
  try {
    const buffer = new Uint8Array(1 << 20);
    for (;;) {
      const n = await file.read(buffer);
      if (n === null) break;
      hash.update(buffer.subarray(0, n));
    }
  } finally {
    file.close();
  }
  return {
    ...path,
    sha256: hash.digest("hex"),
    size: info.size,
    dev: info.dev ?? null,
    ino: info.ino ?? null,
    mtimeMs: info.mtime?.getTime() ?? null,
  };
}

function refused(
  message: string,
  action: string,
  code: "permission_required" | "outside_approved_root" = "permission_required",
  details: Record<string, unknown> = { layer: "operator_policy" },
): ToolFailure {
  return new ToolFailure(code, `${message} Nothing was run.`, {
    action,
    restartRequired: code === "permission_required" && !action.startsWith("Use"),
    details: code === "outside_approved_root" ? { layer: "operator_policy" } : details,
  });
}
