/**
 * The one interface through which a workbench contributes its tools,
 * prompts, resources, templates, completion families, command-line flags,
 * instructions paragraph, error codes and Evidence subject kinds. Adding a
 * workbench changes no core file.
 *
 * @module
 */

import type { NameSource } from "./policy/names.ts";
import type { ToolDefinition } from "./catalog.ts";
import type { CatalogEntry } from "./tool_listing.ts";
import type { CandidateSource, CompletionOptions } from "./completion.ts";
import type { EvidenceLedger } from "./evidence.ts";
import type { Logger } from "./log.ts";
import type { PermissionNeed, PermissionStatus } from "./permissions.ts";
import type { ErrorCategory } from "./errors.ts";
import type { PolicyGate, PolicyProfile, Principal, Sensitivity } from "./policy.ts";
import type { RootDirectory, RootFence } from "./roots.ts";
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

/**
 * The contents of a read resource: text, or (`blob`) base64-encoded bytes, with `_meta`
 * saying why when the server chose the encoding.
 */
export type ResourceContents =
  | { uri: string; mimeType: string; text: string }
  | { uri: string; mimeType: string; blob: string; _meta?: Record<string, string> };

/** How a workbench marks a resource whose URI names its contents by a digest of them. */
export interface ContentAddressing {
  /**
   * The URI carries a digest of the contents (or an id computed from them), so the policy
   * never rewrites them: they are served exactly, as base64 `blob` when an output transform
   * would otherwise have changed them. @default false
   */
  contentAddressed?: boolean;
}

/** A resource template (RFC 6570 level 1 and `{+var}`). */
export interface ResourceTemplateDefinition extends ContentAddressing {
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

/** A static resource a workbench serves at a fixed URI. */
export interface StaticResourceDefinition extends ListedResource, ContentAddressing {
  /** The policy category. @default the workbench's name */
  category?: string;
  /** How sensitive its contents are. @default "internal" */
  sensitivity?: Sensitivity;
  /** Reads it; returns null when there is nothing to serve (then it is not found). */
  read(uri: string): Promise<ResourceContents | null>;
}

/** A named group of tools that `--toolsets` can select. */
export interface ToolsetInfo {
  /** The toolset's name (snake_case or kebab-case). */
  name: string;
  /** What its tools are for. */
  description: string;
}

/** A command-line option a workbench adds, as `node:util` `parseArgs` declares it. */
export interface WorkbenchCliOption {
  /** `string` or `boolean`. */
  type: "string" | "boolean";
  /** Whether the flag may repeat. @default false */
  multiple?: boolean;
}

/** The command-line flags a workbench adds, their help, and how they configure it. */
export interface WorkbenchCli {
  /** Flag name (without `--`) to its declaration. */
  options: Readonly<Record<string, WorkbenchCliOption>>;
  /** The help section (a heading line, then one indented line per flag). */
  help: string;
  /**
   * Builds the configured module from the parsed values of its own flags
   * (absent flags are absent keys). Throws an Error with a readable message
   * on a bad value.
   */
  configure(
    values: Readonly<Record<string, string | boolean | string[] | undefined>>,
  ): WorkbenchModule;
}

/** Services the core lends to each workbench of a connection. */
export interface WorkbenchServices {
  /** The session's Evidence; shared by every workbench of the connection. */
  ledger: EvidenceLedger;
  /** The Evidence resource URI of a retained record. */
  evidenceUri(evidenceId: string): string;
  /**
   * Clears the session's Evidence and tells every workbench
   * ({@linkcode Workbench.onEvidenceCleared}); returns the records cleared.
   */
  clearEvidence(): number;
  /** The one policy gate. */
  gate: PolicyGate;
  /** The operator's policy settings. */
  policy: Readonly<Required<PolicyProfile>>;
  /** Who this connection acts for. */
  principal: Principal;
  log: Logger;
  /** Permissions probed at start. */
  permissions: readonly PermissionStatus[];
  /** Directories paths may be opened from (the fence's roots). */
  roots: readonly RootDirectory[];
  /** The one root fence: every client-named path passes it before any I/O. */
  fence: RootFence;
  /** Tell the client the tool list changed (for example after a provider failure). */
  notifyToolsChanged(): void;
  /** Tell subscribers a resource changed. */
  notifyResourceUpdated(uri: string): void;
  /** Tell the client the resource list changed. */
  notifyResourceListChanged(): void;
}

/** What a workbench contributes to one connection. */
export interface Workbench {
  name: string;
  tools: ToolDefinition[];
  prompts: PromptContract[];
  completionFamilies: Record<string, CompletionFamily>;
  /** Resources at fixed URIs. @default [] */
  resources?: StaticResourceDefinition[];
  resourceTemplates: ResourceTemplateDefinition[];
  /** Called after the session's Evidence was cleared (to clear state kept beside it). */
  onEvidenceCleared?(): void;
  /**
   * The names this session knows to identify something investigated (a cloud
   * asset's or dataset's name), by entity (`resource_name`, `dataset_name`):
   * a pseudonymising policy treats them as identifiers.
   */
  knownNames?: NameSource;
  /** Releases whatever the workbench holds. */
  close?(): Promise<void>;
}

/** What the server needs to know to build a workbench for each connection. */
export interface WorkbenchModule {
  name: string;
  /** The paragraph this workbench adds to the server's instructions. @default "" */
  instructions?: string;
  /**
   * The toolsets its tools belong to; a tool names its toolset.
   * @default one toolset named after the workbench
   */
  toolsets?: readonly ToolsetInfo[];
  /** The predicate of Evidence its tools record when a draft names none. @default none */
  evidencePredicate?: string;
  /** Tools of this workbench that clear the session's Evidence (named in the ledger's full message). @default [] */
  clearsEvidenceWith?: readonly string[];
  /** Its own failure codes with their categories (declared with core's error contract). @default {} */
  errorCodes?: Readonly<Record<string, ErrorCategory>>;
  /** The kinds of Evidence subject it records (`binary`, `artifact`, `dataset`, …). @default [] */
  subjectKinds?: readonly string[];
  /** Its command-line flags. @default none */
  cli?: WorkbenchCli;
  /** Permissions to probe at start, given the roots. */
  permissionNeeds(roots: readonly RootDirectory[]): PermissionNeed[];
  /**
   * Whether `create` imports the implementation first (a light descriptor
   * standing for a heavy module): the server then calls it only once the
   * client has finished the handshake, or a request needs the workbench, so
   * `initialize` never waits for the import. @default false
   */
  deferred?: boolean;
  /**
   * The tools `create` builds, as `tools/list` shows them, generated ahead
   * of time (the built-in workbenches commit theirs; `deno task docs`
   * regenerates them) and loaded on first use. When every served module has
   * one, a `tools/list` that arrives before the workbenches are built is
   * answered from these, through the same `--toolsets` and policy
   * decisions; otherwise (or when one fails to load) it waits for the
   * build. A module whose tools depend on its settings must leave this out.
   * @default none
   */
  toolCatalog?(): Promise<readonly CatalogEntry[]>;
  /**
   * Builds the workbench for one connection. It may answer with a promise:
   * the server answers `initialize` from the fields above alone and holds
   * every other request until each workbench is built.
   */
  create(services: WorkbenchServices): Workbench | Promise<Workbench>;
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

export type { RootDirectory };
