/**
 * The policy gate. Every tool call, resource read, prompt render and
 * completion passes through {@linkcode PolicyGate.run}: rules may refuse the
 * request before it runs, and transforms may rewrite what it returns. Rate
 * limits and pseudonymising transforms are further rules and transforms; no
 * handler changes when one is added.
 *
 * @module
 */

import type { ToolEffects } from "./catalog.ts";
import { allowedWhenReadOnly } from "./catalog.ts";
import { ToolFailure } from "./errors.ts";

/** What is being asked for. */
export interface PolicyRequest {
  /** What kind of operation is asked for. */
  kind: "tool" | "resource" | "prompt" | "completion" | "effect";
  /** Tool name, resource URI, prompt name, completion reference, or effect subject. */
  name: string;
  /** Declared effects of the operation (tools and effects). */
  effects: ToolEffects;
  /** For `effect` requests: the program or path concerned. */
  subject?: string;
}

/** A rule returns a failure to refuse the request, or null to let it pass. */
export type PolicyRule = (request: PolicyRequest) => ToolFailure | null;

/** A transform rewrites a value on its way out. */
export type PolicyTransform = <T>(request: PolicyRequest, value: T) => T;

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

/** The one gate. */
export class PolicyGate {
  #rules: PolicyRule[];
  #transforms: PolicyTransform[];

  constructor(rules: PolicyRule[] = defaultRules(), transforms: PolicyTransform[] = []) {
    this.#rules = [...rules];
    this.#transforms = [...transforms];
  }

  /** Adds a rule (for example a rate limit). */
  addRule(rule: PolicyRule): void {
    this.#rules.push(rule);
  }

  /** Adds a transform (for example pseudonyms). */
  addTransform(transform: PolicyTransform): void {
    this.#transforms.push(transform);
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

  /** Checks, runs, and transforms: throws the refusal as a ToolFailure. */
  async run<T>(request: PolicyRequest, operation: () => T | Promise<T>): Promise<T> {
    const refusal = this.check(request);
    if (refusal) throw refusal;
    let value = await operation();
    for (const transform of this.#transforms) value = transform(request, value);
    return value;
  }
}
