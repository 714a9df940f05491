/**
 * Test helper: a Casefile server and an SDK Client joined by the SDK's
 * in-memory transport.
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import {
  type AssembledServer,
  assembleServer,
  type CreateServerOptions,
} from "../../src/server.ts";
import { builtinWorkbenches } from "../../src/workbenches.ts";
import type { WorkbenchModule } from "../../src/core/workbench.ts";

/** A connected pair. */
export interface Connected {
  client: Client;
  casefile: AssembledServer;
  close(): Promise<void>;
}

/** Options of {@link connect} besides the server's own. */
export interface ConnectOptions {
  /** The workbenches. @default the built-in ones for these options */
  workbenches?: WorkbenchModule[];
  /**
   * Return only once the client listed the tools and the workbenches are
   * built; `false` returns right after the handshake. @default true
   */
  settle?: boolean;
}

/** Connects a fresh server (with `options`) to a fresh client. */
export async function connect(
  options: CreateServerOptions & ConnectOptions = {},
  clientOptions: ConstructorParameters<typeof Client>[1] = {},
): Promise<Connected> {
  const { workbenches, settle = true, ...serverOptions } = options;
  const casefile = assembleServer(serverOptions, workbenches ?? builtinWorkbenches(options));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await casefile.connect(serverSide);
  const client = new Client({ name: "casefile-test", version: "1.0.0" }, clientOptions);
  await client.connect(clientSide);
  if (settle) {
    // Listing caches each tool's output schema: the client then checks every result against it.
    await client.listTools();
    // That listing may come from the generated catalogs: tests see the workbenches built.
    await casefile.ready();
  }
  return {
    client,
    casefile,
    close: async () => {
      await client.close();
      await casefile.close();
    },
  };
}

/** Runs `body` with the client of a fresh server (with `options`), then closes both, also when `body` throws. */
export async function withClient(
  options: CreateServerOptions & { workbenches?: WorkbenchModule[] },
  body: (client: Client) => void | Promise<void>,
): Promise<void> {
  const { client, close } = await connect(options);
  try {
    await body(client);
  } finally {
    await close();
  }
}

/** A connected pair whose only root is a fresh temporary directory. */
export interface InTempRoot extends Connected {
  /** The directory, as its real path (so paths built under it are the server's own). */
  dir: string;
}

/**
 * Runs `body` against a fresh server whose only root is a fresh temporary
 * directory named with `prefix`, then closes the pair and removes the
 * directory, also when `body` throws.
 */
export async function withTempRoot(
  prefix: string,
  body: (session: InTempRoot) => Promise<void>,
  options: CreateServerOptions & { workbenches?: WorkbenchModule[] } = {},
): Promise<void> {
  const dir = Deno.realPathSync(await Deno.makeTempDir({ prefix }));
  const connected = await connect({ ...options, roots: [dir] });
  try {
    await body({ ...connected, dir });
  } finally {
    await connected.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** The structured content of a tool result, typed loosely for assertions. */
// deno-lint-ignore no-explicit-any
export type Loose = any;

/** Calls a tool and returns its result. */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ isError: boolean; structured: Loose; raw: Loose }> {
  const raw = await client.callTool({ name, arguments: args });
  return { isError: raw.isError === true, structured: raw.structuredContent, raw };
}

/** Calls a tool that must succeed; throws with the error body otherwise. */
export async function ok(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<Loose> {
  const { isError, structured } = await call(client, name, args);
  if (isError) throw new Error(`${name} failed: ${JSON.stringify(structured)}`);
  return structured;
}

/** Calls a tool that must fail; returns its error body. */
export async function fails(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<Loose> {
  const { isError, structured } = await call(client, name, args);
  if (!isError) throw new Error(`${name} unexpectedly succeeded: ${JSON.stringify(structured)}`);
  return structured.error;
}

export { hasProgram, run } from "./programs.ts";
