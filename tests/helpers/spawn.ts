/**
 * Test helper: runs `mod.ts` as a real subprocess, exactly as a user would
 * (`deno run --no-prompt --allow-… mod.ts …`), collects its stdout and stderr
 * line by line, and always cleans up (the child is killed and its streams are
 * drained on dispose), so `deno test` sees no leaked processes or streams.
 *
 * @module
 */

import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

/** Absolute path of the project's `mod.ts`. */
export const MOD_TS: string = new URL("../../mod.ts", import.meta.url).pathname;
/** Absolute path of the project's `deno.json`. */
export const DENO_JSON: string = new URL("../../deno.json", import.meta.url).pathname;

/** The protocol version the raw JSON-RPC tests announce. */
export const PROTOCOL_VERSION = "2025-11-25";

/** A raw `initialize` request. */
export function initializeRequest(id: number | string = 1): Record<string, unknown> {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: "casefile-tests", version: "0.0.0" },
    },
  };
}

/** Deno permissions granted to the server subprocess. Nothing is granted by default. */
export interface Permissions {
  /** `--allow-read=<joined>`; omitted: no read permission at all. */
  allowRead?: string[];
  /** `--allow-net=<value>`. */
  allowNet?: string;
  /** `--allow-env=<value>`. */
  allowEnv?: string;
}

/** The `deno` arguments that run `mod.ts` with `permissions` and the server arguments `args`. */
export function denoArgs(args: string[], permissions: Permissions = {}): string[] {
  const flags = ["run", "--no-prompt"];
  if (permissions.allowRead) flags.push(`--allow-read=${permissions.allowRead.join(",")}`);
  if (permissions.allowNet) flags.push(`--allow-net=${permissions.allowNet}`);
  if (permissions.allowEnv) flags.push(`--allow-env=${permissions.allowEnv}`);
  return [...flags, MOD_TS, ...args];
}

/**
 * The environment for a child: this process's environment without any
 * `CASEFILE_*` variable (so the developer's shell cannot change a test), plus `extra`.
 */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env = Object.fromEntries(
    Object.entries(Deno.env.toObject()).filter(([name]) => !name.startsWith("CASEFILE_")),
  );
  return { ...env, ...extra };
}

/**
 * Keeps what the server behind `transport` (made with `stderr: "pipe"`)
 * writes to stderr; returns a function giving all of it so far, as text.
 */
export function collectStderr(transport: StdioClientTransport): () => string {
  let text = "";
  transport.stderr?.on("data", (chunk: Uint8Array | string) => {
    text += typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk);
  });
  return () => text;
}

/** Rejects with a readable message if `promise` does not settle within `ms`. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Lines of one output stream, collected in the background, with waiters. */
export class LineCollector {
  /** Every complete line so far (without the newline). */
  readonly lines: string[] = [];
  /** Resolves once the stream has ended. */
  readonly done: Promise<void>;
  #waiters = new Set<() => void>();
  #ended = false;

  constructor(stream: ReadableStream<Uint8Array>) {
    this.done = this.#pump(stream);
  }

  /** Everything received so far, lines joined with newlines. */
  text(): string {
    return this.lines.join("\n");
  }

  /** Whether the stream has ended. */
  get ended(): boolean {
    return this.#ended;
  }

  /** Waits for the first line (already received or future) that satisfies `predicate`. */
  async waitFor(
    predicate: (line: string) => boolean,
    ms: number,
    what: string,
  ): Promise<string> {
    let wake: () => void = () => {};
    const found = new Promise<string>((resolve, reject) => {
      const check = (): void => {
        const line = this.lines.find(predicate);
        if (line !== undefined) resolve(line);
        else if (this.#ended) reject(new Error(`stream ended before ${what}:\n${this.text()}`));
      };
      wake = check;
      this.#waiters.add(check);
      check();
    });
    try {
      return await withTimeout(found, ms, `${what}; received so far:\n${this.text()}`);
    } finally {
      this.#waiters.delete(wake);
    }
  }

  async #pump(stream: ReadableStream<Uint8Array>): Promise<void> {
    let partial = "";
    try {
      for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
        partial += chunk;
        const parts = partial.split("\n");
        partial = parts.pop() ?? "";
        if (parts.length > 0) {
          this.lines.push(...parts);
          for (const waiter of [...this.#waiters]) waiter();
        }
      }
      if (partial !== "") this.lines.push(partial);
    } finally {
      this.#ended = true;
      for (const waiter of [...this.#waiters]) waiter();
    }
  }
}

/** Options of {@linkcode ServerProcess.spawn}. */
export interface SpawnOptions extends Permissions {
  /** Extra environment variables (on top of {@linkcode childEnv}). */
  env?: Record<string, string>;
  /** @default "piped" */
  stdin?: "piped" | "null";
}

/** `mod.ts` running as a child process. Dispose it (`await using`) to clean up. */
export class ServerProcess implements AsyncDisposable {
  readonly child: Deno.ChildProcess;
  readonly stdout: LineCollector;
  readonly stderr: LineCollector;
  readonly status: Promise<Deno.CommandStatus>;
  #writer: WritableStreamDefaultWriter<Uint8Array> | null;
  #exited = false;

  private constructor(child: Deno.ChildProcess, piped: boolean) {
    this.child = child;
    this.stdout = new LineCollector(child.stdout);
    this.stderr = new LineCollector(child.stderr);
    this.#writer = piped ? child.stdin.getWriter() : null;
    this.status = child.status.then((status) => {
      this.#exited = true;
      return status;
    });
  }

  /** Runs `deno run --no-prompt <permissions> mod.ts <args>`. */
  static spawn(args: string[], options: SpawnOptions = {}): ServerProcess {
    const stdin = options.stdin ?? "piped";
    const child = new Deno.Command(Deno.execPath(), {
      args: denoArgs(args, options),
      stdin,
      stdout: "piped",
      stderr: "piped",
      clearEnv: true,
      env: childEnv(options.env),
    }).spawn();
    return new ServerProcess(child, stdin === "piped");
  }

  /** Whether the child has exited. */
  get exited(): boolean {
    return this.#exited;
  }

  /** Writes one raw line (a newline is appended) to the child's stdin. */
  async writeLine(line: string): Promise<void> {
    if (!this.#writer) throw new Error("stdin is not piped");
    await this.#writer.write(new TextEncoder().encode(`${line}\n`));
  }

  /** Writes one JSON-RPC message as a line. */
  send(message: unknown): Promise<void> {
    return this.writeLine(JSON.stringify(message));
  }

  /** Waits for the JSON-RPC message on stdout whose id is `id`. */
  async response(id: number | string, ms = 10_000): Promise<Record<string, unknown>> {
    const line = await this.stdout.waitFor(
      (text) => {
        try {
          return (JSON.parse(text) as { id?: unknown }).id === id;
        } catch {
          return false;
        }
      },
      ms,
      `the response to request ${JSON.stringify(id)}`,
    );
    return JSON.parse(line) as Record<string, unknown>;
  }

  /** Sends a request and waits for its response. */
  async request(
    id: number | string,
    method: string,
    params?: Record<string, unknown>,
    ms = 10_000,
  ): Promise<Record<string, unknown>> {
    await this.send({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) });
    return await this.response(id, ms);
  }

  /** Closes the child's stdin (EOF). */
  async closeStdin(): Promise<void> {
    const writer = this.#writer;
    this.#writer = null;
    if (writer) await writer.close().catch(() => {});
  }

  /** Waits for the exit status; rejects (with stderr) if it takes longer than `ms`. */
  waitExit(ms: number): Promise<Deno.CommandStatus> {
    return withTimeout(this.status, ms, `the server to exit; stderr:\n${this.stderr.text()}`);
  }

  /** Kills the child if it still runs, closes stdin and waits for both output streams. */
  async [Symbol.asyncDispose](): Promise<void> {
    if (!this.#exited) {
      try {
        this.child.kill("SIGKILL");
      } catch {
        // already gone
      }
    }
    await this.closeStdin();
    await this.status;
    await Promise.all([this.stdout.done, this.stderr.done]);
  }
}

/** An HTTP server subprocess and the address it listens on. */
export interface HttpServer extends AsyncDisposable {
  readonly proc: ServerProcess;
  readonly port: number;
  /** `http://127.0.0.1:PORT/mcp`. */
  readonly url: string;
}

/** Options of {@linkcode startHttpServer}. */
export interface HttpServerOptions {
  /** Extra server arguments, such as `["--token", "x"]`. */
  args?: string[];
  /** Extra environment variables. */
  env?: Record<string, string>;
  /** `--allow-env=<value>` for the server. */
  allowEnv?: string;
  /** Extra roots, each also granted with `--allow-read`. */
  roots?: string[];
}

/** The startup line of `--http 127.0.0.1:…`; group 1 is the port. */
export const LISTENING: RegExp = /casefile: listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp/;

/**
 * Starts `mod.ts --http 127.0.0.1:0 --root /usr/bin` with
 * `--allow-read=/usr/bin --allow-net=127.0.0.1` and waits for its
 * "listening on" line on stderr.
 */
export async function startHttpServer(options: HttpServerOptions = {}): Promise<HttpServer> {
  const proc = ServerProcess.spawn(
    [
      "--http",
      "127.0.0.1:0",
      "--root",
      "/usr/bin",
      ...(options.roots ?? []).flatMap((root) => ["--root", root]),
      ...(options.args ?? []),
    ],
    {
      allowRead: ["/usr/bin", ...(options.roots ?? [])],
      allowNet: "127.0.0.1",
      allowEnv: options.allowEnv,
      env: options.env,
      stdin: "null",
    },
  );
  try {
    const line = await proc.stderr.waitFor(
      (text) => LISTENING.test(text),
      15_000,
      "the 'casefile: listening on' line",
    );
    const port = Number(LISTENING.exec(line)?.[1]);
    return {
      proc,
      port,
      url: `http://127.0.0.1:${port}/mcp`,
      [Symbol.asyncDispose]: () => proc[Symbol.asyncDispose](),
    };
  } catch (error) {
    await proc[Symbol.asyncDispose]();
    throw error;
  }
}
