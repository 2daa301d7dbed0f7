// A bounded memory of the event ids a consumer has handled, to drop a redelivered copy.

/** Remembers the last `capacity` ids, forgetting the oldest first. */
export class RecentIds {
  private readonly ids = new Set<string>();

  constructor(private readonly capacity = 10_000) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`dedupeWindow must be a whole number of at least 1 (got ${capacity})`);
    }
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  add(id: string): void {
    this.ids.delete(id);
    this.ids.add(id);
    // A Set iterates in insertion order: the first id is the oldest.
    while (this.ids.size > this.capacity) {
      const oldest = this.ids.values().next().value as string;
      this.ids.delete(oldest);
    }
  }
}

/** What a consumer's handler receives besides the event. */
export interface ConsumedMeta {
  /** The W3C `traceparent` the event was recorded in, to continue its trace; null when none. */
  traceparent: string | null;
  /** The broker says it delivered this message before (its handler may have failed). */
  redelivered: boolean;
}

/** A running consumer. */
export interface EventConsumer {
  /** Stops taking messages, waits for the handler in flight, and closes what the helper opened. */
  stop(): Promise<void>;
}

/** Waits `ms` without keeping the process alive for it. */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
