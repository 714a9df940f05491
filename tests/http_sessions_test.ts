/**
 * HTTP session limits and JSON-RPC edge cases of `serveHttp`, in process:
 * the per-principal and overall session caps, idle sessions closed to make
 * room and by the idle timeout, and an empty batch answered with -32600.
 */

import assert from "node:assert/strict";
import { type HttpEndpoint, serveHttp } from "../src/http.ts";
import { createServer } from "../src/workbenches.ts";
import { initializeRequest } from "./helpers/spawn.ts";

const ACCEPT = "application/json, text/event-stream";

interface Answer {
  status: number;
  session: string | null;
  body: string;
}

async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: ACCEPT, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return {
    status: response.status,
    session: response.headers.get("mcp-session-id"),
    body: await response.text(),
  };
}

async function open(url: string, token: string): Promise<Answer> {
  return await post(url, initializeRequest(1), { authorization: `Bearer ${token}` });
}

/** The session limits a test sets; what it leaves out is roomy (10 sessions, one minute). */
interface Limits {
  maxSessions?: number;
  maxSessionsPerPrincipal?: number;
  idleTimeoutMs?: number;
  evictIdleAfterMs?: number;
}

/** Serves an empty server with these limits to `run`, and shuts it down after. */
async function withEndpoint(
  limits: Limits,
  run: (http: HttpEndpoint) => Promise<void>,
): Promise<void> {
  const http = await serveHttp({
    hostname: "127.0.0.1",
    port: 0,
    tokens: ["alpha", "beta", "gamma"],
    maxSessions: 10,
    maxSessionsPerPrincipal: 10,
    idleTimeoutMs: 60_000,
    evictIdleAfterMs: 60_000,
    ...limits,
    createSession: () => createServer({ workbenches: [] }),
    log: () => {},
  });
  try {
    await run(http);
  } finally {
    await http.shutdown();
  }
}

/** The headers of a request on an open session of the `alpha` token. */
function sessionHeaders(session: string | null): Record<string, string> {
  return {
    authorization: "Bearer alpha",
    "mcp-session-id": session!,
    "mcp-protocol-version": "2025-11-25",
  };
}

Deno.test("serveHttp caps sessions per principal, so one token cannot hold every slot", async () => {
  await withEndpoint({ maxSessions: 5, maxSessionsPerPrincipal: 2 }, async (http) => {
    for (let i = 0; i < 2; i++) assert.equal((await open(http.url, "alpha")).status, 200);
    const third = await open(http.url, "alpha");
    assert.equal(third.status, 503, third.body);
    assert.match(third.body, /--max-sessions-per-principal/);
    // Another token still gets its own share.
    for (let i = 0; i < 2; i++) assert.equal((await open(http.url, "beta")).status, 200);
    assert.equal((await open(http.url, "gamma")).status, 200);
    // The overall cap holds too.
    const sixth = await open(http.url, "gamma");
    assert.equal(sixth.status, 503, sixth.body);
    assert.match(sixth.body, /at most 5, --max-sessions\)/);
    assert.equal(http.sessionCount(), 5);
  });
});

Deno.test("serveHttp closes a principal's least recently used idle session to make room, never a fresh one", async () => {
  await withEndpoint({ maxSessionsPerPrincipal: 2, evictIdleAfterMs: 300 }, async (http) => {
    const ping = (session: string | null, id: number): Promise<Answer> =>
      post(http.url, { jsonrpc: "2.0", id, method: "ping" }, sessionHeaders(session));
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const first = await open(http.url, "alpha");
    const second = await open(http.url, "alpha");
    assert.equal((await open(http.url, "alpha")).status, 503, "both are fresh");
    await sleep(400);
    // The first is used again: both are idle past 300 ms below, the second for longer.
    assert.equal((await ping(first.session, 2)).status, 200);
    await sleep(400);
    const third = await open(http.url, "alpha");
    assert.equal(third.status, 200, third.body);
    assert.equal((await ping(second.session, 3)).status, 404, "the least recently used went");
    assert.equal((await ping(first.session, 4)).status, 200, "the other stays");
    assert.equal(http.sessionCount(), 2);
  });
});

Deno.test("serveHttp closes sessions idle past the idle timeout", async () => {
  await withEndpoint({ idleTimeoutMs: 200, evictIdleAfterMs: 200 }, async (http) => {
    for (let i = 0; i < 3; i++) assert.equal((await open(http.url, "beta")).status, 200);
    assert.equal(http.sessionCount(), 3);
    const deadline = Date.now() + 3_000;
    while (http.sessionCount() > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(http.sessionCount(), 0);
  });
});

Deno.test("serveHttp answers an empty JSON-RPC batch with one Invalid Request error (-32600)", async () => {
  await withEndpoint({}, async (http) => {
    const opened = await open(http.url, "alpha");
    const headers = sessionHeaders(opened.session);
    for (const body of ["[]", " [ \n ] "]) {
      const answer = await post(http.url, body, headers);
      assert.equal(answer.status, 400, answer.body);
      const parsed = JSON.parse(answer.body);
      assert.equal(parsed.jsonrpc, "2.0");
      assert.equal(parsed.id, null);
      assert.equal(parsed.error.code, -32600);
    }
    // A batch with a message, and a single message, still work on the same session.
    const ping = await post(http.url, [{ jsonrpc: "2.0", id: 5, method: "ping" }], headers);
    assert.equal(ping.status, 200, ping.body);
    assert.match(ping.body, /"id":5/);
    // Without a session an empty batch is refused the same way.
    const bare = await post(http.url, "[]", { authorization: "Bearer alpha" });
    assert.equal(JSON.parse(bare.body).error.code, -32600);
    assert.equal(http.sessionCount(), 1);
  });
});

Deno.test("serveHttp opens each POST stream with a priming event id and a retry delay, and replays it after Last-Event-ID", async () => {
  await withEndpoint({}, async (http) => {
    const opened = await open(http.url, "alpha");
    const headers = sessionHeaders(opened.session);
    const ping = await post(http.url, { jsonrpc: "2.0", id: 7, method: "ping" }, headers);
    assert.equal(ping.status, 200, ping.body);
    const priming = /^id: (\S+)\nretry: (\d+)\ndata: \n\n/.exec(ping.body);
    assert.ok(priming, `no priming event: ${JSON.stringify(ping.body)}`);
    assert.equal(Number(priming[2]), 1000);
    assert.match(ping.body, /"id":7/);
    // Reconnecting after the priming event replays the answer on that stream.
    const replay = await fetch(http.url, {
      method: "GET",
      headers: { ...headers, accept: "text/event-stream", "last-event-id": priming[1]! },
    });
    assert.equal(replay.status, 200);
    const reader = replay.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!/"id":7/.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    await reader.cancel();
    assert.match(text, /"id":7/);
  });
});
