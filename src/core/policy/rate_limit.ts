/**
 * Token-bucket rate limits by principal, primitive, both or globally.
 * Buckets start full, refill continuously, and a call takes one whole
 * token from every applicable bucket only when all of them have one.
 *
 * @module
 */

import type { RateLimitSpec } from "./document.ts";
import { globMatch } from "./access.ts";

const PERIOD_SECONDS = { second: 1, minute: 60, hour: 3600, day: 86400 } as const;

/** A limit with its identity (where it was declared). */
export interface PlacedLimit {
  /** Where it comes from (`policy[0]`, `role:lead[0]`, …). */
  id: string;
  spec: RateLimitSpec;
}

/** A refused call's facts. */
export interface RateRefusal {
  /** Seconds until a token is there (2 decimals). */
  retry_after: number;
  /** `<rate>/<per>`. */
  limit: string;
  /** The limit's scope. */
  scope: string;
}

/** The state of one bucket, for `rate_limit_status`. */
export interface BucketState {
  limit: string;
  scope: string;
  key: string;
  tokens: number;
  capacity: number;
}

/** Whether a limit applies to a primitive of `kind` named `names`. */
export function limitApplies(spec: RateLimitSpec, kind: string, names: readonly string[]): boolean {
  const kinds = spec.kinds ?? [];
  if (kind === "completion") {
    if (kinds.length > 0 && !kinds.includes("completion")) return false;
  } else if (kinds.length > 0) {
    const covered = kinds.flatMap((
      k,
    ) => (k === "resource" ? ["resource", "resource_template"] : [k]));
    if (!covered.includes(kind)) return false;
  }
  const tools = spec.tools ?? ["*"];
  return names.some((name) => tools.some((glob) => globMatch(glob, name)));
}

/** In-memory buckets of one policy. */
export class RateLimiter {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();
  readonly #now: () => number;

  /** A limiter reading the clock (milliseconds) from `now`. */
  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  /**
   * Checks every applicable bucket, then takes one token from each only if
   * all have one; returns the refusal of the bucket that waits longest.
   */
  take(limits: readonly PlacedLimit[], principal: string, name: string): RateRefusal | null {
    const now = this.#now();
    const plans: { key: string; tokens: number; refusal: RateRefusal | null }[] = [];
    for (const { id, spec } of limits) {
      const scope = spec.scope ?? "principal_tool";
      const scopeKey = scope === "principal"
        ? principal
        : scope === "tool"
        ? name
        : scope === "global"
        ? ""
        : `${principal}\x1f${name}`;
      const per = spec.per ?? "minute";
      const capacity = spec.burst ?? Math.max(1, Math.ceil(spec.rate));
      const perSecond = spec.rate / PERIOD_SECONDS[per];
      const key = `${id}\x1e${scopeKey}`;
      const bucket = this.#buckets.get(key) ?? { tokens: capacity, at: now };
      const tokens = Math.min(capacity, bucket.tokens + ((now - bucket.at) / 1000) * perSecond);
      const refusal = tokens >= 1 ? null : {
        retry_after: Math.round(((1 - tokens) / perSecond) * 100) / 100,
        limit: `${spec.rate}/${per}`,
        scope,
      };
      plans.push({ key, tokens, refusal });
    }
    const refused = plans.filter((p) => p.refusal !== null)
      .sort((a, b) => b.refusal!.retry_after - a.refusal!.retry_after)[0];
    for (const plan of plans) {
      this.#buckets.set(plan.key, {
        tokens: refused ? plan.tokens : plan.tokens - 1,
        at: now,
      });
    }
    return refused?.refusal ?? null;
  }

  /** Every bucket's current state. */
  states(limits: readonly PlacedLimit[]): BucketState[] {
    const now = this.#now();
    const out: BucketState[] = [];
    for (const [key, bucket] of this.#buckets) {
      const [id, scopeKey = ""] = key.split("\x1e");
      const limit = limits.find((l) => l.id === id);
      if (!limit) continue;
      const per = limit.spec.per ?? "minute";
      const capacity = limit.spec.burst ?? Math.max(1, Math.ceil(limit.spec.rate));
      const perSecond = limit.spec.rate / PERIOD_SECONDS[per];
      out.push({
        limit: `${limit.spec.rate}/${per}`,
        scope: limit.spec.scope ?? "principal_tool",
        key: `${id}:${scopeKey.replace("\x1f", "/")}`,
        tokens: Math.round(
          Math.min(capacity, bucket.tokens + ((now - bucket.at) / 1000) * perSecond) * 100,
        ) / 100,
        capacity,
      });
    }
    return out;
  }
}
