/**
 * Whether a policy statement's `Condition` limits who may call, the test
 * that tells a grant to any principal (`*`) that is really public from one
 * that only admits named callers. It follows how AWS decides a resource
 * policy is not public (S3 Block Public Access, IAM Access Analyzer): the
 * statement must pin the caller or its origin with fixed values of keys
 * such as aws:SourceAccount, aws:SourceOwner, aws:SourceArn, aws:SourceVpc,
 * aws:SourceVpce, aws:PrincipalOrgID, aws:PrincipalAccount, aws:PrincipalArn,
 * aws:userid, kms:CallerAccount or (for role trust) sts:ExternalId, or to
 * source IP ranges no wider than /8 (IPv4) or /32 (IPv6). A condition on anything else (aws:SecureTransport,
 * aws:UserAgent, a date…) leaves the grant open to everyone.
 *
 * @module
 */

import { isObject, strings } from "./import_input.ts";

/** Condition keys naming the caller or where the call comes from (lower case). */
const CALLER_KEYS: ReadonlySet<string> = new Set([
  "aws:sourceip",
  "aws:sourcevpc",
  "aws:sourcevpce",
  "aws:sourceaccount",
  "aws:sourceowner",
  "aws:sourcearn",
  "aws:sourceorgid",
  "aws:sourceorgpaths",
  "aws:principalorgid",
  "aws:principalorgpaths",
  "aws:principalaccount",
  "aws:principalarn",
  "aws:userid",
  "s3:dataaccesspointarn",
  "s3:dataaccesspointaccount",
  "kms:calleraccount",
  // A role trust naming an external id admits only callers that were given it.
  "sts:externalid",
]);

/** Operators (without a set prefix) that admit only the listed values. */
const MATCHING_OPERATORS: ReadonlySet<string> = new Set([
  "stringequals",
  "stringequalsignorecase",
  "stringlike",
  "arnequals",
  "arnlike",
  "ipaddress",
]);

/**
 * Operators that hold for every value but the listed ones: in a `Deny` they
 * refuse everyone else, so the callers the values name are the only ones left.
 */
const NEGATED_OPERATORS: ReadonlySet<string> = new Set([
  "stringnotequals",
  "stringnotequalsignorecase",
  "stringnotlike",
  "arnnotequals",
  "arnnotlike",
  "notipaddress",
]);

/** The widest source IP prefixes that still count as limiting, by address family. */
const MIN_PREFIX = { v4: 8, v6: 32 };

/** Whether one CIDR (or bare address) is no wider than {@link MIN_PREFIX}. */
function narrowRange(value: string): boolean {
  const [address = "", prefixText] = value.trim().split("/");
  const v6 = address.includes(":");
  if (!v6 && !/^\d{1,3}(\.\d{1,3}){3}$/.test(address)) return false;
  if (prefixText === undefined) return true;
  if (!/^\d{1,3}$/.test(prefixText)) return false;
  return Number(prefixText) >= (v6 ? MIN_PREFIX.v6 : MIN_PREFIX.v4);
}

/**
 * Whether one value pins the caller: an IP range narrow enough for
 * aws:SourceIp; for ARN keys an ARN whose account field is a fixed account
 * id, for organisation paths a path under a fixed organisation id (the rest
 * may hold wildcards); otherwise a value without wildcards.
 */
function fixedValue(key: string, value: string): boolean {
  if (key === "aws:sourceip") return narrowRange(value);
  if (key.endsWith("arn")) {
    const account = value.split(":")[4] ?? "";
    if (/^\d{12}$/.test(account)) return true;
  }
  if (key.endsWith("orgpaths")) return /^o-[a-z0-9]+$/.test(value.split("/")[0] ?? "");
  return value !== "" && !/[*?]/.test(value);
}

/**
 * Whether a statement's `Condition` block limits who may call: some
 * matching operator (`StringEquals`, `StringLike`, `ArnLike`, `IpAddress`…,
 * optionally `ForAnyValue:`; not `…IfExists`, which also passes when the key
 * is absent, nor `ForAllValues:`) tests a caller key (see the module notes)
 * against fixed values only.
 */
export function conditionLimitsCaller(condition: unknown): boolean {
  return pinsCaller(condition, (op) => MATCHING_OPERATORS.has(op.replace(/^foranyvalue:/, "")));
}

/**
 * Whether a `Deny` statement's `Condition` block limits who may call: some
 * negated operator (`StringNotEquals`, `StringNotLike`, `ArnNotLike`,
 * `NotIpAddress`…, optionally `…IfExists`, which also refuses callers
 * without the key) tests a caller key against fixed values only, so the
 * `Deny` refuses every caller but the ones named (the usual way to keep a
 * bucket to one VPC endpoint or organisation). A `Deny` under any other
 * condition (aws:SecureTransport, a date…) limits nothing about who calls.
 */
export function denyConditionLimitsCaller(condition: unknown): boolean {
  return pinsCaller(condition, (op) => NEGATED_OPERATORS.has(op.replace(/ifexists$/, "")));
}

function pinsCaller(condition: unknown, operatorLimits: (operator: string) => boolean): boolean {
  if (!isObject(condition)) return false;
  for (const [rawOperator, tests] of Object.entries(condition)) {
    const operator = rawOperator.toLowerCase();
    if (!operatorLimits(operator) || !isObject(tests)) continue;
    for (const [rawKey, rawValues] of Object.entries(tests)) {
      const key = rawKey.toLowerCase();
      if (!CALLER_KEYS.has(key)) continue;
      const values = strings(rawValues);
      if (values.length > 0 && values.every((v) => fixedValue(key, v))) return true;
    }
  }
  return false;
}
