/**
 * The seven built-in policy profiles, as data. They govern both
 * workbenches: apps tools declare capabilities through their effects
 * (`exec` for process captures, `write_fs` for extraction, `write_state`
 * for session changes), so `read_only` hides the writers and launchers,
 * `airgapped` the launchers and network tools, and `strict` pseudonymises
 * identifiers, addresses, e-mail addresses and home-directory user names in
 * every result, binary strings and capture output included.
 *
 * @module
 */

import type { PolicyDocument } from "./document.ts";

/** `soc_analyst` → `soc-analyst` (hyphen and underscore are interchangeable). */
export function profileName(name: string): string {
  return name.trim().toLowerCase().replaceAll("_", "-");
}

const SANITIZE_STANDARD = { type: "sanitize", on_suspicious: "fence", max_free_text: 2000 };
const REDACT_STANDARD = {
  type: "redact",
  strategies: {
    secret: "redact",
    private_key: "drop",
    credential: { strategy: "mask", keep_first: 4, keep_last: 4 },
  },
};
const PROJECT_STANDARD = {
  type: "project",
  exclude: ["**.raw_data", "**._raw"],
  max_string: 20000,
  max_chars: 120000,
};
const STRICT_STRATEGIES = {
  secret: "redact",
  private_key: "drop",
  credential: "redact",
  identifier: "pseudonymize",
  // Azure subscriptions and many resource ids are UUIDs: under strict they are identifiers too.
  uuid: "pseudonymize",
  network: "pseudonymize",
  special_ip: "keep",
  special_cidr: "keep",
  pii: "pseudonymize",
  free_text: "pseudonymize",
  temporal: "keep",
};
const DENY_OUTSIDE = ["cloud_access", "exec", "write_fs", "reveal"];
const PRIVACY_ADMINS = {
  admin: { allow_capabilities: ["reveal"] },
  "privacy-admin": { allow_capabilities: ["reveal"] },
};
const REVEAL_LIMIT = { rate: 30, per: "minute", scope: "principal", tools: ["reveal_token"] };

/** The built-in profiles by name; each is a policy document (`extends` included). */
export const BUILTIN_PROFILES: Readonly<Record<string, PolicyDocument>> = Object.freeze({
  open: {
    name: "open",
    description: "Everything visible and allowed; no limits and no transforms.",
    hide_denied: true,
    transforms: [],
    input_transforms: [],
  },
  standard: {
    name: "standard",
    description:
      "Untrusted text fenced, secrets redacted, credentials masked, raw payloads left out; reveal only for admin and privacy-admin.",
    hide_denied: true,
    deny_capabilities: ["reveal"],
    roles: PRIVACY_ADMINS,
    rate_limits: [REVEAL_LIMIT as NonNullable<PolicyDocument["rate_limits"]>[number]],
    transforms: [SANITIZE_STANDARD, REDACT_STANDARD, PROJECT_STANDARD, "annotate"],
    input_transforms: [{ type: "guard_secrets", on_secret: "reject" }],
  },
  strict: {
    name: "strict",
    description:
      "Standard plus pseudonymised identifiers, addresses and personal data; no network, processes, file writes or reveal; restricted output hidden.",
    extends: "standard",
    deny_capabilities: DENY_OUTSIDE,
    max_sensitivity: "confidential",
    roles: {},
    rules: [{
      name: "never-reveal",
      description: "Nobody reveals pseudonyms under strict.",
      match: { roles: ["*"] },
      deny_capabilities: ["reveal"],
    }],
    rate_limits: [{ rate: 240, per: "minute", burst: 120, scope: "principal", kinds: ["tool"] }],
    transforms: [
      { ...SANITIZE_STANDARD, max_free_text: 1000 },
      { type: "redact", strategies: STRICT_STRATEGIES },
      {
        ...PROJECT_STANDARD,
        exclude: ["**.raw_data", "**._raw", "**.user_data"],
        max_string: 4000,
        max_chars: 100000,
      },
      "annotate",
    ],
  },
  "read-only": {
    name: "read_only",
    description: "Standard without network access, process launches, file writes or reveal.",
    extends: "standard",
    deny_capabilities: DENY_OUTSIDE,
  },
  airgapped: {
    name: "airgapped",
    description: "Standard without network access, process launches or reveal.",
    extends: "standard",
    deny_capabilities: ["cloud_access", "exec", "reveal"],
  },
  audit: {
    name: "audit",
    description: "Read-only, with every decision kept in a larger audit log and findings labelled.",
    extends: "read_only",
    audit: true,
    audit_size: 10000,
    transforms: [
      SANITIZE_STANDARD,
      REDACT_STANDARD,
      PROJECT_STANDARD,
      { type: "annotate", inline: true, label_findings: true },
    ],
  },
  "soc-analyst": {
    name: "soc-analyst",
    description:
      "Security operations: analysts see pseudonymised, confidential-at-most output; leads may reveal; collectors may reach the network.",
    extends: "standard",
    audit: true,
    deny_capabilities: DENY_OUTSIDE,
    max_sensitivity: "confidential",
    roles: {
      analyst: {
        max_sensitivity: "confidential",
        deny_categories: ["live", "export"],
        deny_tools: ["export_*", "subgraph_export"],
        transform_options: { redact: { strategies: STRICT_STRATEGIES } },
      },
      lead: {
        max_sensitivity: "restricted",
        allow_capabilities: ["reveal", "write_fs"],
        rate_limits: [{
          rate: 20,
          per: "hour",
          scope: "principal",
          tools: ["reveal_token"],
        }],
      },
      collector: {
        allow_capabilities: ["cloud_access", "exec", "write_fs"],
        allow_categories: ["live"],
      },
    },
    rules: [{
      name: "label-findings",
      match: { categories: ["findings"] },
      transform_options: { annotate: { label_findings: true } },
    }],
    rate_limits: [{ rate: 300, per: "minute", burst: 100, scope: "principal", kinds: ["tool"] }],
  },
} as Record<string, PolicyDocument>);
