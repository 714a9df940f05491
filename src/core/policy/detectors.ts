/**
 * Content detectors: what the redact transform looks for inside strings,
 * by category (`secret`, `credential`, `identifier`, `pii`, `network`,
 * `temporal`). IP matches are refined into special, private and public
 * addresses or CIDRs with `ipaddr.js`.
 *
 * @module
 */

import ipaddr from "ipaddr.js";

/** One detector. */
export interface Detector {
  /** Its name (`aws_arn`, `ipv4`, …). */
  name: string;
  /** The entity it reports (before refinement). */
  entity: string;
  /** Its category. */
  category: string;
  /** How sure a match is, 0–1. */
  confidence: number;
  /** A global regular expression; group 1, when present, is the sensitive part. */
  pattern: RegExp;
  /** A cheap test a string must pass before the pattern runs. */
  hint?: (text: string) => boolean;
  /**
   * A regular expression source every match contains (the redactor joins
   * them into one prefilter, so most strings cost one regex test).
   */
  hintSource?: string;
  /** Refines a match into a narrower entity (for example `private_ip`); null drops it. */
  refine?: (match: string) => string | null;
  /** Opt-in detectors only run when a policy names their category's strategy. */
  optIn?: boolean;
  /** What it finds, for `list_detectors`. */
  description: string;
}

/** Parent entities, for strategy lookup. */
export const ENTITY_PARENTS: Readonly<Record<string, readonly string[]>> = {
  private_ip: ["ip_address"],
  public_ip: ["ip_address"],
  special_ip: ["ip_address"],
  private_cidr: ["cidr"],
  public_cidr: ["cidr"],
  special_cidr: ["cidr"],
  aws_unique_id: ["aws_access_key_id"],
  azure_tenant_id: ["azure_subscription_id"],
};

const PRIVATE_V4 = ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10"].map((c) =>
  ipaddr.parseCIDR(c)
);
const SPECIAL_V4 = [
  "0.0.0.0/8",
  "127.0.0.0/8",
  "169.254.0.0/16",
  "224.0.0.0/4",
  "240.0.0.0/4",
].map((c) => ipaddr.parseCIDR(c));

/** The private block (address, prefix length) an IPv4 address lies in, or null. */
export function privateBlock(address: string): [string, number] | null {
  const ip = ipaddr.IPv4.parse(address);
  for (const [net, bits] of PRIVATE_V4) {
    if (ip.match(net as ipaddr.IPv4, bits)) return [net.toString(), bits];
  }
  return null;
}

/** `special`, `private` or `public` for an IPv4 or IPv6 address (a CIDR's address part). */
export function ipClass(text: string): "special" | "private" | "public" | null {
  const [address, bits] = text.split("/");
  if (bits !== undefined && Number(bits) === 0) return "special";
  if (!ipaddr.isValid(address ?? "")) return null;
  const ip = ipaddr.parse(address ?? "");
  if (ip.kind() === "ipv4") {
    const v4 = ip as ipaddr.IPv4;
    if (address === "255.255.255.255") return "special";
    if (SPECIAL_V4.some(([net, b]) => v4.match(net as ipaddr.IPv4, b))) return "special";
    return PRIVATE_V4.some(([net, b]) => v4.match(net as ipaddr.IPv4, b)) ? "private" : "public";
  }
  const range = (ip as ipaddr.IPv6).range();
  if (range === "uniqueLocal") return "private";
  if (["unspecified", "loopback", "linkLocal", "multicast"].includes(range)) return "special";
  return "public";
}

function refineIp(match: string): string | null {
  const [address, bits] = match.split("/");
  if (!ipaddr.isValid(address ?? "")) return null;
  if (bits !== undefined) {
    const n = Number(bits);
    const max = (address ?? "").includes(":") ? 128 : 32;
    if (!Number.isInteger(n) || n > max) return null;
  }
  const cls = ipClass(match);
  return cls === null ? null : `${cls}_${bits === undefined ? "ip" : "cidr"}`;
}

const hasDigit = (t: string): boolean => /\d/.test(t);
const SECRET_ASSIGNED = /(?:pass(?:w(?:or)?d)?|pwd|secret|key|token)["']?\s*[=:]/i;
const BEARER_OR_BASIC = /(?:Bearer|Basic)\s/;
const DIGIT_DOT = /\d\.\d/;
const COLON_GROUPS = /[0-9a-fA-F]{1,4}:[0-9a-fA-F]{1,4}:[0-9a-fA-F]{1,4}:/;
const MAC_START = /[0-9a-fA-F]{2}[:-][0-9a-fA-F]{2}[:-][0-9a-fA-F]{2}/;
const HOST_END = /[a-z0-9]\.(?:com|net|org|io|internal|local|corp|lan|cloud|dev)\b/i;
const TWELVE_DIGITS = /\d{12}/;

/** The built-in detectors, in the order they run (earlier ones win overlaps). */
export const BUILTIN_DETECTORS: readonly Detector[] = [
  {
    name: "private_key",
    hintSource: "-----BEGIN",
    entity: "private_key",
    category: "secret",
    confidence: 1,
    pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
    hint: (t) => t.includes("-----BEGIN"),
    description: "PEM private key blocks.",
  },
  {
    name: "jwt",
    hintSource: "eyJ",
    entity: "jwt",
    category: "secret",
    confidence: 0.9,
    pattern: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
    hint: (t) => t.includes("eyJ"),
    description: "JSON Web Tokens.",
  },
  {
    name: "url_credentials",
    hintSource: "://[^\\s@/]*@",
    entity: "password",
    category: "secret",
    confidence: 0.9,
    pattern: /[a-z][a-z0-9+.-]*:\/\/[^\s:@/]+:([^\s@/]+)@/gi,
    hint: (t) => t.includes("://") && t.includes("@"),
    description: "Passwords inside URLs (scheme://user:password@host).",
  },
  {
    name: "aws_secret_access_key",
    hintSource: "(?i:secret_access_key)",
    entity: "aws_secret_access_key",
    category: "secret",
    confidence: 0.9,
    pattern: /aws_secret_access_key["']?\s*[=:]\s*["']?([A-Za-z0-9/+]{40})/gi,
    hint: (t) => /secret_access_key/i.test(t),
    description: "AWS secret access keys in assignments.",
  },
  {
    name: "secret_assignment",
    // The name must be followed by the assignment, as in the pattern: identifiers that merely
    // contain "Pass" or "Key" (procedure names, symbols) are not looked at twice.
    hintSource: "(?i:(?:pass(?:w(?:or)?d)?|pwd|secret|key|token)[\"']?\\s*[=:])",
    entity: "secret_value",
    category: "secret",
    confidence: 0.8,
    // A name may carry a prefix (DB_PASSWORD, MYSQL_PWD, client-secret); "pass" counts only
    // with one (DB_PASS), so a test report's "pass: 12/12" is left alone. Bare PWD given a
    // path is the shell's working directory (PWD=/home/me, OLDPWD never matches), not a password.
    pattern:
      /(?<![\w:/.-])(?:(?:[a-z0-9]+[_-])+(?:password|passwd|pass|pwd)|password|passwd|pwd(?!["']?\s*[=:]\s*["']?[/~])|(?:[a-z0-9]+[_-])*(?:secret|api[_-]?key|access[_-]?token|auth[_-]?token))["']?\s*[=:]\s*["']?([^\s"',;]{6,})/gi,
    hint: (t) => SECRET_ASSIGNED.test(t),
    description:
      "Values assigned to password, passwd, pwd, secret, api_key or token names, with or without a prefix (DB_PASS); not PWD or OLDPWD holding a path.",
  },
  {
    name: "authorization_header",
    hintSource: "(?:Bearer|Basic)\\s",
    entity: "authorization_header",
    category: "secret",
    confidence: 0.9,
    pattern: /\b(?:Bearer|Basic)\s+([A-Za-z0-9._~+/-]{16,}=*)/g,
    hint: (t) => BEARER_OR_BASIC.test(t),
    description: "Bearer and Basic authorization values.",
  },
  {
    name: "api_token",
    hintSource: "gh[pousr]_|xox|AIza|k_live_|k_test_",
    entity: "api_token",
    category: "secret",
    confidence: 0.95,
    pattern:
      /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|xox[baprs]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35}|[sr]k_(?:live|test)_[0-9a-zA-Z]{16,})/g,
    hint: (t) => /gh[pousr]_|xox|AIza|k_live_|k_test_/.test(t),
    description: "GitHub, Slack, Google and Stripe API tokens.",
  },
  {
    name: "aws_access_key_id",
    hintSource: "AKIA|ASIA",
    entity: "aws_access_key_id",
    category: "credential",
    confidence: 0.95,
    pattern: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g,
    hint: (t) => t.includes("AKIA") || t.includes("ASIA"),
    description: "AWS access key ids.",
  },
  {
    name: "aws_unique_id",
    hintSource: "AIDA|AROA|AGPA|ANPA|ANVA|AIPA",
    entity: "aws_unique_id",
    category: "identifier",
    confidence: 0.9,
    pattern: /\b(?:AIDA|AROA|AGPA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b/g,
    hint: (t) => /AIDA|AROA|AGPA|ANPA|ANVA|AIPA/.test(t),
    description: "AWS unique ids of users, roles, groups and policies.",
  },
  {
    name: "cloudg_uri",
    hintSource: "cloudg://assets/",
    entity: "cloudg_uri",
    category: "identifier",
    confidence: 1,
    pattern: /cloudg:\/\/assets\/([^\s"'<>/?#]+)/g,
    hint: (t) => t.includes("cloudg://assets/"),
    description: "Asset resource URIs (the asset reference inside them).",
  },
  {
    name: "aws_arn",
    hintSource: "arn:",
    entity: "aws_arn",
    category: "identifier",
    confidence: 1,
    pattern: /\barn:aws[a-z-]*:[a-z0-9-]+:[a-z0-9-]*:(?:\d{12}|aws)?:[^\s"'<>,;)]+/g,
    hint: (t) => t.includes("arn:"),
    description: "AWS ARNs.",
  },
  {
    name: "azure_resource_id",
    hintSource: "/subscriptions/",
    entity: "azure_resource_id",
    category: "identifier",
    confidence: 1,
    pattern: /\/subscriptions\/[0-9a-fA-F-]{36}(?:\/[^\s"'<>,;)]+)?/g,
    hint: (t) => t.includes("/subscriptions/"),
    description: "Azure resource ids.",
  },
  {
    name: "email",
    hintSource: "@",
    entity: "email",
    category: "pii",
    confidence: 0.95,
    pattern: /\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b/g,
    hint: (t) => t.includes("@"),
    description: "E-mail addresses.",
  },
  {
    name: "home_user",
    hintSource: "/home/|/Users/",
    entity: "username",
    category: "pii",
    confidence: 0.8,
    pattern: /\/(?:home|Users)\/([A-Za-z0-9._-]+)/g,
    hint: (t) => t.includes("/home/") || t.includes("/Users/"),
    description: "User names in home-directory paths (binary strings, captures, inventories).",
  },
  {
    name: "ipv4",
    hintSource: "\\d\\.\\d",
    entity: "ip_address",
    category: "network",
    confidence: 0.9,
    pattern: /(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?:\/\d{1,2})?(?![\d.])/g,
    hint: (t) => DIGIT_DOT.test(t),
    refine: refineIp,
    description: "IPv4 addresses and CIDRs, refined into special, private and public.",
  },
  {
    name: "ipv6",
    hintSource: "::|[0-9a-fA-F]{1,4}:[0-9a-fA-F]{1,4}:[0-9a-fA-F]{1,4}:",
    entity: "ip_address",
    category: "network",
    confidence: 0.8,
    pattern:
      /(?<![\w:])(?:[0-9a-fA-F]{1,4}:){1,7}(?::|[0-9a-fA-F]{1,4})(?::[0-9a-fA-F]{1,4})*(?:\/\d{1,3})?(?![\w:])/g,
    hint: (t) => t.includes("::") || COLON_GROUPS.test(t),
    refine: refineIp,
    description: "IPv6 addresses and CIDRs, refined into special, private and public.",
  },
  {
    name: "mac_address",
    hintSource: "[0-9a-fA-F]{2}[:-][0-9a-fA-F]{2}[:-][0-9a-fA-F]{2}",
    entity: "mac_address",
    category: "network",
    confidence: 0.8,
    pattern: /\b[0-9a-fA-F]{2}(?:([:-])[0-9a-fA-F]{2})(?:\1[0-9a-fA-F]{2}){4}\b/g,
    hint: (t) => MAC_START.test(t),
    description: "MAC addresses.",
  },
  {
    name: "hostname",
    hintSource: "(?i:[a-z0-9]\\.(?:com|net|org|io|internal|local|corp|lan|cloud|dev)\\b)",
    entity: "hostname",
    category: "network",
    confidence: 0.7,
    pattern:
      /\b(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:com|net|org|io|internal|local|corp|lan|cloud|dev)\b/gi,
    hint: (t) => t.includes(".") && HOST_END.test(t),
    description: "Host names under common and internal top-level domains.",
  },
  {
    name: "aws_account_id",
    hintSource: "\\d{12}",
    entity: "aws_account_id",
    category: "identifier",
    confidence: 0.7,
    pattern: /(?<![\d.-])\d{12}(?![\d.])/g,
    hint: (t) => t.length >= 12 && TWELVE_DIGITS.test(t),
    description: "Twelve-digit AWS account ids.",
  },
  {
    name: "uuid",
    hintSource: "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-",
    entity: "uuid",
    category: "identifier",
    confidence: 0.6,
    pattern: /\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b/g,
    hint: (t) => t.length >= 36 && t.includes("-"),
    description: "UUIDs.",
  },
  {
    name: "timestamp",
    hintSource: "\\d{4}-\\d{2}-\\d{2}[T ]\\d",
    entity: "timestamp",
    category: "temporal",
    confidence: 0.9,
    pattern: /\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?\b/g,
    hint: hasDigit,
    optIn: true,
    description: "ISO timestamps (opt-in).",
  },
];
