/**
 * The small interface through which a workbench contributes tools, prompts,
 * resources and completion families. Adding a workbench changes no core file.
 *
 * @module
 */

import type { ToolDefinition } from "./catalog.ts";
import type { CandidateSource, CompletionOptions } from "./completion.ts";
import type { EvidenceLedger } from "./evidence.ts";
import type { Logger } from "./log.ts";
import type { PermissionStatus } from "./permissions.ts";
import type { PermissionNeed } from "./permissions.ts";
import type { PolicyGate, PolicyProfile } from "./policy.ts";
import type { PromptContract } from "./prompts.ts";

/** A named source of suggestions, with how it matches. */
export interface CompletionFamily {
  source: CandidateSource;
  options?: CompletionOptions;
}

/** One entry of `resources/list`. */
export interface ListedResource {
  uri: string;
  name: string;
  description?: string;
  mimeType?: string;
}

/** The contents of a read resource. */
export interface ResourceContents {
  uri: string;
  mimeType: string;
  text: string;
}

/** A resource template (RFC 6570 level 1 and `{+var}`). */
export interface ResourceTemplateDefinition {
  name: string;
  title?: string;
  uriTemplate: string;
  description: string;
  mimeType: string;
  /** Completion per template variable. */
  variables: Record<string, CompletionFamily>;
  /** Concrete resources to list (bounded by the workbench). */
  list?(): ListedResource[];
  /** Reads one resource; returns null when it does not exist. */
  read(variables: Record<string, string>, uri: string): Promise<ResourceContents | null>;
}

/** An allowed root: as the operator named it, and resolved. */
export interface RootDirectory {
  /** The absolute, normalised path as given. */
  path: string;
  /** Its real path (symlinks resolved); null when it could not be resolved. */
  realPath: string | null;
}

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

/** Services the core lends to each workbench of a connection. */
export interface WorkbenchServices {
  ledger: EvidenceLedger;
  gate: PolicyGate;
  /** The operator's policy settings. */
  policy: Readonly<Required<PolicyProfile>>;
  /** The operator's process-capture policy. */
  capturePolicy: Readonly<CapturePolicySettings>;
  log: Logger;
  /** Permissions probed at start. */
  permissions: readonly PermissionStatus[];
  /** Directories targets may be opened from. */
  roots: readonly RootDirectory[];
  /** Tell the client the tool list changed (for example after a provider failure). */
  notifyToolsChanged(): void;
  /** Tell subscribers a resource changed. */
  notifyResourceUpdated(uri: string): void;
}

/** What a workbench contributes to one connection. */
export interface Workbench {
  name: string;
  tools: ToolDefinition[];
  prompts: PromptContract[];
  completionFamilies: Record<string, CompletionFamily>;
  resourceTemplates: ResourceTemplateDefinition[];
  /** Status facts the server's own reporting may include. */
  status?(): Record<string, unknown>;
  /** Releases whatever the workbench holds. */
  close?(): Promise<void>;
}

/** A workbench as the server assembles it: what it needs, and how to build it per connection. */
export interface WorkbenchModule {
  name: string;
  /** Permissions to probe at start, given the roots. */
  permissionNeeds(roots: readonly RootDirectory[]): PermissionNeed[];
  create(services: WorkbenchServices): Workbench;
}

/** Compiles a URI template into a matcher; `{var}` spans one path segment, `{+var}` any text. */
export function compileUriTemplate(
  template: string,
): (uri: string) => Record<string, string> | null {
  const names: string[] = [];
  let pattern = "^";
  let rest = template;
  while (rest.length > 0) {
    const open = rest.indexOf("{");
    if (open < 0) {
      pattern += escapeRegExp(rest);
      break;
    }
    pattern += escapeRegExp(rest.slice(0, open));
    const close = rest.indexOf("}", open);
    if (close < 0) throw new TypeError(`Unclosed variable in URI template ${template}`);
    const expression = rest.slice(open + 1, close);
    const reserved = expression.startsWith("+");
    names.push(reserved ? expression.slice(1) : expression);
    pattern += reserved ? "(.+)" : "([^/?#]+)";
    rest = rest.slice(close + 1);
  }
  const regex = new RegExp(pattern + "$");
  return (uri) => {
    const found = regex.exec(uri);
    if (!found) return null;
    const variables: Record<string, string> = {};
    try {
      names.forEach((name, i) => (variables[name] = decodeURIComponent(found[i + 1] ?? "")));
    } catch {
      return null;
    }
    return variables;
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
