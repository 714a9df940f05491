import { decompress } from "./src/apps/artifacts/compression.ts";
const bytes = await Deno.readFile(Deno.args[0]!);
const split = Number(Deno.args[1] ?? 0);
const warnings: string[] = [];
const parts = split ? [bytes.subarray(0, split), bytes.subarray(split)] : [bytes];
const input = new ReadableStream<Uint8Array>({ start(c) { for (const p of parts) c.enqueue(p); c.close(); } });
try {
const out = decompress("bzip2", input, { maxOutputBytes: 1e9, maxRatio: 1e6, onWarning: (w) => warnings.push(w) });
const buf = new Uint8Array(await new Response(out).arrayBuffer());
const h = new Uint8Array(await crypto.subtle.digest("SHA-256", buf));
console.log(buf.length, Array.from(h, (b) => b.toString(16).padStart(2, "0")).join(""), warnings);
} catch (e) { console.log("ERR", (e as Error).message); }
