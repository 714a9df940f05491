/**
 * Loads the demo estate into a workspace: `sample` (active) and `after`.
 *
 * @module
 */

import type { Workspace } from "../workspace/workspace.ts";
import {
  AFTER_DATASET,
  afterRecords,
  DEMO_TIMESTAMP,
  SAMPLE_DATASET,
  sampleRecords,
} from "./estate.ts";

/** Options of {@linkcode loadDemo}. */
export interface LoadDemoOptions {
  /** Replace datasets already named `sample` or `after`. @default false */
  replace?: boolean;
}

/**
 * Adds `sample` and `after` (kind `demo`), leaving `sample` active.
 *
 * @example
 * ```ts
 * import { Workspace } from "../workspace/workspace.ts";
 * import { loadDemo } from "./load_demo.ts";
 * const workspace = new Workspace();
 * loadDemo(workspace);
 * workspace.activeName; // "sample"
 * ```
 */
export function loadDemo(workspace: Workspace, options: LoadDemoOptions = {}): string[] {
  const replace = options.replace ?? false;
  workspace.add(SAMPLE_DATASET, sampleRecords(), {
    kind: "demo",
    source: "demo estate",
    replace,
    loadedAt: DEMO_TIMESTAMP,
  });
  workspace.add(AFTER_DATASET, afterRecords(), {
    kind: "demo",
    source: "demo estate without the WAF web ACL",
    activate: false,
    replace,
    loadedAt: DEMO_TIMESTAMP,
  });
  return [SAMPLE_DATASET, AFTER_DATASET];
}
