/**
 * `list_capabilities`: what the cloud workbench offers this caller — tools
 * by category, what this build leaves out, resources, prompts, workflows and
 * conventions.
 *
 * @module
 */

import { z } from "zod";
import {
  annotationsFor,
  defineTool,
  READS_ONLY,
  type ToolDefinition,
  type ToolEffects,
} from "../../core/catalog.ts";
import type { PolicyRequest } from "../../core/policy.ts";
import { type CloudContext, translated } from "../context/cloud_context.ts";
import {
  capabilities,
  type CategoryDescription,
  type ToolDescription,
} from "../meta/capabilities.ts";
import { cloudPrompts } from "../prompts/prompts.ts";
import { cloudResources, cloudTemplates } from "../resources/resources.ts";

/** The tool's name. */
export const LIST_CAPABILITIES = "list_capabilities";

/** Where the overview reads the catalog from (the toolset registries of the workbench). */
export interface CapabilitySources {
  /** Every tool of the cloud workbench, in listing order. */
  tools(): readonly ToolDefinition[];
  /** The toolsets, in listing order. */
  categories: readonly CategoryDescription[];
}

const EFFECT_CAPABILITIES: readonly [keyof ToolEffects, string][] = [
  ["mutatesSession", "changes_workspace"],
  ["mayDiscardData", "discards_data"],
  ["mutatesTarget", "changes_target"],
  ["writesFilesystem", "writes_files"],
  ["launchesProcess", "launches_process"],
  ["accessesNetwork", "network"],
];

/** Builds the tool for one connection. */
export function listCapabilitiesTool(
  ctx: CloudContext,
  sources: CapabilitySources,
): ToolDefinition {
  return defineTool({
    name: LIST_CAPABILITIES,
    toolset: "meta",
    sensitivity: "public",
    description:
      "List what the cloud workbench offers you: the tools you can call by category (name, title, read_only, open_world, sensitivity, capabilities, a one-line summary), tools of the reference this build leaves out and why (the live collectors), resource and template counts, prompt names, suggested workflows and the conventions every tool follows. Needs no dataset; call it when unsure where to start.",
    input: z.strictObject({}),
    result: z.object({
      tool_count: z.number().int(),
      categories: z.array(z.object({
        category: z.string(),
        description: z.string(),
        tool_count: z.number().int(),
        tools: z.array(z.object({
          name: z.string(),
          title: z.string(),
          read_only: z.boolean(),
          open_world: z.boolean(),
          sensitivity: z.string(),
          capabilities: z.array(z.string()),
          summary: z.string().max(160),
        })),
      })),
      not_available: z.array(z.object({
        name: z.string(),
        category: z.string(),
        reason: z.string(),
      })).describe("Reference tools this build does not offer."),
      resource_count: z.number().int(),
      template_count: z.number().int(),
      prompts: z.array(z.string()),
      workflows: z.array(z.object({
        name: z.string(),
        goal: z.string(),
        steps: z.array(z.string()),
      })),
      conventions: z.array(z.string()),
    }),
    ...READS_ONLY,
    run: () =>
      translated(() => {
        const { gate, principal } = ctx.services;
        const visible = (
          request: Omit<PolicyRequest, "principal" | "effects"> & {
            effects?: ToolEffects;
          },
        ): boolean => gate.visible({ effects: {}, ...request, principal });
        const tools: ToolDescription[] = sources.tools().filter((tool) =>
          visible({
            kind: "tool",
            name: tool.name,
            category: tool.category ?? tool.toolset,
            sensitivity: tool.sensitivity ?? "internal",
            effects: tool.effects,
          })
        ).map((tool) => {
          const annotations = annotationsFor(tool.name, tool.effects);
          return {
            name: tool.name,
            title: annotations.title,
            category: tool.toolset ?? "cloud",
            description: tool.description,
            read_only: annotations.readOnlyHint,
            open_world: annotations.openWorldHint,
            sensitivity: tool.sensitivity ?? "internal",
            capabilities: EFFECT_CAPABILITIES.filter(([effect]) => tool.effects[effect]).map((
              [, name],
            ) => name),
          };
        });
        const resources = cloudResources(ctx).filter((r) =>
          visible({
            kind: "resource",
            name: r.uri,
            category: r.category ?? "cloud",
            sensitivity: r.sensitivity ?? "internal",
          })
        );
        const templates = cloudTemplates(ctx, {}).filter((t) =>
          visible({
            kind: "template",
            name: t.uriTemplate,
            category: "cloud",
            sensitivity: "internal",
          })
        );
        const prompts = cloudPrompts(ctx).map((p) => p.name).filter((name) =>
          visible({ kind: "prompt", name, category: "cloud", sensitivity: "internal" })
        );
        return {
          kind: "result",
          result: capabilities(tools, {
            categories: sources.categories,
            resourceCount: resources.length,
            templateCount: templates.length,
            prompts,
          }),
        };
      }),
  });
}
