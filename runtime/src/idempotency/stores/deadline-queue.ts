// The memory store's expiry order (memory.ts): keys queued with their deadlines.
/**
 * A FIFO of keys and the deadlines they were queued with, in deadline order. Reservations all
 * live `inFlightReservationTimeoutMs` and responses all live `expirationMs`, so keys pushed in
 * time order are (nearly) sorted by deadline: expiring is popping the head, O(1) per key, with no
 * heap. It holds keys (strings the map holds anyway) and numbers, not entries: a reservation
 * completed a moment after it was made is garbage at once, instead of being kept by its queue slot
 * until the in-flight timeout has passed.
 */
export class DeadlineQueue {
  private keys: string[] = [];
  private deadlines: number[] = [];
  private head = 0;

  push(key: string, deadline: number): void {
    this.keys.push(key);
    this.deadlines.push(deadline);
  }

  /** The head's deadline; `Infinity` when the queue is empty. */
  peekDeadline(): number {
    return this.head < this.keys.length ? this.deadlines[this.head]! : Infinity;
  }

  /** The head's key; only when the queue is not empty. */
  peekKey(): string {
    return this.keys[this.head]!;
  }

  shift(): void {
    this.keys[this.head++] = '';
    // Compact now and then, so the arrays do not grow without bound under steady traffic.
    if (this.head >= 1024 && this.head * 2 >= this.keys.length) {
      this.keys = this.keys.slice(this.head);
      this.deadlines = this.deadlines.slice(this.head);
      this.head = 0;
    }
  }
}
