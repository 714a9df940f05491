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

/** What {@link runProgram} saw: the exit code and both outputs as text. */
export interface ProgramRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Spawns a program with stdout and stderr piped; writes `stdin` to it when
 * given (text as UTF-8), then closes its input.
 */
export async function spawnPiped(
  program: string,
  args: string[],
  options: { cwd?: string; stdin?: string | Uint8Array } = {},
): Promise<Deno.ChildProcess> {
  const child = new Deno.Command(program, {
    args,
    cwd: options.cwd,
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(
      typeof options.stdin === "string" ? new TextEncoder().encode(options.stdin) : options.stdin,
    );
    await writer.close();
  }
  return child;
}

/** Runs a program, writing `stdin` to it when given; never throws on a failing exit code. */
export async function runProgram(
  program: string,
  args: string[],
  options: { stdin?: string } = {},
): Promise<ProgramRun> {
  const out = await (await spawnPiped(program, args, options)).output();
  const decoder = new TextDecoder();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}
