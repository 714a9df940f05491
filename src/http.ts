/**
 * Streamable HTTP transport under `Deno.serve`: stateful sessions (one
 * Casefile server per MCP session, so progress and server-to-client requests
 * work), DNS-rebinding protection through Host and Origin checks, an
 * optional bearer token, a cap on sessions overall and per principal (the
 * bearer token a session was opened with), and idle sessions closed after a
 * timeout or, when a cap is reached, to make room.
 *
 * Requires `--allow-net` for the listening address.
 *
 * @module
 */

import {
  loadStreamableHttpTransport,
  type WebStandardStreamableHTTPServerTransport,
} from "./sdk.ts";
import type { CasefileServer } from "./server.ts";
import type { Logger } from "./core/log.ts";
import { SessionEventStore } from "./sse_event_store.ts";

/** Options of {@linkcode serveHttp}. */
export interface ServeHttpOptions {
  /** The address to bind. @default "127.0.0.1" */
  hostname?: string;
  /** 0 picks a free port. @default 8787 */
  port?: number;
  /** Require `Authorization: Bearer <token>`. @default undefined (no token) */
  token?: string;
  /** More accepted bearer tokens (any one admits a request). @default [] */
  tokens?: string[];
  /** Extra `Host` header values to accept (`name` or `name:port`). @default [] */
  allowedHosts?: string[];
  /** Extra `Origin` values to accept. @default [] */
  allowedOrigins?: string[];
  /** Most concurrent sessions. @default 64 */
  maxSessions?: number;
  /** Most concurrent sessions of one principal (one bearer token, or all anonymous clients). @default 16 */
  maxSessionsPerPrincipal?: number;
  /** Sessions idle this long are closed. @default 900_000 (15 minutes) */
  idleTimeoutMs?: number;
  /**
   * When a cap is reached, the least recently used session in its scope is
   * closed to make room if it has been idle this long. @default 60_000 (or the idle timeout, if shorter)
   */
  evictIdleAfterMs?: number;
  /** Builds the server of one new session. */
  createSession: (token?: string) => CasefileServer;
  /** Where to log. */
  log: Logger;
  /** Called once the listener is bound. */
  onListen?: (address: { hostname: string; port: number }) => void;
}

/** A running HTTP endpoint. */
export interface HttpEndpoint {
  /** The bound address. */
  readonly hostname: string;
  /** The bound port. */
  readonly port: number;
  /** `http://host:port/mcp`. */
  readonly url: string;
  /** Open sessions. */
  sessionCount(): number;
  /** Closes every session and stops listening. */
  shutdown(): Promise<void>;
  /** Resolves when the listener has stopped. */
  readonly finished: Promise<void>;
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  casefile: CasefileServer;
  /** Who opened it: the matched bearer token, or "" for anonymous clients. */
  principal: string;
  lastSeen: number;
  /** Requests being handled right now (a busy session is never idle). */
  inFlight: number;
}

/** Default of {@linkcode ServeHttpOptions.maxSessions}. */
export const DEFAULT_MAX_SESSIONS = 64;
/** Default of {@linkcode ServeHttpOptions.maxSessionsPerPrincipal}. */
export const DEFAULT_MAX_SESSIONS_PER_PRINCIPAL = 16;
/** Default of {@linkcode ServeHttpOptions.idleTimeoutMs}. */
export const DEFAULT_IDLE_TIMEOUT_MS = 900_000;

/** The reconnection delay SSE streams announce (`retry:`), in milliseconds. */
export const SSE_RETRY_MS = 1_000;

/** Leading bytes of a POST body looked at for an empty batch; longer bodies go to the SDK. */
const EMPTY_BATCH_SCAN_BYTES = 64 * 1024;

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];

/** Starts the endpoint; resolves once it listens. */
export function serveHttp(options: ServeHttpOptions): Promise<HttpEndpoint> {
  const hostname = options.hostname ?? "127.0.0.1";
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const perPrincipal = options.maxSessionsPerPrincipal ?? DEFAULT_MAX_SESSIONS_PER_PRINCIPAL;
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const evictAfterMs = Math.min(options.evictIdleAfterMs ?? 60_000, idleTimeoutMs);
  const sessions = new Map<string, Session>();
  const log = options.log;
  const transportModule = loadStreamableHttpTransport();
  const accepted = [
    ...(options.token !== undefined ? [options.token] : []),
    ...(options.tokens ?? []),
  ];
  let allowedHosts = new Set<string>();
  let allowedOrigins = new Set<string>();

  const closeSession = async (id: string): Promise<void> => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    await session.casefile.close().catch(() => {});
  };

  /** Closes the least recently used idle session among `candidates`; whether one was closed. */
  const evictIdle = async (candidates: Array<[string, Session]>): Promise<boolean> => {
    const cutoff = Date.now() - evictAfterMs;
    const idle = candidates.filter(([, s]) => s.inFlight === 0 && s.lastSeen <= cutoff)
      .sort(([, a], [, b]) => a.lastSeen - b.lastSeen)[0];
    if (!idle) return false;
    log("info", `HTTP session ${idle[0]} idle; closing it to make room`);
    await closeSession(idle[0]);
    return true;
  };

  /** Refusal when no slot can be made for a new session of `principal`; null when one is free. */
  const makeRoom = async (principal: string): Promise<Response | null> => {
    const own = [...sessions].filter(([, s]) => s.principal === principal);
    if (own.length >= perPrincipal && !(await evictIdle(own))) {
      return jsonError(
        503,
        -32000,
        `Too many sessions for this client (at most ${perPrincipal} per principal, --max-sessions-per-principal); close one (DELETE) first.`,
      );
    }
    if (sessions.size >= maxSessions && !(await evictIdle([...sessions]))) {
      return jsonError(
        503,
        -32000,
        `Too many sessions (at most ${maxSessions}, --max-sessions); close one (DELETE) first.`,
      );
    }
    return null;
  };

  /** Runs one request of a session, which counts as busy until the transport has answered. */
  const within = async (session: Session, run: () => Promise<Response>): Promise<Response> => {
    session.inFlight++;
    session.lastSeen = Date.now();
    try {
      return await run();
    } finally {
      session.inFlight--;
      session.lastSeen = Date.now();
    }
  };

  const handle = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const host = request.headers.get("host") ?? "";
    if (!allowedHosts.has(host.toLowerCase())) {
      return jsonError(403, -32000, `Forbidden: Host ${JSON.stringify(host)} is not allowed.`);
    }
    const origin = request.headers.get("origin");
    if (origin !== null && !allowedOrigins.has(origin.toLowerCase())) {
      return jsonError(403, -32000, `Forbidden: Origin ${JSON.stringify(origin)} is not allowed.`);
    }
    if (url.pathname !== "/mcp") return new Response("Not found\n", { status: 404 });
    const matched = accepted.find((token) => bearerMatches(request, token));
    if (accepted.length > 0 && matched === undefined) {
      return new Response(
        JSON.stringify({
          jsonrpc: "2.0",
          error: { code: -32001, message: "Unauthorized" },
          id: null,
        }),
        {
          status: 401,
          headers: {
            "content-type": "application/json",
            "www-authenticate": 'Bearer realm="casefile"',
          },
        },
      );
    }
    if (request.method === "POST" && await isEmptyBatch(request)) {
      // JSON-RPC 2.0: an empty array is an Invalid Request, answered with one error.
      return jsonError(400, -32600, "Invalid Request: an empty batch holds no message.");
    }
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId !== null) {
      const session = sessions.get(sessionId);
      if (!session) return jsonError(404, -32001, "Session not found");
      return await within(session, () => session.transport.handleRequest(request));
    }
    if (request.method !== "POST") {
      return jsonError(400, -32000, "Bad Request: no valid session id; send initialize first.");
    }
    const principal = matched ?? "";
    const full = await makeRoom(principal);
    if (full) return full;
    const { WebStandardStreamableHTTPServerTransport } = await transportModule;
    const casefile = options.createSession(matched);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      // Resumable streams: each POST stream opens with a priming event id and a retry delay,
      // so a client whose stream closes (or is closed to make it poll) reconnects and resumes.
      eventStore: new SessionEventStore(),
      retryInterval: SSE_RETRY_MS,
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, casefile, principal, lastSeen: Date.now(), inFlight: 0 });
        log("info", `HTTP session ${id} opened`);
      },
      onsessionclosed: (id) => {
        log("info", `HTTP session ${id} closed`);
        void closeSession(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) void closeSession(transport.sessionId);
    };
    await casefile.connect(transport);
    const response = await transport.handleRequest(request);
    if (!transport.sessionId) await casefile.close().catch(() => {}); // not an initialize
    return response;
  };

  const reaper = setInterval(() => {
    const cutoff = Date.now() - idleTimeoutMs;
    for (const [id, session] of sessions) {
      if (session.inFlight === 0 && session.lastSeen < cutoff) {
        log("info", `HTTP session ${id} idle; closing it`);
        void closeSession(id);
      }
    }
  }, Math.max(10, Math.min(idleTimeoutMs / 4, 60_000)));
  Deno.unrefTimer(reaper);

  return new Promise((resolve, reject) => {
    let server: Deno.HttpServer<Deno.NetAddr>;
    try {
      server = Deno.serve({
        hostname,
        port: options.port ?? 8787,
        onListen: (addr) => {
          const port = addr.port;
          const self = hostname.includes(":") ? `[${hostname}]` : hostname;
          allowedHosts = new Set(
            [
              ...LOOPBACK_NAMES.flatMap((name) => [name, `${name}:${port}`]),
              self,
              `${self}:${port}`,
              ...(options.allowedHosts ?? []),
            ].map((h) => h.toLowerCase()),
          );
          allowedOrigins = new Set(
            [
              ...LOOPBACK_NAMES.map((name) => `http://${name}:${port}`),
              `http://${self}:${port}`,
              ...(options.allowedOrigins ?? []),
            ].map((o) => o.toLowerCase()),
          );
          options.onListen?.({ hostname, port });
        },
        onError: (error) => {
          log("error", `HTTP handler failed: ${String(error)}`);
          return jsonError(500, -32603, "Internal error");
        },
      }, handle);
    } catch (error) {
      clearInterval(reaper);
      reject(error);
      return;
    }
    const port = server.addr.port;
    const finished = server.finished.finally(() => clearInterval(reaper));
    resolve({
      hostname,
      port,
      url: `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}/mcp`,
      sessionCount: () => sessions.size,
      finished,
      shutdown: async () => {
        clearInterval(reaper);
        await Promise.all([...sessions.keys()].map(closeSession));
        await server.shutdown();
      },
    });
  });
}

function bearerMatches(request: Request, token: string): boolean {
  const header = request.headers.get("authorization") ?? "";
  const match = /^Bearer\s+(.+)$/i.exec(header);
  if (!match) return false;
  const given = new TextEncoder().encode(match[1]);
  const expected = new TextEncoder().encode(token);
  let diff = given.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) diff |= (given[i] ?? 0) ^ (expected[i] ?? 0);
  return diff === 0;
}

/**
 * Whether a POST body is an empty JSON-RPC batch (`[]`, whitespace allowed),
 * read from a copy of the request so the transport still gets the body.
 */
async function isEmptyBatch(request: Request): Promise<boolean> {
  if (request.body === null) return false;
  const reader = request.clone().body!.getReader();
  let seen = 0;
  let opened = false;
  try {
    while (seen < EMPTY_BATCH_SCAN_BYTES) {
      const { value, done } = await reader.read();
      if (done) return false;
      for (const byte of value) {
        seen++;
        if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d) continue;
        if (!opened && byte === 0x5b) {
          opened = true;
          continue;
        }
        return opened && byte === 0x5d;
      }
    }
    return false;
  } finally {
    await reader.cancel().catch(() => {});
  }
}

function jsonError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json" },
  });
}
