/**
 * A coalesced signal: many requests in a short window become one call, and
 * none is lost. The first request of a quiet spell calls at once and opens a
 * window; requests during the window are folded into one call when it ends
 * (which opens the next window), so every request is followed by a call and
 * a burst of N requests costs at most one call per window instead of N.
 *
 * @module
 */

/** A signal that folds requests made close together into one call. */
export interface CoalescedSignal {
  /** Asks for a call: at once when no window is open, else once the open window ends. */
  request(): void;
  /** Drops a pending call and closes the window (for a connection that is closing). */
  cancel(): void;
}

/** Makes a signal calling `send` at most once per `windowMs` (> 0), always after the last request. */
export function coalescedSignal(send: () => void, windowMs: number): CoalescedSignal {
  if (!(windowMs > 0) || !Number.isFinite(windowMs)) {
    throw new RangeError(`A coalescing window must be a positive number of ms, not ${windowMs}.`);
  }
  let timer: ReturnType<typeof setTimeout> | null = null;
  let pending = false;
  const close = (): void => {
    timer = null;
    if (!pending) return;
    pending = false;
    open();
    send();
  };
  const open = (): void => {
    timer = setTimeout(close, windowMs);
  };
  return {
    request: (): void => {
      if (timer !== null) {
        pending = true;
        return;
      }
      open();
      send();
    },
    cancel: (): void => {
      if (timer !== null) clearTimeout(timer);
      timer = null;
      pending = false;
    },
  };
}
