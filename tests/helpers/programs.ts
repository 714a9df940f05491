/** Test helpers for external programs. */

/** Whether `name` may be run (per --allow-run) and runs (`name --version`). */
export function hasProgram(name: string): boolean {
  if (Deno.permissions.querySync({ name: "run", command: name }).state !== "granted") return false;
  try {
    new Deno.Command(name, { args: ["--version"], stdout: "null", stderr: "null" }).outputSync();
    return true;
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
