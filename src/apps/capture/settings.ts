/**
 * The operator's process-capture policy: which executables, roots and
 * environment names captures may use, from the capture flags or a
 * `--capture-policy` JSON file.
 *
 * @module
 */

import { normalize } from "node:path";

/**
 * The operator's process-capture policy (from `--allow-capture`, `--capture-root`,
 * `--capture-env`, `--capture-allow-network`, `--confirm-captures` or `--capture-policy`).
 * `--allow-process-launch` stays the master switch.
 */
export interface CapturePolicySettings {
  /** Absolute paths of executables, or of directories whose files, captures may run. @default [] */
  executables: string[];
  /** Directories working directories and filesystem roots must lie in. @default [] */
  roots: string[];
  /** Environment variable names a capture may set or inherit. @default [] */
  environment: string[];
  /** Whether a capture may use the host's network instead of a private namespace. @default false */
  allowHostNetwork: boolean;
  /** Whether every capture needs a human's confirmation of the exact plan. @default false */
  requireHumanConfirmation: boolean;
}

/** The policy that allows nothing. */
export function emptyCapturePolicy(): CapturePolicySettings {
  return {
    executables: [],
    roots: [],
    environment: [],
    allowHostNetwork: false,
    requireHumanConfirmation: false,
  };
}

/** A capture flag or policy file the parser refuses. */
export class CapturePolicyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CapturePolicyError";
  }
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const POLICY_KEYS = [
  "executables",
  "roots",
  "environment",
  "allow_host_network",
  "require_human_confirmation",
];

/**
 * The operator capture policy from the capture flags and `--capture-policy FILE`
 * (lists merged, booleans or-ed); undefined when no capture flag is given.
 * Throws {@linkcode CapturePolicyError} on a bad value.
 *
 * Requires `--allow-read` for the policy file.
 */
export function parseCapturePolicy(values: {
  "allow-capture"?: string[];
  "capture-root"?: string[];
  "capture-env"?: string[];
  "capture-allow-network"?: boolean;
  "confirm-captures"?: boolean;
  "capture-policy"?: string;
}): CapturePolicySettings | undefined {
  const policy: CapturePolicySettings = {
    executables: absolutePaths(values["allow-capture"] ?? [], "--allow-capture"),
    roots: absolutePaths(values["capture-root"] ?? [], "--capture-root"),
    environment: envNames(values["capture-env"] ?? [], "--capture-env"),
    allowHostNetwork: values["capture-allow-network"] ?? false,
    requireHumanConfirmation: values["confirm-captures"] ?? false,
  };
  const file = values["capture-policy"];
  if (file !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(Deno.readTextFileSync(file));
    } catch (error) {
      const hint = error instanceof Deno.errors.NotCapable ? ` (grant --allow-read=${file})` : "";
      throw new CapturePolicyError(
        `--capture-policy ${file}: ${error instanceof Error ? error.message : error}${hint}`,
      );
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new CapturePolicyError(`--capture-policy ${file}: expected a JSON object`);
    }
    const record = parsed as Record<string, unknown>;
    const unknown = Object.keys(record).filter((k) => !POLICY_KEYS.includes(k));
    if (unknown.length > 0) {
      throw new CapturePolicyError(
        `--capture-policy ${file}: unknown key(s) ${unknown.join(", ")}; allowed: ${
          POLICY_KEYS.join(", ")
        }`,
      );
    }
    const list = (key: string): string[] => {
      const value = record[key] ?? [];
      if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
        throw new CapturePolicyError(
          `--capture-policy ${file}: ${key} must be an array of strings`,
        );
      }
      return value as string[];
    };
    const flag = (key: string): boolean => {
      const value = record[key] ?? false;
      if (typeof value !== "boolean") {
        throw new CapturePolicyError(`--capture-policy ${file}: ${key} must be true or false`);
      }
      return value;
    };
    policy.executables.push(...absolutePaths(list("executables"), `${file} executables`));
    policy.roots.push(...absolutePaths(list("roots"), `${file} roots`));
    policy.environment.push(...envNames(list("environment"), `${file} environment`));
    policy.allowHostNetwork ||= flag("allow_host_network");
    policy.requireHumanConfirmation ||= flag("require_human_confirmation");
  }
  const given = file !== undefined || policy.executables.length > 0 ||
    policy.roots.length > 0 || policy.environment.length > 0 || policy.allowHostNetwork ||
    policy.requireHumanConfirmation;
  if (!given) return undefined;
  policy.executables = [...new Set(policy.executables)];
  policy.roots = [...new Set(policy.roots)];
  policy.environment = [...new Set(policy.environment)];
  return policy;
}

function absolutePaths(paths: string[], what: string): string[] {
  return paths.map((path) => {
    if (!path.startsWith("/")) {
      throw new CapturePolicyError(
        `${what} expects an absolute path; got ${JSON.stringify(path)}`,
      );
    }
    return normalize(path);
  });
}

function envNames(names: string[], what: string): string[] {
  for (const name of names) {
    if (!ENV_NAME.test(name)) {
      throw new CapturePolicyError(
        `${what} expects an environment variable name; got ${JSON.stringify(name)}`,
      );
    }
  }
  return names;
}
