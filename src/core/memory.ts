/**
 * Giving back the garbage of one-off heavy work (reading a large binary in
 * full, building its reference index) before the next request allocates:
 * V8 would otherwise let it stand until its next major collection, and the
 * next request's memory would come on top of it.
 *
 * @module
 */

let pending = false;

/**
 * Collects garbage once the current work has answered (on the next turn of
 * the event loop; several requests before then share one collection), when
 * the engine lets script ask for it: V8's `--expose-gc`, which the start and
 * compile tasks pass. Without it, does nothing.
 */
export function collectGarbageSoon(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc !== "function" || pending) return;
  pending = true;
  const timer = setTimeout(() => {
    pending = false;
    gc();
  }, 0);
  // Never what keeps the process alive.
  Deno.unrefTimer(Number(timer));
}
