/**
 * CIDR blocks as address ranges: enough to tell whether several blocks
 * together cover every address of a family (`0.0.0.0/1` + `128.0.0.0/1`
 * is the whole IPv4 internet, as `0.0.0.0/0` is).
 *
 * @module
 */

import ipaddr from "ipaddr.js";

/** One CIDR block as an inclusive range of addresses. */
export interface CidrRange {
  family: 4 | 6;
  start: bigint;
  end: bigint;
}

/**
 * The range of a CIDR block (`10.0.0.0/8`, `::/0`; a bare address is one address), or null,
 * parsed by `ipaddr.js` (the library the policy detectors use).
 */
export function cidrRange(cidr: string): CidrRange | null {
  const text = cidr.trim();
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  let prefix: number | null = null;
  try {
    if (text.includes("/")) [address, prefix] = ipaddr.parseCIDR(text);
    else address = ipaddr.parse(text);
  } catch {
    return null;
  }
  const family = address.kind() === "ipv6" ? 6 : 4;
  let value = 0n;
  for (const byte of address.toByteArray()) value = (value << 8n) | BigInt(byte);
  const hostBits = BigInt(prefix === null ? 0 : (family === 6 ? 128 : 32) - prefix);
  const start = (value >> hostBits) << hostBits;
  return { family, start, end: start + (1n << hostBits) - 1n };
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
