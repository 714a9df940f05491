/**
 * CIDR blocks as address ranges: enough to tell whether several blocks
 * together cover every address of a family (`0.0.0.0/1` + `128.0.0.0/1`
 * is the whole IPv4 internet, as `0.0.0.0/0` is).
 *
 * @module
 */

/** One CIDR block as an inclusive range of addresses. */
export interface CidrRange {
  family: 4 | 6;
  start: bigint;
  end: bigint;
}

function ipv4(text: string): bigint | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let out = 0n;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return null;
    out = (out << 8n) | BigInt(p);
  }
  return out;
}

function ipv6(text: string): bigint | null {
  if (!/^[0-9a-fA-F:.]+$/.test(text) || text.includes(".")) return null;
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const groups = (s: string): string[] => (s === "" ? [] : s.split(":"));
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 0) return null;
  let out = 0n;
  for (const g of [...head, ...Array(missing).fill("0"), ...tail]) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
    out = (out << 16n) | BigInt(parseInt(g, 16));
  }
  return out;
}

/** The range of a CIDR block (`10.0.0.0/8`, `::/0`; a bare address is one address), or null. */
export function cidrRange(cidr: string): CidrRange | null {
  const [address = "", prefixText] = cidr.trim().split("/");
  const v6 = address.includes(":");
  const bits = v6 ? 128 : 32;
  const value = v6 ? ipv6(address) : ipv4(address);
  if (value === null) return null;
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (!/^\d{1,3}$/.test(prefixText ?? String(bits)) || prefix > bits) return null;
  const hostBits = BigInt(bits - prefix);
  const start = (value >> hostBits) << hostBits;
  return { family: v6 ? 6 : 4, start, end: start + (1n << hostBits) - 1n };
}

/** Whether the ranges of one family together cover every address of it. */
export function coversFamily(ranges: readonly CidrRange[], family: 4 | 6): boolean {
  const last = (1n << (family === 6 ? 128n : 32n)) - 1n;
  const sorted = ranges.filter((r) => r.family === family).sort((a, b) =>
    a.start < b.start ? -1 : a.start > b.start ? 1 : 0
  );
  let next = 0n;
  for (const r of sorted) {
    if (r.start > next) return false;
    if (r.end + 1n > next) next = r.end + 1n;
    if (next > last) return true;
  }
  return false;
}
