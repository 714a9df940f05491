/**
 * Test helper: shell scripts captured through the real capture_process_scenario
 * tool, over an SDK client, under a named output policy (as `deno task start`
 * runs it, `standard` by default).
 *
 * @module
 */

import { compilePolicy, gateOptions } from "../../src/core/policy/compile.ts";
import { loadPolicy } from "../../src/core/policy/document.ts";
import { connect, type Connected, type Loose, ok } from "./in_memory.ts";
import { withTempDir } from "./temp_dir.ts";

/** A session that captures scripts written into its own scratch directory. */
export interface ScriptCaptures extends Connected {
  /** The scratch directory (its real path): scripts live in `bin/`, runs start in it. */
  dir: string;
  /** Writes `body` as an executable `/bin/sh` script named `name` and returns its path. */
  script(name: string, body: string): Promise<string>;
  /** Captures the script at `path` with `args` (no syscall trace); the tool's structured answer. */
  capture(path: string, args?: string[]): Promise<Loose>;
}

/** Runs `body` with a capture session under `policy`, then closes it and removes its files. */
export async function withScriptCaptures(
  body: (session: ScriptCaptures) => Promise<void>,
  options: { policy?: string } = {},
): Promise<void> {
  await withTempDir(async (dir) => {
    await Deno.mkdir(`${dir}/bin`);
    const policy = compilePolicy(loadPolicy(options.policy ?? "standard"), {
      env: () => "test-vault-key",
    });
    const connected = await connect({
      ...gateOptions(policy),
      roots: [dir],
      allowProcessLaunch: true,
      capturePolicy: {
        executables: [`${dir}/bin`],
        roots: [dir],
        environment: [],
        allowHostNetwork: true,
        requireHumanConfirmation: false,
      },
    });
    const script = async (name: string, text: string): Promise<string> => {
      const path = `${dir}/bin/${name}`;
      await Deno.writeTextFile(path, `#!/bin/sh\n${text}\n`);
      await Deno.chmod(path, 0o755);
      return path;
    };
    const capture = (path: string, args: string[] = []): Promise<Loose> =>
      ok(connected.client, "capture_process_scenario", {
        approved: true,
        executable: path,
        arguments: args,
        working_directory: dir,
        network_access: "host",
        trace: "none",
      });
    try {
      await body({ ...connected, dir, script, capture });
    } finally {
      await connected.close();
    }
  }, { prefix: "casefile-script-capture-", realPath: true });
}

/** What `path` writes to stdout when run directly in `cwd` (the peer of a capture), as bytes. */
export async function directStdout(
  path: string,
  cwd: string,
  args: string[] = [],
): Promise<Uint8Array> {
  const out = await new Deno.Command(path, { args, cwd, stdout: "piped", stderr: "null" })
    .output();
  return out.stdout;
}

/** The stdout text of a capture answer: its stdout frames joined. */
export function capturedStdout(answer: Loose): string {
  return answer.result.frames.filter((f: Loose) => f.stream === "stdout").map((f: Loose) => f.data)
    .join("");
}
