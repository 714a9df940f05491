/**
 * The policy decision log: a ring buffer of allowed (when auditing or on a
 * reveal), denied, rate-limited, rejected and hidden decisions. Arguments
 * are stored as keyed 12-hex hashes, never as values.
 *
 * @module
 */

/** A decision. */
export type AuditDecision = "allowed" | "denied" | "rate_limited" | "rejected" | "not_found";

/** One log entry. */
export interface AuditEntry {
  ts: string;
  decision: AuditDecision;
  kind: string;
  name: string;
  principal: string;
  roles: string[];
  /** Argument name → keyed hash of its canonical JSON. */
  arguments: Record<string, string>;
  reason?: string;
}

/** Counters kept beside the log. */
export interface AuditCounters {
  allowed: number;
  denied: number;
  rate_limited: number;
  rejected: number;
  hidden: number;
  reveal: number;
}

/** The decision log. */
export class AuditLog {
  readonly #entries: AuditEntry[] = [];
  readonly #size: number;
  readonly #hash: (text: string) => string;
  /** Counts by decision. */
  readonly counters: AuditCounters = {
    allowed: 0,
    denied: 0,
    rate_limited: 0,
    rejected: 0,
    hidden: 0,
    reveal: 0,
  };

  /** A log of at most `size` entries, hashing with `hash`. */
  constructor(size: number, hash: (text: string) => string) {
    this.#size = size;
    this.#hash = hash;
  }

  /** Records a decision; argument values are hashed, never kept. */
  record(
    entry: Omit<AuditEntry, "ts" | "arguments"> & { arguments?: Record<string, unknown> },
  ): void {
    const hashed: Record<string, string> = {};
    for (const [key, value] of Object.entries(entry.arguments ?? {})) {
      hashed[key] = this.#hash(JSON.stringify(value ?? null));
    }
    if (entry.decision === "not_found") this.counters.hidden++;
    else this.counters[entry.decision]++;
    this.#entries.push({ ...entry, ts: new Date().toISOString(), arguments: hashed });
    if (this.#entries.length > this.#size) {
      this.#entries.splice(0, this.#entries.length - this.#size);
    }
  }

  /** The newest entries first, optionally of one decision or principal. */
  entries(options: { limit?: number; decision?: string; principal?: string } = {}): AuditEntry[] {
    return this.#entries
      .filter((e) => options.decision === undefined || e.decision === options.decision)
      .filter((e) => options.principal === undefined || e.principal === options.principal)
      .slice(-(options.limit ?? 100))
      .reverse();
  }
}
