/**
 * Test helper: the contents a fixture workbench's resource read returns.
 *
 * @module
 */

import type { ResourceContents } from "../../src/core/workbench.ts";

/** The contents of a read of `uri`: `value` as JSON text, typed `application/json`. */
export function jsonResource(uri: string, value: unknown): Promise<ResourceContents> {
  return Promise.resolve({ uri, mimeType: "application/json", text: JSON.stringify(value) });
}
