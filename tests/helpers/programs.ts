/** Test helpers for external programs. */

/** Whether a program is on PATH (`which`). */
export function hasProgram(name: string): boolean {
  try {
    const result = new Deno.Command("which", { args: [name], stdout: "null", stderr: "null" })
      .outputSync();
    return result.success;
  } catch {
    return false;
  }
}

/** Runs a program and returns its stdout. */
export async function run(program: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(program, { args, stdout: "piped", stderr: "piped" }).output();
  if (!out.success) {
    throw new Error(`${program} ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout);
}
