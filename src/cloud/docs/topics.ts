/**
 * The documentation topics (`cloudg://docs/{topic}`), in completion order,
 * each with a one-line description and its markdown text.
 *
 * @module
 */

import { UnknownTopicError } from "../model/errors.ts";
import { DOC_TEXTS } from "./texts.ts";

/** Longest text a topic returns. */
export const MAX_TOPIC_CHARS = 40_000;

/** Topic names with their one-line descriptions, in completion order. */
export const DOC_TOPICS: ReadonlyArray<{ topic: string; description: string }> = [
  { topic: "mcp", description: "How to work with the cloud workbench through MCP" },
  { topic: "pipeline", description: "The phases a dataset goes through" },
  { topic: "cli", description: "Command-line options of the server" },
  { topic: "inputs", description: "Input files and scanner reports that can be loaded" },
  { topic: "outputs", description: "Files the workbench writes" },
  { topic: "data-models", description: "Assets, edges, findings and compliance results" },
  { topic: "configuration", description: "Server configuration" },
  { topic: "python-api", description: "Programmatic use (the TypeScript API in Casefile)" },
  { topic: "recipes", description: "Integration recipes" },
  { topic: "authentication", description: "Cloud credentials and why none are needed" },
  { topic: "identifiers", description: "ARN, Azure, GCP and placeholder id formats" },
  { topic: "edges", description: "Edge fields" },
  { topic: "edge-types", description: "Edge types, direction and dependency meaning" },
  { topic: "relations", description: "Semantic relations declared on edges" },
  { topic: "inventory-summary", description: "The dataset summary" },
  { topic: "dependencies", description: "Depends-on, dependents, trees and blast radius" },
  { topic: "inventory-map", description: "The inventory-map.json format" },
  { topic: "organization", description: "Organisation topology: accounts, OUs, guardrails" },
];

/** The topic names, in completion order. */
export const DOC_TOPIC_NAMES: readonly string[] = DOC_TOPICS.map((t) => t.topic);

/** `{topic: description}` for the topic index. */
export function docTopicIndex(): Record<string, string> {
  return Object.fromEntries(DOC_TOPICS.map((t) => [t.topic, t.description]));
}

/** The markdown of a topic (at most 40,000 characters); unknown → {@linkcode UnknownTopicError}. */
export function readDocTopic(topic: string): string {
  if (!DOC_TOPIC_NAMES.includes(topic)) {
    throw new UnknownTopicError(
      `No documentation topic of that name; the topics are: ${DOC_TOPIC_NAMES.join(", ")}.`,
      { value: topic },
    );
  }
  const text = DOC_TEXTS[topic] ?? `# ${topic}\n\nNot written yet.`;
  return text.trim().slice(0, MAX_TOPIC_CHARS);
}
