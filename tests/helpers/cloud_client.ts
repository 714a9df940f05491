/**
 * Test helper for the cloud tools: a client on the demo estate and short
 * calls for results, dataset versions, resource text and resource links.
 *
 * @module
 */

import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client";
import { connect, type Connected, type Loose, ok, withClient } from "./in_memory.ts";
import { cloudWorkbenchWith } from "../../src/cloud/workbench.ts";
import type { CreateServerOptions } from "../../src/server.ts";

/** A fresh server with the demo estate (`sample` active, `after`) and its client. */
export async function demoClient(): Promise<Connected> {
  return await connect({ workbenches: [cloudWorkbenchWith({ demo: true })] });
}

/** Runs `body` with the client of a fresh demo server, then closes both, also when `body` throws. */
export async function withDemoClient(body: (client: Client) => Promise<void>): Promise<void> {
  const { client, close } = await demoClient();
  try {
    await body(client);
  } finally {
    await close();
  }
}

/** The workspace as `list_datasets` shows it: what a tool that changes it would change. */
export async function workspaceListing(client: Client): Promise<Loose> {
  return (await ok(client, "list_datasets")).result;
}

/**
 * Runs `body` with the client of a fresh demo server (with `options`), then
 * asserts the workspace is as it was before, and closes both.
 */
export async function withUnchangedDemo(
  body: (client: Client) => Promise<void>,
  options: CreateServerOptions = {},
): Promise<void> {
  await withClient(
    { ...options, workbenches: [cloudWorkbenchWith({ demo: true })] },
    async (client) => {
      const before = await workspaceListing(client);
      await body(client);
      assert.deepStrictEqual(await workspaceListing(client), before, "the workspace changed");
    },
  );
}

/** The `result` of a tool call that must succeed. */
export async function result(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<Loose> {
  return (await ok(client, name, args)).result;
}

/** How many pages {@link cursorPages} follows before it gives up. */
const MAX_PAGES = 20;

/**
 * Every page (`result`) of a cursor-paged tool, first to last: each call
 * after the first passes the previous page's `next_cursor` with `args`.
 * Throws when a cursor is still offered after 20 pages.
 */
export async function cursorPages(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<Loose[]> {
  const pages: Loose[] = [];
  let cursor: string | undefined;
  do {
    if (pages.length === MAX_PAGES) throw new Error(`${name} still pages after ${MAX_PAGES} pages`);
    const page = await result(client, name, { ...args, ...(cursor ? { cursor } : {}) });
    pages.push(page);
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
  return pages;
}

/** A dataset's current version, read through `dataset_summary`. */
export async function datasetVersion(client: Client, dataset = "sample"): Promise<number> {
  return (await result(client, "dataset_summary", { dataset })).version;
}

/** The text of a resource's first content. */
export async function readText(client: Client, uri: string): Promise<string> {
  const content: Loose = (await client.readResource({ uri })).contents[0];
  return content.text;
}

/** The MIME type and text of a resource's first content; throws when it holds no text. */
export async function readTextContent(
  client: Client,
  uri: string,
): Promise<{ mimeType?: string; text: string }> {
  const [content] = (await client.readResource({ uri })).contents;
  if (content === undefined || !("text" in content)) throw new Error(`${uri} has no text contents`);
  return { mimeType: content.mimeType, text: content.text };
}

/** The resource links a tool call returns. */
export async function resourceLinks(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<Loose[]> {
  const raw = await client.callTool({ name, arguments: args });
  return (raw.content as Loose[]).filter((c) => c.type === "resource_link");
}

/**
 * Runs `body` with the client of a fresh cloud server that has loaded
 * `records` (written as a JSON file in a temporary root) as its active
 * dataset, then removes the root.
 */
export async function withInlineDataset(
  records: Record<string, unknown>,
  body: (client: Client) => Promise<void>,
): Promise<void> {
  const dir = Deno.realPathSync(await Deno.makeTempDir({ prefix: "casefile-inline-dataset-" }));
  try {
    await Deno.writeTextFile(`${dir}/dataset.json`, JSON.stringify(records));
    await withClient({ roots: [dir], workbenches: [cloudWorkbenchWith()] }, async (client) => {
      await result(client, "load_dataset", { path: `${dir}/dataset.json`, name: "inline" });
      await body(client);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** A HIGH finding of tool `t` on `resource`, under the CIS-AWS framework. */
export function cisFinding(id: string, resource: string): Record<string, unknown> {
  return {
    id,
    resource_id: resource,
    severity: "HIGH",
    source_tool: "t",
    compliance_frameworks: ["CIS-AWS"],
  };
}

/** An S3 bucket asset of account 123456789012 in us-east-1, with the given id, name and fields. */
export function bucketAsset(
  id: string,
  name: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id,
    name,
    asset_type: "S3_BUCKET",
    provider: "AWS",
    region: "us-east-1",
    account_id: "123456789012",
    ...extra,
  };
}
