/**
 * The policy gate. Every tool call, resource read, prompt render and
 * completion passes through it, for every workbench:
 *
 * 1. visibility: whether the primitive is listed at all (a hidden one is
 *    treated as unknown);
 * 2. access: rules may refuse the request before it runs (policy denials,
 *    rate limits, `--read-only`, operator switches);
 * 3. input transforms rewrite the arguments before the handler sees them
 *    (for example pseudonyms back to real values);
 * 4. output transforms rewrite the domain value before it is rendered
 *    (for example real values to pseudonyms, redaction).
 *
 * Profiles, rate limits and pseudonymising transforms are further rules and
 * transforms; no handler changes when one is added.
 *
 * @module
 */

import type { ToolEffects } from "./catalog.ts";
import { allowedWhenReadOnly } from "./catalog.ts";
import { ToolFailure } from "./errors.ts";

/** Who is asking. */
export interface Principal {
  /** `local` on stdio; `anonymous` or a token-derived id on HTTP. */
  id: string;
  /** How the principal was established. */
  kind: "local" | "anonymous" | "token";
  /** Roles the policy grants it. @default [] */
  roles: readonly string[];
}

/** The principal of a stdio (or in-process) connection. */
export const LOCAL_PRINCIPAL: Principal = Object.freeze({
  id: "local",
  kind: "local",
  roles: Object.freeze([]) as readonly string[],
});

/** The principal of an HTTP request without a bearer token. */
export const ANONYMOUS_PRINCIPAL: Principal = Object.freeze({
  id: "anonymous",
  kind: "anonymous",
  roles: Object.freeze([]) as readonly string[],
});

/** The kinds of request the gate sees. */
export type PolicyRequestKind =
  | "tool"
  | "resource"
  | "template"
  | "prompt"
  | "completion"
  | "effect";

/** How sensitive what a primitive returns is. */
export type Sensitivity = "public" | "internal" | "confidential" | "restricted";

/** What is being asked for. */
export interface PolicyRequest {
  /** What kind of operation is asked for. */
  kind: PolicyRequestKind;
  /** Tool name, resource URI, template, prompt name, completion reference, or effect subject. */
  name: string;
  /** Who asks. @default LOCAL_PRINCIPAL */
  principal?: Principal;
  /** The primitive's category (its toolset for tools, its workbench's area otherwise). */
  category?: string;
  /** How sensitive its output is. */
  sensitivity?: Sensitivity;
  /** Declared effects (capabilities) of the operation. */
  effects: ToolEffects;
  /** The request's arguments (tool arguments, template variables, prompt arguments, completion value and context). */
  arguments?: Readonly<Record<string, unknown>>;
  /** For `effect` requests: the program or path concerned. */
  subject?: string;
  /**
   * Whether a resource read names its contents by a digest of them (or an id computed from
   * them): output transforms never rewrite such contents, they serve the exact bytes.
   * @default false
   */
  contentAddressed?: boolean;
  /**
   * Where the whole output is kept (the URI of the Evidence it was recorded in): output
   * transforms that cut a text value name it in their marker.
   */
  source?: string;
}

/** A rule returns a failure to refuse the request, or null to let it pass. */
export type PolicyRule = (request: PolicyRequest) => ToolFailure | null;

/** A visibility rule returns false to hide a primitive from listings (it is then unknown). */
export type PolicyVisibilityRule = (request: PolicyRequest) => boolean;

/** A transform rewrites a value on its way out (the domain value, before rendering). */
export type PolicyTransform = <T>(request: PolicyRequest, value: T) => T;

/** An input transform rewrites arguments on their way in; it may throw a ToolFailure to refuse. */
export type PolicyInputTransform = (
  request: PolicyRequest,
  args: Record<string, unknown>,
) => Record<string, unknown>;

/** The operator's settings that shape the default rules. */
export interface PolicyProfile {
  /** Hide and refuse everything with effects outside the session. @default false */
  readOnly?: boolean;
  /** Allow tools that start processes on the host. @default false */
  allowProcessLaunch?: boolean;
  /** Allow tools that write files on the host. @default false */
  allowFileWrites?: boolean;
}

/** The default profile: reads allowed; launching processes and writing files refused. */
export function defaultRules(profile: PolicyProfile = {}): PolicyRule[] {
  return [
    (request) => {
      if (profile.readOnly && !allowedWhenReadOnly(request.effects)) {
        return new ToolFailure(
          "permission_required",
          `${request.name} is unavailable: the server runs with --read-only.`,
          { action: "Restart the server without --read-only to use it.", restartRequired: true },
        );
      }
      return null;
    },
    (request) => {
      if (request.effects.launchesProcess && !profile.allowProcessLaunch) {
        const what = request.subject ? ` (${request.subject})` : "";
        return new ToolFailure(
          "permission_required",
          `Policy refuses ${request.name}${what}: starting processes is not allowed by the operator policy.`,
          {
            action:
              "Ask the operator to restart the server with --allow-process-launch (and a matching --allow-run grant).",
            restartRequired: true,
          },
        );
      }
      return null;
    },
    (request) => {
      if (request.effects.writesFilesystem && !profile.allowFileWrites) {
        return new ToolFailure(
          "permission_required",
          `Policy refuses ${request.name}: writing files is not allowed by the operator policy.`,
          {
            action:
              "Ask the operator to restart the server with --allow-file-writes (and a matching --allow-write grant).",
            restartRequired: true,
          },
        );
      }
      return null;
    },
  ];
}

/** The default visibility: under `--read-only`, tools with outside effects are not listed. */
export function defaultVisibility(profile: PolicyProfile = {}): PolicyVisibilityRule[] {
  return [(request) =>
    !(request.kind === "tool" && profile.readOnly &&
      !allowedWhenReadOnly(request.effects))];
}

/** What a policy contributes to the gate. */
export interface PolicyHooks {
  /** Access rules, checked in order; the first refusal wins. @default [] */
  rules?: PolicyRule[];
  /** Visibility rules; a primitive any rule hides is not listed and is unknown. @default [] */
  visibility?: PolicyVisibilityRule[];
  /** Input transforms, applied in order to the arguments. @default [] */
  inputTransforms?: PolicyInputTransform[];
  /** Output transforms, applied in order to the domain value. @default [] */
  outputTransforms?: PolicyTransform[];
}

/** The one gate. */
export class PolicyGate {
  #rules: PolicyRule[];
  #visibility: PolicyVisibilityRule[];
  #inputs: PolicyInputTransform[];
  #transforms: PolicyTransform[];

  /**
   * A gate with access rules (by default the default profile's) and output
   * transforms; visibility rules and input transforms come through `hooks`.
   */
  constructor(
    rules: PolicyRule[] = defaultRules(),
    transforms: PolicyTransform[] = [],
    hooks: Omit<PolicyHooks, "rules" | "outputTransforms"> = {},
  ) {
    this.#rules = [...rules];
    this.#transforms = [...transforms];
    this.#visibility = [...(hooks.visibility ?? [])];
    this.#inputs = [...(hooks.inputTransforms ?? [])];
  }

  /** Adds an access rule (for example a rate limit). */
  addRule(rule: PolicyRule): void {
    this.#rules.push(rule);
  }

  /** Adds an output transform (for example pseudonyms). */
  addTransform(transform: PolicyTransform): void {
    this.#transforms.push(transform);
  }

  /** Adds an input transform (for example pseudonyms back to real values). */
  addInputTransform(transform: PolicyInputTransform): void {
    this.#inputs.push(transform);
  }

  /** Adds a visibility rule. */
  addVisibilityRule(rule: PolicyVisibilityRule): void {
    this.#visibility.push(rule);
  }

  /** Whether a primitive is listed (and known) to this request's principal. */
  visible(request: PolicyRequest): boolean {
    return this.#visibility.every((rule) => rule(request));
  }

  /** The first refusal for a request, or null. Does not run anything. */
  check(request: PolicyRequest): ToolFailure | null {
    for (const rule of this.#rules) {
      const refusal = rule(request);
      if (refusal) return refusal;
    }
    return null;
  }

  /** Whether a request would pass (used to hide tools that can never run). */
  permits(request: PolicyRequest): boolean {
    return this.check(request) === null;
  }

  /** Applies the input transforms to a request's arguments. */
  transformInput(request: PolicyRequest, args: Record<string, unknown>): Record<string, unknown> {
    let value = args;
    for (const transform of this.#inputs) value = transform(request, value);
    return value;
  }

  /** Applies the output transforms to a domain value. */
  transformOutput<T>(request: PolicyRequest, value: T): T {
    let result = value;
    for (const transform of this.#transforms) result = transform(request, result);
    return result;
  }

  /**
   * Checks, transforms the arguments, runs, and transforms the value: throws
   * the refusal as a ToolFailure.
   */
  async run<T>(
    request: PolicyRequest,
    operation: (args: Record<string, unknown>) => T | Promise<T>,
  ): Promise<T> {
    const refusal = this.check(request);
    if (refusal) throw refusal;
    const args = this.transformInput(request, { ...(request.arguments ?? {}) });
    const value = await operation(args);
    return this.transformOutput(request, value);
  }
}
