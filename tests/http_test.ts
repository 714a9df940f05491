/**
 * The Streamable HTTP transport, end to end: `mod.ts --http 127.0.0.1:0` as a
 * real subprocess, driven by the SDK's StreamableHTTPClientTransport, by
 * `fetch`, and by raw HTTP/1.1 over `Deno.connect` where `fetch` cannot set the
 * header under test (Deno's fetch ignores a `Host` override).
 */

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  initializeRequest,
  LISTENING,
  ServerProcess,
  startHttpServer,
  withTimeout,
} from "./helpers/spawn.ts";
import { withTempDir } from "./helpers/temp_dir.ts";

const ADDRESS = /^0x[0-9a-f]+$/;
const ACCEPT = "application/json, text/event-stream";
const INITIALIZE = JSON.stringify(initializeRequest(1));
const encoder = new TextEncoder();
const decoder = new TextDecoder();

type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown> };

/** An SDK client over Streamable HTTP; dispose to terminate its session and close it. */
interface HttpSession extends AsyncDisposable {
  client: Client;
  transport: StreamableHTTPClientTransport;
  errors: Error[];
}

async function connectHttp(
  url: string,
  headers: Record<string, string> = {},
): Promise<HttpSession> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name: "casefile-http-tests", version: "0.0.0" });
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  await client.connect(transport);
  return {
    client,
    transport,
    errors,
    [Symbol.asyncDispose]: async () => {
      await transport.terminateSession().catch(() => {});
      await client.close();
    },
  };
}

function structured<T>(result: unknown): T {
  const r = result as ToolResult;
  assert.notEqual(r.isError, true, `tool failed: ${JSON.stringify(r.structuredContent)}`);
  return r.structuredContent as T;
}

/** POSTs `body` to `url` with fetch and reads the whole answer (within 5 s). */
async function post(
  url: string,
  headers: Record<string, string> = {},
  body: string = INITIALIZE,
): Promise<{ status: number; headers: Headers; body: string }> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: ACCEPT, ...headers },
    body,
  });
  const text = await withTimeout(response.text(), 5_000, `the body of POST ${url}`);
  return { status: response.status, headers: response.headers, body: text };
}

/** Decodes an HTTP/1.1 chunked body. */
function dechunk(raw: string): string {
  let out = "";
  let rest = raw;
  while (rest.length > 0) {
    const eol = rest.indexOf("\r\n");
    if (eol < 0) break;
    const size = parseInt(rest.slice(0, eol), 16);
    if (!Number.isFinite(size) || size === 0) break;
    out += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 2 + size + 2);
  }
  return out;
}

/**
 * Sends one raw HTTP/1.1 request (`Connection: close`) to 127.0.0.1:`port`
 * and reads the whole response, so any `Host` header can be sent.
 */
async function rawHttp(
  port: number,
  request: { method?: string; path?: string; headers: Record<string, string>; body?: string },
): Promise<{ status: number; headers: Headers; body: string }> {
  const body = encoder.encode(request.body ?? "");
  const lines = [
    `${request.method ?? "POST"} ${request.path ?? "/mcp"} HTTP/1.1`,
    ...Object.entries({
      ...request.headers,
      "Content-Length": String(body.length),
      Connection: "close",
    }).map(([name, value]) => `${name}: ${value}`),
    "",
    "",
  ];
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    const head = encoder.encode(lines.join("\r\n"));
    const bytes = new Uint8Array(head.length + body.length);
    bytes.set(head);
    bytes.set(body, head.length);
    for (let written = 0; written < bytes.length;) {
      written += await conn.write(bytes.subarray(written));
    }
    const readAll = (async () => {
      const chunks: Uint8Array[] = [];
      const buffer = new Uint8Array(16 * 1024);
      for (;;) {
        const n = await conn.read(buffer);
        if (n === null) break;
        chunks.push(buffer.slice(0, n));
      }
      const total = new Uint8Array(chunks.reduce((sum, c) => sum + c.length, 0));
      let offset = 0;
      for (const chunk of chunks) {
        total.set(chunk, offset);
        offset += chunk.length;
      }
      return decoder.decode(total);
    })();
    readAll.catch(() => {}); // if the timeout wins, the read fails once conn is closed below
    const text = await withTimeout(readAll, 5_000, "the raw HTTP response");
    const split = text.indexOf("\r\n\r\n");
    const [statusLine, ...headerLines] = text.slice(0, split).split("\r\n");
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? "")?.[1]);
    const headers = new Headers();
    for (const line of headerLines) {
      const colon = line.indexOf(":");
      headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
    }
    const rawBody = text.slice(split + 4);
    return {
      status,
      headers,
      body: headers.get("transfer-encoding")?.includes("chunked") ? dechunk(rawBody) : rawBody,
    };
  } finally {
    conn.close();
  }
}

/** Whether the port can be bound again (nobody listens on it any more). */
function portIsFree(port: number): boolean {
  try {
    const listener = Deno.listen({ hostname: "127.0.0.1", port });
    listener.close();
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.AddrInUse) return false;
    throw error;
  }
}

Deno.test("serveHttp serves an SDK client: session id, tools, open_binary, list_procedures and completion", async () => {
  await using server = await startHttpServer();
  await using session = await connectHttp(server.url);
  const { client, transport } = session;

  assert.match(transport.sessionId ?? "", /^[0-9a-f-]{36}$/, "a session id is assigned");
  assert.equal(client.getServerVersion()?.name, "casefile");
  assert.ok(client.getServerCapabilities()?.completions);

  const names = (await client.listTools()).tools.map((tool) => tool.name);
  for (
    const name of [
      "binary_session",
      "open_binary",
      "close_binary",
      "list_documents",
      "set_current_document",
      "list_procedures",
    ]
  ) assert.ok(names.includes(name), `${name} listed`);

  const opened = structured<
    { result: { action: string; target: { name: string; procedure_count: number | null } } }
  >(
    await client.callTool({ name: "open_binary", arguments: { path: "/usr/bin/ls" } }),
  );
  assert.equal(opened.result.action, "opened");
  assert.equal(opened.result.target.name, "ls");

  const page = structured<{
    result: { items: { address: string }[]; total: number; offset: number };
    evidence_uri: string;
  }>(await client.callTool({ name: "list_procedures", arguments: { limit: 10 } }));
  assert.equal(page.result.offset, 0);
  // The open leaves counting to the first use; the session reports the count after it.
  assert.equal(opened.result.target.procedure_count, null);
  const status = structured<{ result: { target: { procedure_count: number } } }>(
    await client.callTool({ name: "binary_session", arguments: {} }),
  );
  assert.equal(page.result.total, status.result.target.procedure_count);
  assert.equal(page.result.items.length, Math.min(10, page.result.total));
  for (const item of page.result.items) assert.match(item.address, ADDRESS);

  const { completion } = await client.complete({
    ref: { type: "ref/prompt", name: "investigate_feature" },
    argument: { name: "procedure", value: "0x" },
  });
  assert.ok(completion.values.length > 0);
  for (const value of completion.values) assert.match(value, ADDRESS);
  assert.ok((completion.total ?? 0) <= page.result.total);
  const first = page.result.items[0]?.address ?? "";
  const exact = await client.complete({
    ref: { type: "ref/prompt", name: "investigate_feature" },
    argument: { name: "procedure", value: first },
  });
  assert.ok(exact.completion.values.includes(first), `completing ${first} offers it`);

  const resources = (await client.listResources()).resources.map((resource) => resource.uri)
    .filter((uri) => uri.startsWith("rea://"));
  assert.deepEqual(resources, [page.evidence_uri]);
  assert.deepEqual(session.errors, []);
});

Deno.test("serveHttp keeps two clients in two independent sessions", async () => {
  await using server = await startHttpServer();
  await using a = await connectHttp(server.url);
  await using b = await connectHttp(server.url);
  assert.ok(a.transport.sessionId);
  assert.ok(b.transport.sessionId);
  assert.notEqual(a.transport.sessionId, b.transport.sessionId);

  structured(await a.client.callTool({ name: "open_binary", arguments: { path: "/usr/bin/ls" } }));
  const recorded = structured<{ evidence_uri: string }>(
    await a.client.callTool({ name: "list_procedures", arguments: { limit: 5 } }),
  );

  const evidenceOf = async (client: typeof a.client): Promise<string[]> =>
    (await client.listResources()).resources.map((resource) => resource.uri)
      .filter((uri) => uri.startsWith("rea://"));
  const inA = await evidenceOf(a.client);
  const inB = await evidenceOf(b.client);
  assert.deepEqual(inA, [recorded.evidence_uri]);
  assert.deepEqual(inB, [], "B sees none of A's Evidence");

  const statusB = structured<{ result: { target: unknown; ledger: { records: number } } }>(
    await b.client.callTool({ name: "binary_session", arguments: {} }),
  );
  assert.equal(statusB.result.target, null, "B has no open target");
  assert.equal(statusB.result.ledger.records, 0);
  const failed = await b.client.callTool({ name: "list_procedures", arguments: {} }) as ToolResult;
  assert.equal(failed.isError, true);
  assert.equal((failed.structuredContent?.error as { code: string }).code, "target_unavailable");

  // Reading A's Evidence from B fails; from A it works.
  await assert.rejects(b.client.readResource({ uri: recorded.evidence_uri }), /not found/);
  const read = await a.client.readResource({ uri: recorded.evidence_uri });
  assert.equal(read.contents[0]?.uri, recorded.evidence_uri);
});

Deno.test("serveHttp delivers open_binary's read progress to an SDK client over SSE", async () => {
  // An ELF file of 40 MiB and more (ls followed by zeros) is read in several chunks.
  await withTempDir(async (root) => {
    const ls = await Deno.readFile("/usr/bin/ls");
    const big = new Uint8Array(ls.length + 40 * 1024 * 1024);
    big.set(ls);
    await Deno.writeFile(`${root}/big-ls`, big);
    await using server = await startHttpServer({ roots: [root] });
    await using session = await connectHttp(server.url);
    const progress: { progress: number; total?: number; message?: string }[] = [];
    const opened = structured(
      await session.client.callTool(
        { name: "open_binary", arguments: { path: `${root}/big-ls` } },
        undefined,
        { onprogress: (event) => progress.push(event) },
      ),
    ) as { result: { target: { size: number } } };
    assert.equal(opened.result.target.size, big.length);
    // The last events may race the response and be dropped by the SDK client (#2580).
    assert.ok(progress.length >= 2, `progress events: ${JSON.stringify(progress)}`);
    for (let i = 1; i < progress.length; i++) {
      assert.ok(progress[i]!.progress > progress[i - 1]!.progress, "progress increases");
    }
    for (const event of progress) {
      assert.equal(event.total, 100);
      assert.match(event.message ?? "", new RegExp(`^read \\d+ of ${big.length} bytes$`));
    }
  }, { prefix: "casefile-progress-" });
});

Deno.test("serveHttp rejects a foreign Host or Origin with 403 and accepts loopback ones (DNS rebinding)", async () => {
  await using server = await startHttpServer();
  const { port } = server;
  const base = { "Content-Type": "application/json", Accept: ACCEPT };

  const evilHost = await rawHttp(port, {
    headers: { ...base, Host: "evil.example.com" },
    body: INITIALIZE,
  });
  assert.equal(evilHost.status, 403, evilHost.body);
  assert.match(evilHost.body, /evil\.example\.com/);

  const evilHostPort = await rawHttp(port, {
    headers: { ...base, Host: `evil.example.com:${port}` },
    body: INITIALIZE,
  });
  assert.equal(evilHostPort.status, 403);

  const otherPort = await rawHttp(port, {
    headers: { ...base, Host: "127.0.0.1:1" },
    body: INITIALIZE,
  });
  assert.equal(otherPort.status, 403, "a loopback name with another port is not this server");

  const evilOrigin = await rawHttp(port, {
    headers: { ...base, Host: `127.0.0.1:${port}`, Origin: "http://evil.example.com" },
    body: INITIALIZE,
  });
  assert.equal(evilOrigin.status, 403, evilOrigin.body);

  const httpsOrigin = await rawHttp(port, {
    headers: { ...base, Host: `127.0.0.1:${port}`, Origin: `https://evil.example.com:${port}` },
    body: INITIALIZE,
  });
  assert.equal(httpsOrigin.status, 403);

  // The foreign checks come before routing: even an unknown path is refused first.
  const evilOtherPath = await rawHttp(port, {
    method: "GET",
    path: "/elsewhere",
    headers: { Host: "evil.example.com" },
  });
  assert.equal(evilOtherPath.status, 403);

  const goodHeaders: Record<string, string>[] = [
    { Host: `127.0.0.1:${port}`, Origin: `http://localhost:${port}` },
    { Host: `localhost:${port}`, Origin: `http://127.0.0.1:${port}` },
    { Host: `127.0.0.1:${port}` },
  ];
  for (const headers of goodHeaders) {
    const good = await rawHttp(port, { headers: { ...base, ...headers }, body: INITIALIZE });
    assert.equal(good.status, 200, `${JSON.stringify(headers)}: ${good.body}`);
    assert.ok(good.headers.get("mcp-session-id"), "initialize assigns a session");
    assert.match(good.body, /"protocolVersion"/);
  }
});

Deno.test("serveHttp accepts an extra Host and Origin given with --allow-host and --allow-origin", async () => {
  await using server = await startHttpServer({
    args: ["--allow-host", "mcp.example.test", "--allow-origin", "https://app.example.test"],
  });
  const base = { "Content-Type": "application/json", Accept: ACCEPT };
  const good = await rawHttp(server.port, {
    headers: { ...base, Host: "mcp.example.test", Origin: "https://app.example.test" },
    body: INITIALIZE,
  });
  assert.equal(good.status, 200, good.body);
  const stillEvil = await rawHttp(server.port, {
    headers: { ...base, Host: "evil.example.com" },
    body: INITIALIZE,
  });
  assert.equal(stillEvil.status, 403);
});

Deno.test("serveHttp with --token requires the bearer token: 401 with WWW-Authenticate without or with a wrong one", async () => {
  await using server = await startHttpServer({ args: ["--token", "s3cret"] });
  assert.ok(
    server.proc.stderr.lines.some((line) => line.includes("(bearer token required)")),
    "the startup line says a token is required",
  );

  const missing = await post(server.url);
  assert.equal(missing.status, 401);
  assert.match(missing.headers.get("www-authenticate") ?? "", /^Bearer\b/);
  assert.equal(missing.headers.get("mcp-session-id"), null);

  for (
    const authorization of [
      "Bearer wrong",
      "Bearer s3cret2",
      "Bearer s3cre",
      "Basic czNjcmV0",
      "s3cret",
    ]
  ) {
    const wrong = await post(server.url, { authorization });
    assert.equal(wrong.status, 401, authorization);
    assert.match(wrong.headers.get("www-authenticate") ?? "", /^Bearer\b/);
  }

  // The SDK client without the token cannot connect.
  const transport = new StreamableHTTPClientTransport(new URL(server.url));
  const refused = new Client({ name: "no-token", version: "0.0.0" });
  await assert.rejects(refused.connect(transport), /401|Unauthorized/);
  await refused.close();

  await using session = await connectHttp(server.url, { Authorization: "Bearer s3cret" });
  assert.ok(session.transport.sessionId);
  const names = (await session.client.listTools()).tools.map((tool) => tool.name);
  assert.ok(names.includes("open_binary"));
  structured(
    await session.client.callTool({ name: "open_binary", arguments: { path: "/usr/bin/ls" } }),
  );

  // A request in the session without the token is refused too.
  const noTokenInSession = await post(
    server.url,
    { "mcp-session-id": session.transport.sessionId ?? "" },
    JSON.stringify({ jsonrpc: "2.0", id: 99, method: "ping" }),
  );
  assert.equal(noTokenInSession.status, 401);
});

Deno.test("serveHttp reads the bearer token from CASEFILE_TOKEN when granted --allow-env=CASEFILE_TOKEN", async () => {
  await using server = await startHttpServer({
    env: { CASEFILE_TOKEN: "from-env" },
    allowEnv: "CASEFILE_TOKEN",
  });
  assert.ok(server.proc.stderr.lines.some((line) => line.includes("(bearer token required)")));
  const missing = await post(server.url);
  assert.equal(missing.status, 401);
  assert.match(missing.headers.get("www-authenticate") ?? "", /^Bearer\b/);
  assert.equal((await post(server.url, { authorization: "Bearer s3cret" })).status, 401);

  await using session = await connectHttp(server.url, { Authorization: "Bearer from-env" });
  assert.ok(session.transport.sessionId);
  assert.ok((await session.client.listTools()).tools.length > 0);
});

Deno.test("serveHttp answers GET /mcp without a session with a finite 4xx, an unknown path with 404 and an unknown session with 404", async () => {
  await using server = await startHttpServer();

  const get = await fetch(server.url, { headers: { accept: "text/event-stream" } });
  const getBody = await withTimeout(get.text(), 3_000, "GET /mcp to end instead of streaming");
  assert.ok(get.status >= 400 && get.status < 500, `GET /mcp: ${get.status}`);
  assert.notEqual(get.headers.get("content-type"), "text/event-stream");
  assert.match(getBody, /session/i);

  for (const path of ["/", "/nope", "/mcp/extra", "/MCP"]) {
    const other = await fetch(new URL(path, server.url));
    await withTimeout(other.text(), 3_000, `GET ${path}`);
    assert.equal(other.status, 404, path);
  }

  const unknown = crypto.randomUUID();
  const ping = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" });
  const posted = await post(server.url, { "mcp-session-id": unknown }, ping);
  assert.equal(posted.status, 404, posted.body);
  assert.match(posted.body, /Session not found/);

  const streamed = await fetch(server.url, {
    headers: { accept: "text/event-stream", "mcp-session-id": unknown },
  });
  await withTimeout(streamed.text(), 3_000, "GET with an unknown session");
  assert.equal(streamed.status, 404);

  // A terminated session is unknown afterwards.
  const session = await connectHttp(server.url);
  const id = session.transport.sessionId ?? "";
  await session[Symbol.asyncDispose]();
  const afterDelete = await post(server.url, { "mcp-session-id": id }, ping);
  assert.equal(afterDelete.status, 404, "a DELETEd session is gone");
});

Deno.test("serveHttp refuses a 17th session of one principal and a 21st overall with 503 (--max-sessions 20), and accepts one again after a DELETE", async () => {
  await using server = await startHttpServer({
    args: ["--max-sessions", "20", "--token", "one", "--token", "two"],
  });
  const ids: string[] = [];
  for (let i = 0; i < 16; i++) {
    const opened = await post(server.url, { authorization: "Bearer one" });
    assert.equal(opened.status, 200, `session ${i + 1}: ${opened.body}`);
    ids.push(opened.headers.get("mcp-session-id") ?? "");
  }
  assert.equal(new Set(ids).size, 16, "16 distinct session ids");
  const refused = await post(server.url, { authorization: "Bearer one" });
  assert.equal(refused.status, 503, refused.body);
  assert.match(refused.body, /at most 16 per principal, --max-sessions-per-principal/);
  for (let i = 0; i < 4; i++) {
    assert.equal((await post(server.url, { authorization: "Bearer two" })).status, 200);
  }
  const full = await post(server.url, { authorization: "Bearer two" });
  assert.equal(full.status, 503, full.body);
  assert.match(full.body, /at most 20, --max-sessions\)/);

  const deleted = await fetch(server.url, {
    method: "DELETE",
    headers: { "mcp-session-id": ids[0]!, authorization: "Bearer one" },
  });
  await deleted.body?.cancel();
  assert.equal(deleted.status, 200);
  const again = await post(server.url, { authorization: "Bearer one" });
  assert.equal(again.status, 200, again.body);
});

Deno.test("serveHttp exits 0 promptly on SIGTERM with a client connected, and frees the port", async () => {
  await using server = await startHttpServer();
  await using session = await connectHttp(server.url);
  structured(
    await session.client.callTool({ name: "open_binary", arguments: { path: "/usr/bin/ls" } }),
  );
  assert.equal(portIsFree(server.port), false, "the server holds the port while running");

  const start = performance.now();
  server.proc.child.kill("SIGTERM");
  const status = await server.proc.waitExit(2_000);
  const took = performance.now() - start;
  assert.equal(status.code, 0, server.proc.stderr.text());
  assert.equal(status.signal, null);
  assert.ok(took < 2_000, `exited after ${Math.round(took)} ms`);
  assert.equal(portIsFree(server.port), true, "the port is free after exit");
});

Deno.test("mod.ts --http with an empty --token either refuses it or serves what its startup line announces", async () => {
  await using proc = ServerProcess.spawn([
    "--http",
    "127.0.0.1:0",
    "--root",
    "/usr/bin",
    "--token",
    "",
  ], {
    allowRead: ["/usr/bin"],
    allowNet: "127.0.0.1",
    stdin: "null",
  });
  const first = await proc.stderr.waitFor(
    (line) => line.startsWith("casefile:"),
    15_000,
    "a startup line",
  );
  const listening = LISTENING.exec(first);
  if (!listening) {
    // Refusing the empty token is fine: a usage error naming --token.
    const status = await proc.waitExit(5_000);
    assert.equal(status.code, 2, proc.stderr.text());
    assert.match(first, /^casefile: .*--token/);
    return;
  }
  const url = `http://127.0.0.1:${listening[1]}/mcp`;
  const announcesToken = first.includes("(bearer token required)");
  const unauthenticated = await post(url);
  assert.equal(
    unauthenticated.status,
    announcesToken ? 401 : 200,
    `startup line ${
      JSON.stringify(first)
    } but an unauthenticated initialize got ${unauthenticated.status}`,
  );
  // With an empty token no client can ever authenticate, so "required" would be a lockout.
  assert.equal(announcesToken, false, "an empty token must not lock every client out");
});

/**
 * A global (non-loopback, non-link-local) IPv6 address of this machine; null if none.
 * Asked of a `deno eval` child, since the test may not read the interfaces itself
 * (`Deno.networkInterfaces` needs --allow-sys, /proc/net needs --allow-all).
 */
function globalIpv6Address(): string | null {
  const output = new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-config", "console.log(JSON.stringify(Deno.networkInterfaces()))"],
    stdout: "piped",
    stderr: "null",
  }).outputSync();
  if (!output.success) return null;
  const interfaces = JSON.parse(decoder.decode(output.stdout)) as Deno.NetworkInterfaceInfo[];
  const found = interfaces.find((info) =>
    info.family === "IPv6" && info.address !== "::1" && !/^fe[89ab]/i.test(info.address) &&
    !info.address.includes("%")
  );
  return found ? new URL(`http://[${found.address}]/`).hostname.slice(1, -1) : null;
}

const IPV6 = globalIpv6Address();
if (IPV6 === null) {
  console.log("http_test: skipping the IPv6 bind test: this machine has no global IPv6 address.");
}

Deno.test({
  name:
    "serveHttp bound to an IPv6 address accepts requests addressed to it ([addr]:PORT Host and Origin)",
  ignore: IPV6 === null,
  fn: async () => {
    const address = IPV6!;
    // The test itself may only reach 127.0.0.1, so a `deno eval` child (all permissions) is the client.
    await using proc = ServerProcess.spawn(["--http", `[${address}]:0`], {
      allowNet: `[${address}]`,
      stdin: "null",
    });
    const pattern = /casefile: listening on (http:\/\/\[[0-9a-f:]+\]:(\d+)\/mcp)/;
    const line = await proc.stderr.waitFor(
      (text) => pattern.test(text),
      15_000,
      "the listening line",
    );
    const [, url, port] = pattern.exec(line)!;
    assert.equal(url, `http://[${address}]:${port}/mcp`);
    const client = `
      const statuses = [];
      for (const origin of [null, ${JSON.stringify(`http://[${address}]:${port}`)}]) {
        const response = await fetch(${JSON.stringify(url)}, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: ${JSON.stringify(ACCEPT)},
            ...(origin ? { origin } : {}),
          },
          body: ${JSON.stringify(INITIALIZE)},
        });
        statuses.push([response.status, await response.text()]);
      }
      console.log(JSON.stringify(statuses));
    `;
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["eval", "--no-config", client],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(output.code, 0, decoder.decode(output.stderr));
    const [plain, withOrigin] = JSON.parse(decoder.decode(output.stdout)) as [number, string][];
    assert.equal(plain?.[0], 200, `Host [${address}]:${port}: ${plain?.[1]}`);
    assert.equal(withOrigin?.[0], 200, `Origin http://[${address}]:${port}: ${withOrigin?.[1]}`);
  },
});
