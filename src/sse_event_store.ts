/**
 * A bounded in-memory SSE event store for one Streamable HTTP session: it
 * numbers the events of each stream, so a client that lost its stream (or
 * was asked to poll) reconnects with `Last-Event-ID` and receives what it
 * missed. Holds at most a fixed number of events per session; older ones
 * are forgotten (a client that reconnects later than that misses them).
 *
 * @module
 */

/** A JSON-RPC message as the transport stores it. */
type Message = Parameters<SessionEventStore["storeEvent"]>[1];

interface StoredEvent {
  id: string;
  streamId: string;
  message: unknown;
}

/** Default of the per-session bound. */
export const EVENTS_PER_SESSION = 1_000;

/** The event store of one session (implements the SDK's `EventStore`). */
export class SessionEventStore {
  readonly #limit: number;
  #events: StoredEvent[] = [];
  #next = 0;

  /** A store keeping at most `limit` events. */
  constructor(limit: number = EVENTS_PER_SESSION) {
    this.#limit = limit;
  }

  /** Stores one event of a stream; returns its id (`<stream>_<n>`). */
  storeEvent(streamId: string, message: object): Promise<string> {
    const id = `${streamId}_${++this.#next}`;
    this.#events.push({ id, streamId, message });
    if (this.#events.length > this.#limit) {
      this.#events.splice(0, this.#events.length - this.#limit);
    }
    return Promise.resolve(id);
  }

  /** The stream an event id belongs to, when the event is still held. */
  getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return Promise.resolve(this.#events.find((e) => e.id === eventId)?.streamId);
  }

  /** Sends every held event of the same stream after `lastEventId`; returns the stream id. */
  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: Message) => Promise<void> },
  ): Promise<string> {
    const at = this.#events.findIndex((e) => e.id === lastEventId);
    if (at < 0) return "";
    const streamId = this.#events[at]!.streamId;
    for (const event of this.#events.slice(at + 1)) {
      // Priming events carry no message.
      if (event.streamId !== streamId || Object.keys(event.message as object).length === 0) {
        continue;
      }
      await send(event.id, event.message as Message);
    }
    return streamId;
  }

  /** How many events are held. */
  get size(): number {
    return this.#events.length;
  }
}
